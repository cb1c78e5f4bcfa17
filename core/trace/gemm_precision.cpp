#include "core/trace/gemm_precision.h"

#include <algorithm>
#include <cctype>

#include "core/text.h"

namespace mfu::trace {

namespace {

bool has(std::string_view haystack, std::string_view needle)
{
    return haystack.find(needle) != std::string_view::npos;
}

std::string upper(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::toupper(c)); });
    return out;
}

} // namespace

std::string GemmPrecision::key() const
{
    return (microscaled ? "mx" : "") + std::string(numberFormatKey(format));
}

std::string GemmPrecision::label() const
{
    std::string s = upper(key());
    if (fp4Operand && format != NumberFormat::FP4)
        s += microscaled ? " x MXFP4" : " x FP4";
    return s;
}

std::optional<GemmPrecision> gemmPrecisionFromKernelName(std::string_view kernelName)
{
    const std::string n = asciiLowered(kernelName);
    GemmPrecision p;
    // Block-scaled operands: TensorRT-LLM's "MxE4m3"/"MxE2m1", CUTLASS's "mxf8f6f4"/"mxf4", NVFP4's "nvf4"/"ue4m3".
    p.microscaled = has(n, "mxe") || has(n, "mxf") || has(n, "nvf4") || has(n, "ue8m0") || has(n, "ue4m3");
    const bool fp4 = has(n, "e2m1") || has(n, "fp4") || has(n, "mxf4") || has(n, "nvf4");
    const bool fp8 = has(n, "e4m3") || has(n, "e5m2") || has(n, "fp8") || has(n, "f8f6f4") || has(n, "qgmma");
    if (fp8) {
        p.format = NumberFormat::FP8;
        p.fp4Operand = fp4;
        return p;
    }
    if (fp4) {
        p.format = NumberFormat::FP4;
        return p;
    }
    p.microscaled = false;
    // CUTLASS names a tensor-core GEMM by its accumulator and instruction shape, then its operands' type:
    // `tensorop_s1688gemm_f16` takes FP16 operands; with none named the operands are FP32, which the 16x8x8
    // tensor-core instruction of Ampere and later takes only as TF32 (CUTLASS's `OpMultiplyAdd` on `tfloat32_t`).
    const bool tensorOpS1688 = has(n, "tensorop_s1688gemm");
    if (has(n, "tf32") || (tensorOpS1688 && !has(n, "s1688gemm_f16") && !has(n, "s1688gemm_bf16")))
        p.format = NumberFormat::TF32;
    else if (has(n, "bf16") || has(n, "bfloat16"))
        p.format = NumberFormat::BF16;
    else if (has(n, "fp16") || has(n, "f16f16") || has(n, "h884") || has(n, "h1688") || has(n, "h16816")
        || has(n, "hgemm") || has(n, "_half") || has(n, "s1688gemm_f16"))
        p.format = NumberFormat::FP16;
    else if (has(n, "sgemm") || has(n, "f32f32_f32"))
        p.format = NumberFormat::FP32;
    else
        return std::nullopt;
    return p;
}

std::optional<GemmPrecision> refineGemmPrecision(std::optional<GemmPrecision> fromTypes, std::string_view kernelName)
{
    return refineGemmPrecision(fromTypes, gemmPrecisionFromKernelName(kernelName));
}

std::optional<GemmPrecision> refineGemmPrecision(
    std::optional<GemmPrecision> fromTypes, const std::optional<GemmPrecision>& fromName)
{
    if (!fromTypes)
        return fromName;
    GemmPrecision p = *fromTypes;
    if (p.format == NumberFormat::FP32 && fromName && fromName->format == NumberFormat::TF32)
        p.format = NumberFormat::TF32;
    if (fromName && fromName->microscaled && (p.format == NumberFormat::FP8 || p.format == NumberFormat::FP4))
        p.microscaled = true;
    return p;
}

PeakAt densePeakAt(const HardwareSpec& hardware, NumberFormat format)
{
    auto at = [&](NumberFormat f) { return hardware.densePeak(f).value_or(0.0); };
    // BF16 and FP16 share one peak on every device that has both: taking one for the other is no fallback.
    auto sixteen = [](NumberFormat f) { return f == NumberFormat::BF16 || f == NumberFormat::FP16; };
    auto peak = [&](NumberFormat f) { return PeakAt { at(f), f, f != format && !(sixteen(f) && sixteen(format)) }; };
    auto chain = [&](std::initializer_list<NumberFormat> formats) {
        for (NumberFormat f : formats)
            if (at(f) > 0)
                return peak(f);
        return peak(hardware.mfuPeakFormat());
    };
    switch (format) {
    case NumberFormat::FP32:
        return chain({ NumberFormat::FP32 });
    case NumberFormat::TF32:
        return chain({ NumberFormat::TF32, NumberFormat::FP32 });
    case NumberFormat::BF16:
        return chain({ NumberFormat::BF16, NumberFormat::FP16 });
    case NumberFormat::FP16:
        return chain({ NumberFormat::FP16, NumberFormat::BF16 });
    case NumberFormat::FP8:
        return chain({ NumberFormat::FP8, NumberFormat::BF16, NumberFormat::FP16 });
    case NumberFormat::FP4:
        return chain({ NumberFormat::FP4, NumberFormat::FP8, NumberFormat::BF16, NumberFormat::FP16 });
    }
    return chain({});
}

} // namespace mfu::trace
