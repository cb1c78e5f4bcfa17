#pragma once
// The precision a matrix product ran at, from its operator's recorded input types and its kernel's name, and the
// dense peak of a GPU at that precision.
//
// Kernel names carry the types where the libraries write them: cuBLAS `sm90_xmma_gemm_bf16bf16_...`,
// `ampere_fp16_s16816gemm`, `volta_h884gemm` (FP16), `cutlass_80_simt_sgemm` (FP32, no tensor cores), `*tf32*`,
// CUTLASS `tensorop_s1688gemm` without an operand type (FP32 operands on tensor cores: TF32);
// TensorRT-LLM's generated Blackwell kernels `bmm_E4m3_...`, `bmm_MxE4m3_MxE2m1...` (MX block-scaled FP8 and
// FP4), DeepGEMM `fp8_gemm`. Input types win where an operator recorded them, except that FP32 inputs run at TF32
// when the kernel says so (torch.backends.cuda.matmul.allow_tf32).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/model/hardware_spec.h"
#include "core/model/precision.h"

namespace mfu::trace {

struct GemmPrecision {
    NumberFormat format = NumberFormat::BF16; // the rate the product runs at: the wider operand of a mixed product
    bool microscaled = false; // MX (E8M0 block scales) or NVFP4 block-scaled operands
    bool fp4Operand = false; // an FP4 operand beside a wider one (FP8 activations x FP4 weights)

    // "bf16", "fp16", "fp8", "fp4", "tf32", "fp32"; "mxfp8", "mxfp4" when block-scaled.
    std::string key() const;
    // "BF16", "MXFP8 x FP4", ...
    std::string label() const;
    // Distinct for distinct precisions: for tallies that must not build key() per kernel.
    uint8_t code() const
    {
        return static_cast<uint8_t>(static_cast<int>(format) * 4 + (microscaled ? 2 : 0) + (fp4Operand ? 1 : 0));
    }
    bool operator==(const GemmPrecision&) const = default;
};

std::optional<GemmPrecision> gemmPrecisionFromKernelName(std::string_view kernelName);
// An operator's input precision refined by the name of the kernel that ran it (TF32 for FP32 inputs); the kernel
// name alone when the operator recorded no types.
std::optional<GemmPrecision> refineGemmPrecision(std::optional<GemmPrecision> fromTypes, std::string_view kernelName);
// The same with the kernel name's precision already read (gemmPrecisionFromKernelName), for callers that cache it.
std::optional<GemmPrecision> refineGemmPrecision(
    std::optional<GemmPrecision> fromTypes, const std::optional<GemmPrecision>& fromName);

// The dense peak of `hardware` at `precision`, falling back where the datasheet gives none: FP16 and BF16 share a
// peak, TF32 falls back to FP32, FP8 and FP4 to the next wider format the GPU has, and the MFU peak last.
struct PeakAt {
    double flopsPerSecond = 0; // 0 when the GPU has no dense peak at all
    NumberFormat format = NumberFormat::BF16; // whose peak it is
    bool fallback = false; // not the precision asked for
};
PeakAt densePeakAt(const HardwareSpec& hardware, NumberFormat format);

} // namespace mfu::trace
