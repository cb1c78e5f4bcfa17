#include "core/trace/op_flops.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <system_error>
#include <unordered_map>
#include <vector>

namespace mfu::trace {

namespace {

// ---- element types ----

struct TypeName {
    std::string_view name;
    ScalarType type;
};

constexpr std::array kTypeNames {
    TypeName { "c10::BFloat16", ScalarType::BFloat16 },
    TypeName { "c10::Half", ScalarType::Half },
    TypeName { "float", ScalarType::Float },
    TypeName { "double", ScalarType::Double },
    TypeName { "c10::Float8_e4m3fn", ScalarType::Float8E4M3 },
    TypeName { "c10::Float8_e4m3fnuz", ScalarType::Float8E4M3 },
    TypeName { "c10::Float8_e5m2", ScalarType::Float8E5M2 },
    TypeName { "c10::Float8_e5m2fnuz", ScalarType::Float8E5M2 },
    TypeName { "c10::Float8_e8m0fnu", ScalarType::Float8E8M0 },
    TypeName { "c10::Float4_e2m1fn_x2", ScalarType::Float4E2M1x2 },
    TypeName { "long int", ScalarType::Int64 },
    TypeName { "long", ScalarType::Int64 },
    TypeName { "int", ScalarType::Int32 },
    TypeName { "short int", ScalarType::Int16 },
    TypeName { "short", ScalarType::Int16 },
    TypeName { "signed char", ScalarType::Int8 },
    TypeName { "unsigned char", ScalarType::UInt8 },
    TypeName { "bool", ScalarType::Bool },
    TypeName { "c10::complex<float>", ScalarType::ComplexFloat },
    TypeName { "c10::complex<double>", ScalarType::ComplexDouble },
    TypeName { "TensorList", ScalarType::TensorList },
    TypeName { "", ScalarType::None },
    TypeName { "Scalar", ScalarType::None },
    TypeName { "ScalarList", ScalarType::None },
    TypeName { "GenericList", ScalarType::None },
};

// ---- operator families ----

enum class Shape : uint8_t {
    // matmul: index of the two matrix operands
    Mm, // (A, B)
    Addmm, // (bias, A, B)
    Bmm, // (A, B)
    Baddbmm, // (input, A, B)
    ScaledMm, // (A, B, scale_a, scale_b, ...)
    GroupedMm, // (A, B, offs, ...)
    ScaledGroupedMm, // (A, B, scale_a, scale_b, offs, ...)
    Attention, // see AttentionSpec
    Convolution, // see ConvSpec
    Elementwise,
    InPlace, // elementwise writing its first input
    Overwrite, // writes its first input without reading it (copy_, fill_, zero_)
    Reduction, // reads its inputs, writes next to nothing
    Concat, // writes what its tensor list holds
    RowWise, // normalisation and softmax: writes one element per element of its first tensor input
    InductorKernel, // a torch.compile (Inductor) Triton kernel: its buffers, each read or written once
    InductorMatmul, // an Inductor templated GEMM (triton_tem_fused_mm, addmm, bmm): A, B and the output among its
    // buffers
};

enum class Layout : uint8_t { Bhsd, Bshd };
enum class CausalFlag : uint8_t { Bool, MaskType }; // is_causal, or custom_mask_type (1, 2: causal)

struct AttentionSpec {
    uint8_t q = 0; // index of the query; key and value follow it
    Layout layout = Layout::Bhsd;
    uint8_t causal = 0; // index of the causal flag in Concrete Inputs
    CausalFlag flag = CausalFlag::Bool;
    bool backward = false;
};

struct ConvSpec {
    uint8_t stride = 0, padding = 0, dilation = 0; // Concrete Inputs indices
    uint8_t transposed = 255; // 255: the op has no such argument
    uint8_t outputMask = 255; // convolution_backward
    bool backward = false;
};

struct OpSpec {
    OpKind kind = OpKind::None;
    Shape shape = Shape::Elementwise;
    AttentionSpec attention {};
    ConvSpec conv {};
};

OpSpec matmul(Shape s)
{
    return { s == Shape::GroupedMm || s == Shape::ScaledGroupedMm ? OpKind::GroupedGemm : OpKind::Matmul, s };
}
OpSpec attention(AttentionSpec a)
{
    return { OpKind::Attention, Shape::Attention, a, {} };
}
OpSpec conv(ConvSpec c)
{
    return { OpKind::Convolution, Shape::Convolution, {}, c };
}
OpSpec bytesOnly(OpKind kind, Shape s)
{
    return { kind, s };
}

// Argument positions from PyTorch's native_functions.yaml (torch 2.x) and flash-attn's torch.library ops.
const std::unordered_map<std::string_view, OpSpec>& specs()
{
    static const std::unordered_map<std::string_view, OpSpec> table = [] {
        std::unordered_map<std::string_view, OpSpec> t;
        t["aten::mm"] = matmul(Shape::Mm);
        t["aten::addmm"] = matmul(Shape::Addmm);
        t["aten::bmm"] = matmul(Shape::Bmm);
        t["aten::baddbmm"] = matmul(Shape::Baddbmm);
        t["aten::_scaled_mm"] = matmul(Shape::ScaledMm);
        t["aten::_grouped_mm"] = matmul(Shape::GroupedMm);
        t["aten::_scaled_grouped_mm"] = matmul(Shape::ScaledGroupedMm);

        // Forward: (query, key, value, ...), backward: (grad_out, query, key, value, ...).
        t["aten::scaled_dot_product_attention"] = attention({ 0, Layout::Bhsd, 5, CausalFlag::Bool, false });
        t["aten::_scaled_dot_product_attention_math"] = attention({ 0, Layout::Bhsd, 5, CausalFlag::Bool, false });
        t["aten::_scaled_dot_product_flash_attention"] = attention({ 0, Layout::Bhsd, 4, CausalFlag::Bool, false });
        t["aten::_scaled_dot_product_efficient_attention"] = attention({ 0, Layout::Bhsd, 6, CausalFlag::Bool, false });
        t["aten::_scaled_dot_product_cudnn_attention"] = attention({ 0, Layout::Bhsd, 6, CausalFlag::Bool, false });
        t["aten::_flash_attention_forward"] = attention({ 0, Layout::Bshd, 8, CausalFlag::Bool, false });
        t["aten::_efficient_attention_forward"] = attention({ 0, Layout::Bshd, 9, CausalFlag::MaskType, false });
        t["aten::_scaled_dot_product_flash_attention_backward"]
            = attention({ 1, Layout::Bhsd, 11, CausalFlag::Bool, true });
        t["aten::_scaled_dot_product_efficient_attention_backward"]
            = attention({ 1, Layout::Bhsd, 11, CausalFlag::Bool, true });
        t["aten::_scaled_dot_product_cudnn_attention_backward"]
            = attention({ 1, Layout::Bhsd, 14, CausalFlag::Bool, true });
        t["aten::_flash_attention_backward"] = attention({ 1, Layout::Bshd, 11, CausalFlag::Bool, true });
        t["aten::_efficient_attention_backward"] = attention({ 1, Layout::Bshd, 14, CausalFlag::MaskType, true });
        t["flash_attn::_flash_attn_forward"] = attention({ 0, Layout::Bshd, 5, CausalFlag::Bool, false });
        t["flash_attn::_flash_attn_backward"] = attention({ 1, Layout::Bshd, 11, CausalFlag::Bool, true });

        constexpr uint8_t none = 255;
        t["aten::convolution"] = conv({ 3, 4, 5, 6, none, false });
        t["aten::_convolution"] = conv({ 3, 4, 5, 6, none, false });
        t["aten::conv1d"] = conv({ 3, 4, 5, none, none, false });
        t["aten::conv2d"] = conv({ 3, 4, 5, none, none, false });
        t["aten::conv3d"] = conv({ 3, 4, 5, none, none, false });
        t["aten::cudnn_convolution"] = conv({ 3, 2, 4, none, none, false });
        t["aten::miopen_convolution"] = conv({ 4, 3, 5, none, none, false });
        t["aten::convolution_backward"] = conv({ 4, 5, 6, 7, 10, true });

        for (const char* n :
            { "aten::add", "aten::sub", "aten::mul", "aten::div", "aten::neg", "aten::exp", "aten::log", "aten::pow",
                "aten::rsqrt", "aten::sqrt", "aten::reciprocal", "aten::sigmoid", "aten::tanh", "aten::silu",
                "aten::gelu", "aten::relu", "aten::abs", "aten::cos", "aten::sin", "aten::clamp", "aten::clamp_min",
                "aten::clamp_max", "aten::where", "aten::masked_fill", "aten::_to_copy", "aten::native_dropout",
                "aten::native_dropout_backward", "aten::addcmul", "aten::addcdiv", "aten::lerp", "aten::maximum",
                "aten::minimum", "aten::eq", "aten::ne", "aten::lt", "aten::gt", "aten::le", "aten::ge", "aten::erf",
                "aten::exp2", "aten::sign", "aten::threshold_backward", "aten::gelu_backward", "aten::silu_backward",
                "aten::sigmoid_backward", "aten::tanh_backward", "aten::clone", "aten::triu", "aten::tril" })
            t[n] = bytesOnly(OpKind::Elementwise, Shape::Elementwise);
        for (const char* n : { "aten::add_", "aten::sub_", "aten::mul_", "aten::div_", "aten::masked_fill_",
                 "aten::relu_", "aten::silu_", "aten::clamp_", "aten::addcmul_", "aten::addcdiv_", "aten::lerp_",
                 "aten::neg_", "aten::exp_", "aten::sqrt_", "aten::pow_" })
            t[n] = bytesOnly(OpKind::Elementwise, Shape::InPlace);
        for (const char* n : { "aten::copy_", "aten::fill_", "aten::zero_" })
            t[n] = bytesOnly(OpKind::Elementwise, Shape::Overwrite);
        for (const char* n : { "aten::mean", "aten::sum", "aten::amax", "aten::amin", "aten::max", "aten::min",
                 "aten::norm", "aten::linalg_vector_norm", "aten::var", "aten::std", "aten::var_mean", "aten::all",
                 "aten::any", "aten::prod" })
            t[n] = bytesOnly(OpKind::Elementwise, Shape::Reduction);
        t["aten::cat"] = bytesOnly(OpKind::Elementwise, Shape::Concat);
        for (const char* n : { "aten::native_layer_norm", "aten::native_layer_norm_backward", "aten::_fused_rms_norm",
                 "aten::_fused_rms_norm_backward", "aten::native_group_norm", "aten::native_group_norm_backward",
                 "aten::native_batch_norm", "aten::native_batch_norm_backward", "aten::cudnn_batch_norm",
                 "aten::cudnn_batch_norm_backward", "aten::miopen_batch_norm", "aten::miopen_batch_norm_backward",
                 "aten::_softmax", "aten::_log_softmax", "aten::_softmax_backward_data",
                 "aten::_log_softmax_backward_data" })
            t[n] = bytesOnly(OpKind::Normalization, Shape::RowWise);
        return t;
    }();
    return table;
}

// A templated GEMM by the operator it replaced: mm, addmm, bmm, baddbmm, _scaled_mm (convolution and FlexAttention
// templates are not matrix products of two recorded buffers).
bool isInductorMatmulTemplate(std::string_view name)
{
    if (name.substr(0, 11) != "triton_tem_")
        return false;
    for (std::string_view op : { "_mm", "addmm", "bmm" })
        if (name.find(op) != std::string_view::npos)
            return true;
    return false;
}

const OpSpec* specOf(std::string_view name)
{
    const auto& t = specs();
    const auto it = t.find(name);
    if (it != t.end())
        return &it->second;
    static const OpSpec inductorMatmul { OpKind::Matmul, Shape::InductorMatmul };
    static const OpSpec inductorKernel { OpKind::Elementwise, Shape::InductorKernel };
    if (isInductorMatmulTemplate(name))
        return &inductorMatmul;
    if (isInductorKernel(name) && name.substr(0, 11) != "triton_tem_")
        return &inductorKernel;
    return nullptr;
}

// ---- shapes ----

double product(std::span<const int64_t> dims, size_t from = 0, size_t to = SIZE_MAX)
{
    double p = 1;
    for (size_t i = from; i < std::min(to, dims.size()); ++i)
        p *= static_cast<double>(dims[i]);
    return p;
}

bool positive(std::span<const int64_t> dims)
{
    return std::all_of(dims.begin(), dims.end(), [](int64_t d) { return d >= 0; });
}

double tensorBytes(const OpArgs& a, size_t i)
{
    const auto s = a.shape(i);
    if (s.empty() && a.type(i) == ScalarType::None)
        return 0;
    return product(s) * bytesPerElement(a.type(i));
}

// A dim of a packed FP4 tensor counts two values per recorded element along its last (contiguous) dim.
double valuesAlongLast(const OpArgs& a, size_t i)
{
    const auto s = a.shape(i);
    return static_cast<double>(s.back()) * (a.type(i) == ScalarType::Float4E2M1x2 ? 2.0 : 1.0);
}

std::optional<NumberFormat> widerFormat(std::optional<NumberFormat> a, std::optional<NumberFormat> b)
{
    if (!a || !b)
        return a ? a : b;
    // Rank by bits: a mixed product runs at the rate of its wider operand (an FP8 x FP4 MMA at the FP8 rate).
    auto bits = [](NumberFormat f) {
        switch (f) {
        case NumberFormat::FP4:
            return 4;
        case NumberFormat::FP8:
            return 8;
        case NumberFormat::BF16:
        case NumberFormat::FP16:
            return 16;
        case NumberFormat::TF32:
            return 19;
        case NumberFormat::FP32:
            return 32;
        }
        return 32;
    };
    return bits(*a) >= bits(*b) ? a : b;
}

void setPrecision(OpWork& w, const OpArgs& a, size_t first, size_t second)
{
    w.precision = widerFormat(numberFormatOf(a.type(first)), numberFormatOf(a.type(second)));
}

bool matmulWork(const OpSpec& spec, const OpArgs& a, OpWork& w)
{
    const size_t ia = spec.shape == Shape::Addmm || spec.shape == Shape::Baddbmm ? 1 : 0;
    const size_t ib = ia + 1;
    const auto A = a.shape(ia);
    const auto B = a.shape(ib);
    if (A.size() < 2 || B.size() < 2 || !positive(A) || !positive(B))
        return false;
    const double k = valuesAlongLast(a, ia);
    double outputElements = 0;
    switch (spec.shape) {
    case Shape::Mm:
    case Shape::Addmm:
    case Shape::ScaledMm: {
        // M: every dim of A but the last (a 3-D input to mm is a batch of rows).
        const double m = product(A, 0, A.size() - 1);
        const double n = static_cast<double>(B.back());
        w.flops = 2 * m * n * k;
        w.gemm = { m, n, k, 1 };
        outputElements = m * n;
        break;
    }
    case Shape::Bmm:
    case Shape::Baddbmm: {
        if (A.size() != 3 || B.size() != 3)
            return false;
        const double batch = static_cast<double>(A[0]);
        w.flops = 2 * batch * static_cast<double>(A[1]) * static_cast<double>(B[2]) * k;
        w.gemm = { static_cast<double>(A[1]), static_cast<double>(B[2]), k, batch };
        outputElements = batch * static_cast<double>(A[1]) * static_cast<double>(B[2]);
        break;
    }
    case Shape::GroupedMm:
    case Shape::ScaledGroupedMm: {
        const double n = static_cast<double>(B.back());
        if (A.size() == 2 && B.size() == 3) { // rows of A split among the groups of B
            w.flops = 2 * static_cast<double>(A[0]) * n * k;
            outputElements = static_cast<double>(A[0]) * n;
        } else if (A.size() == 3 && B.size() == 3) { // G independent products
            w.flops = 2 * static_cast<double>(A[0]) * static_cast<double>(A[1]) * n * k;
            outputElements = static_cast<double>(A[0]) * static_cast<double>(A[1]) * n;
        } else if (A.size() == 2 && B.size() == 2) { // groups along K (a weight gradient): every term once
            w.flops = 2 * static_cast<double>(A[0]) * n * k;
            outputElements = static_cast<double>(A[0]) * n;
        } else if (A.size() == 3 && B.size() == 2) { // groups along N
            w.flops = 2 * static_cast<double>(A[1]) * n * k;
            outputElements = static_cast<double>(A[1]) * n;
        } else {
            return false;
        }
        break;
    }
    default:
        return false;
    }
    setPrecision(w, a, ia, ib);
    // The output is written in the inputs' 16-bit type, or BF16 for the FP8/FP4 products (their usual out_dtype).
    const double outBytes = w.precision == NumberFormat::FP32 ? 4.0 : 2.0;
    w.bytes = tensorBytes(a, ia) + tensorBytes(a, ib) + outputElements * outBytes;
    if (spec.shape == Shape::Addmm || spec.shape == Shape::Baddbmm)
        w.bytes += tensorBytes(a, 0);
    if (spec.shape == Shape::ScaledMm || spec.shape == Shape::ScaledGroupedMm) {
        w.bytes += tensorBytes(a, 2) + tensorBytes(a, 3);
        w.microscaled = a.type(2) == ScalarType::Float8E8M0 || a.shape(2).size() >= 2
            || (a.type(2) != ScalarType::Float && a.type(2) != ScalarType::None && a.type(2) != ScalarType::Unknown);
    }
    return true;
}

// The tensor buffers of an Inductor kernel: every recorded input with a shape and a type.
std::vector<size_t> inductorBuffers(const OpArgs& a)
{
    std::vector<size_t> buffers;
    for (size_t i = 0; i < a.inputs(); ++i)
        if (a.type(i) != ScalarType::None && a.type(i) != ScalarType::TensorList && bytesPerElement(a.type(i)) > 0
            && positive(a.shape(i)))
            buffers.push_back(i);
    return buffers;
}

// The kernel's iteration space: its trailing integer scalars (xnumel; ynumel and xnumel of a tiled pointwise kernel;
// xnumel and r0_numel of a reduction), at most two; 0 when it recorded none.
double inductorIterations(const OpArgs& a)
{
    double iterations = 0;
    int taken = 0;
    for (size_t i = a.inputs(); i-- > 0 && taken < 2;) {
        if (a.type(i) != ScalarType::None)
            break;
        const std::string_view text = a.concreteText(i);
        int64_t value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error != std::errc() || end != text.data() + text.size() || value <= 0)
            break;
        iterations = (taken == 0 ? 1.0 : iterations) * static_cast<double>(value);
        ++taken;
    }
    return iterations;
}

// Each buffer read or written once (an in-out buffer once: a lower bound, what an ideal kernel moves), but no more of
// it than one element per point of the iteration space: a kernel that gathers rows (an embedding) or one logit per
// row (nll_loss) touches a fraction of a large buffer. One FLOP per point, as for the elementwise operators fused.
bool inductorKernelWork(const OpArgs& a, OpWork& w)
{
    const auto buffers = inductorBuffers(a);
    if (buffers.empty())
        return false;
    const double iterations = inductorIterations(a);
    double largest = 0;
    for (size_t i : buffers) {
        const double elements = product(a.shape(i));
        const double touched = iterations > 0 ? std::min(elements, iterations) : elements;
        w.bytes += touched * bytesPerElement(a.type(i));
        largest = std::max(largest, touched);
    }
    w.flops = iterations > 0 ? iterations : largest;
    return w.bytes > 0;
}

// A templated GEMM's A [M, K] and B [K, N] (or [b, M, K] and [b, K, N]), taken in argument order where a third
// buffer has the product's shape: 2 M N K (times b). Every buffer is moved once (a bias, an epilogue's inputs).
bool inductorMatmulWork(const OpArgs& a, OpWork& w)
{
    const auto buffers = inductorBuffers(a);
    auto productShape = [&](size_t ia, size_t ib) -> std::vector<int64_t> {
        const auto A = a.shape(ia);
        const auto B = a.shape(ib);
        if (A.size() == 2 && B.size() == 2 && A[1] == B[0])
            return { A[0], B[1] };
        if (A.size() == 3 && B.size() == 3 && A[0] == B[0] && A[2] == B[1])
            return { A[0], A[1], B[2] };
        return {};
    };
    for (size_t x = 0; x + 1 < buffers.size(); ++x) {
        const auto out = productShape(buffers[x], buffers[x + 1]);
        if (out.empty())
            continue;
        const bool written = std::any_of(buffers.begin(), buffers.end(), [&](size_t i) {
            const auto s = a.shape(i);
            return i != buffers[x] && i != buffers[x + 1] && std::equal(s.begin(), s.end(), out.begin(), out.end());
        });
        if (!written)
            continue;
        const auto A = a.shape(buffers[x]);
        w.flops = 2 * product(out) * static_cast<double>(A.back());
        const bool batched = out.size() == 3;
        w.gemm = { static_cast<double>(out[batched ? 1 : 0]), static_cast<double>(out.back()),
            static_cast<double>(A.back()), batched ? static_cast<double>(out[0]) : 1.0 };
        for (size_t i : buffers)
            w.bytes += tensorBytes(a, i);
        setPrecision(w, a, buffers[x], buffers[x + 1]);
        return true;
    }
    return false;
}

bool isTrue(std::string_view text)
{
    return text == "True" || text == "true" || text == "1";
}

bool attentionWork(const OpSpec& spec, const OpArgs& a, OpWork& w)
{
    const AttentionSpec& s = spec.attention;
    const auto q = a.shape(s.q);
    const auto k = a.shape(s.q + 1u);
    const auto v = a.shape(s.q + 2u);
    // Variable-length (packed) attention has 3-D inputs and its sequence lengths live in tensors the profiler
    // does not record: not countable.
    if (q.size() != 4 || k.size() != 4 || v.size() != 4 || !positive(q) || !positive(k) || !positive(v))
        return false;
    const bool bhsd = s.layout == Layout::Bhsd;
    const double batch = static_cast<double>(q[0]);
    const double heads = static_cast<double>(bhsd ? q[1] : q[2]);
    const double sq = static_cast<double>(bhsd ? q[2] : q[1]);
    const double sk = static_cast<double>(bhsd ? k[2] : k[1]);
    const double dqk = static_cast<double>(q[3]);
    const double dv = static_cast<double>(v[3]);
    const std::string_view flag = a.concreteText(s.causal);
    w.causal = s.flag == CausalFlag::Bool ? isTrue(flag) : (flag == "1" || flag == "2");
    // One product of [Sq, D] by [D, Sk] (or back) per head: 2·Sq·Sk·D, half of it under a causal mask.
    const double perDim = 2 * batch * heads * sq * sk * (w.causal ? 0.5 : 1.0);
    w.backward = s.backward;
    // Forward: Q·Kᵀ and P·V. Backward (Dao, "FlashAttention-2", 2023, section 3.1.2): dV = Pᵀ·dO and dP = dO·Vᵀ over
    // the values' width, dQ = dS·K and dK = dSᵀ·Q over the keys', and Q·Kᵀ again to rebuild P: 2.5x the forward when
    // both widths agree. The model's backward is the four gradients, twice the forward; the fifth is recomputed.
    w.flops = s.backward ? perDim * (3 * dqk + 2 * dv) : perDim * (dqk + dv);
    w.recomputedFlops = s.backward ? perDim * dqk : 0.0;
    w.attention = { batch, heads, sq, sk, dqk, dv };
    const double qkv = tensorBytes(a, s.q) + tensorBytes(a, s.q + 1u) + tensorBytes(a, s.q + 2u);
    const double out = product(q, 0, 3) * dv * bytesPerElement(a.type(s.q));
    // Forward reads Q, K, V and writes O; backward reads them, O and dO, and writes dQ, dK, dV.
    w.bytes = s.backward ? 2 * qkv + 2 * out : qkv + out;
    setPrecision(w, a, s.q, s.q + 1u);
    return true;
}

// "[1, 2]" or "1" -> the integers; empty when the text holds none.
std::vector<int64_t> integerList(std::string_view text)
{
    std::vector<int64_t> out;
    size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && text[i] != '-' && (text[i] < '0' || text[i] > '9'))
            ++i;
        if (i >= text.size())
            break;
        int64_t v = 0;
        const auto [ptr, ec] = std::from_chars(text.data() + i, text.data() + text.size(), v);
        if (ec != std::errc())
            break;
        out.push_back(v);
        i = static_cast<size_t>(ptr - text.data());
    }
    return out;
}

// "[True, False]" -> {true, false}.
std::vector<bool> boolList(std::string_view text)
{
    std::vector<bool> out;
    size_t i = 0;
    while (i < text.size()) {
        const size_t end = std::min(text.find(',', i), text.size());
        const std::string_view item = text.substr(i, end - i);
        if (item.find("True") != std::string_view::npos || item.find("true") != std::string_view::npos)
            out.push_back(true);
        else if (item.find("False") != std::string_view::npos || item.find("false") != std::string_view::npos)
            out.push_back(false);
        i = end + 1;
    }
    return out;
}

int64_t listValue(const std::vector<int64_t>& list, size_t i, int64_t fallback)
{
    if (list.empty())
        return fallback;
    return i < list.size() ? list[i] : list.back();
}

bool convolutionWork(const OpSpec& spec, const OpArgs& a, OpWork& w)
{
    const ConvSpec& c = spec.conv;
    // Forward: (input, weight, ...); backward: (grad_output, input, weight, ...).
    const size_t in = c.backward ? 1 : 0;
    const auto x = a.shape(in);
    const auto weight = a.shape(in + 1);
    if (x.size() < 3 || weight.size() != x.size() || !positive(x) || !positive(weight))
        return false;
    const size_t spatial = x.size() - 2;
    const bool transposed = c.transposed != 255 && isTrue(a.concreteText(c.transposed));
    // Groups need no argument: the weight's shape already holds C_in/groups per output channel.
    const double kernelPositions = product(weight, 2);
    double positions = 1; // output positions for a convolution, input positions for a transposed one
    if (transposed) {
        positions = product(x, 2);
    } else if (c.backward) {
        const auto gradOut = a.shape(0);
        if (gradOut.size() != x.size())
            return false;
        positions = product(gradOut, 2);
    } else {
        const std::string_view paddingText = a.concreteText(c.padding);
        const auto stride = integerList(a.concreteText(c.stride));
        const auto padding = integerList(paddingText);
        const auto dilation = integerList(a.concreteText(c.dilation));
        for (size_t d = 0; d < spatial; ++d) {
            const int64_t k = weight[2 + d];
            const int64_t dil = listValue(dilation, d, 1);
            const int64_t s = std::max<int64_t>(1, listValue(stride, d, 1));
            int64_t p = listValue(padding, d, 0);
            if (paddingText == "same")
                p = dil * (k - 1) / 2;
            const int64_t out = (x[2 + d] + 2 * p - dil * (k - 1) - 1) / s + 1;
            if (out <= 0)
                return false;
            positions *= static_cast<double>(out);
        }
    }
    const double batch = static_cast<double>(x[0]);
    // Weight [C_out, C_in/groups, k...]; a transposed convolution's weight is [C_in, C_out/groups, k...].
    const double macsPerPosition = transposed ? static_cast<double>(weight[1]) * static_cast<double>(x[1])
                                              : static_cast<double>(weight[0]) * static_cast<double>(weight[1]);
    const double forward = 2 * batch * positions * macsPerPosition * kernelPositions;
    double passes = 1;
    if (c.backward) {
        // output_mask "[True, True, False]": input gradient, weight gradient, bias gradient.
        const auto mask = boolList(a.concreteText(c.outputMask));
        passes = mask.size() >= 2 ? (mask[0] ? 1 : 0) + (mask[1] ? 1 : 0) : 2;
        w.backward = true;
    }
    w.flops = forward * passes;
    w.bytes = tensorBytes(a, in) + tensorBytes(a, in + 1)
        + (c.backward ? tensorBytes(a, 0) * 2
                      : batch * positions * static_cast<double>(weight[0]) * bytesPerElement(a.type(in)));
    setPrecision(w, a, in, in + 1);
    return true;
}

bool bytesWork(const OpSpec& spec, const OpArgs& a, OpWork& w)
{
    double read = 0;
    double largest = 0;
    double firstElements = -1;
    double firstSize = 0;
    double listElements = 0;
    double firstRead = 0; // what reading the first tensor input costs: not paid by an op that only writes it
    for (size_t i = 0; i < a.inputs(); ++i) {
        const ScalarType t = a.type(i);
        if (t == ScalarType::None)
            continue;
        const auto s = a.shape(i);
        const double elements = product(s);
        if (t == ScalarType::TensorList) {
            if (s.empty()) // the profiler recorded the list as [] (HTA's recommender traces' aten::cat): unknown
                return false;
            listElements += elements;
            read += elements * 2; // the list's element type is not recorded: 16-bit assumed
            continue;
        }
        read += elements * bytesPerElement(t);
        largest = std::max(largest, elements);
        if (firstElements < 0) {
            firstElements = elements;
            firstSize = bytesPerElement(t);
            firstRead = elements * firstSize;
        }
    }
    if (firstElements < 0 && listElements == 0)
        return false;
    double written = 0;
    double elementsOut = 0;
    switch (spec.shape) {
    case Shape::Elementwise:
        elementsOut = largest;
        written = largest * firstSize;
        break;
    case Shape::InPlace:
    case Shape::RowWise:
        elementsOut = std::max(0.0, firstElements);
        written = elementsOut * firstSize;
        break;
    case Shape::Overwrite:
        elementsOut = std::max(0.0, firstElements);
        written = elementsOut * firstSize;
        read -= firstRead;
        break;
    case Shape::Reduction:
        elementsOut = std::max(0.0, firstElements);
        break;
    case Shape::Concat:
        elementsOut = listElements;
        written = listElements * 2;
        break;
    default:
        return false;
    }
    w.bytes = read + written;
    w.flops = elementsOut;
    return true;
}

} // namespace

ScalarType scalarTypeFromName(std::string_view name)
{
    for (const auto& t : kTypeNames)
        if (t.name == name)
            return t.type;
    return ScalarType::Unknown;
}

double bytesPerElement(ScalarType t)
{
    switch (t) {
    case ScalarType::None:
    case ScalarType::Unknown:
    case ScalarType::TensorList:
        return 0;
    case ScalarType::Bool:
    case ScalarType::Int8:
    case ScalarType::UInt8:
    case ScalarType::Float8E4M3:
    case ScalarType::Float8E5M2:
    case ScalarType::Float8E8M0:
    case ScalarType::Float4E2M1x2:
        return 1;
    case ScalarType::Int16:
    case ScalarType::Half:
    case ScalarType::BFloat16:
        return 2;
    case ScalarType::Int32:
    case ScalarType::Float:
        return 4;
    case ScalarType::Int64:
    case ScalarType::Double:
    case ScalarType::ComplexFloat:
        return 8;
    case ScalarType::ComplexDouble:
        return 16;
    }
    return 0;
}

bool isFloat8(ScalarType t)
{
    return t == ScalarType::Float8E4M3 || t == ScalarType::Float8E5M2;
}

std::optional<NumberFormat> numberFormatOf(ScalarType t)
{
    switch (t) {
    case ScalarType::BFloat16:
        return NumberFormat::BF16;
    case ScalarType::Half:
        return NumberFormat::FP16;
    case ScalarType::Float:
    case ScalarType::Double:
        return NumberFormat::FP32;
    case ScalarType::Float8E4M3:
    case ScalarType::Float8E5M2:
        return NumberFormat::FP8;
    case ScalarType::Float4E2M1x2:
        return NumberFormat::FP4;
    default:
        return std::nullopt;
    }
}

std::string_view opKindKey(OpKind k)
{
    switch (k) {
    case OpKind::None:
        return "none";
    case OpKind::Matmul:
        return "matmul";
    case OpKind::GroupedGemm:
        return "grouped_gemm";
    case OpKind::Attention:
        return "attention";
    case OpKind::Convolution:
        return "convolution";
    case OpKind::Elementwise:
        return "elementwise";
    case OpKind::Normalization:
        return "normalization";
    }
    return "none";
}

bool isModelWork(OpKind k)
{
    return k == OpKind::Matmul || k == OpKind::GroupedGemm || k == OpKind::Attention || k == OpKind::Convolution;
}

OpKind opKindOf(std::string_view name)
{
    const OpSpec* spec = specOf(name);
    return spec ? spec->kind : OpKind::None;
}

bool needsConcreteInputs(OpKind kind)
{
    return kind == OpKind::Attention || kind == OpKind::Convolution;
}

bool isInductorKernel(std::string_view name)
{
    // "triton_" and three lower-case letters, then '_'.
    return name.size() > 11 && name.substr(0, 7) == "triton_" && name[10] == '_'
        && std::all_of(name.begin() + 7, name.begin() + 10, [](char c) { return c >= 'a' && c <= 'z'; });
}

OpWork opWork(std::string_view name, const OpArgs& args)
{
    OpWork w;
    const OpSpec* spec = specOf(name);
    if (!spec)
        return w;
    w.kind = spec->kind;
    if (!args.hasDims)
        return w;
    switch (spec->kind) {
    case OpKind::Matmul:
    case OpKind::GroupedGemm:
        w.known = spec->shape == Shape::InductorMatmul ? inductorMatmulWork(args, w) : matmulWork(*spec, args, w);
        break;
    case OpKind::Attention:
        w.known = attentionWork(*spec, args, w);
        break;
    case OpKind::Convolution:
        w.known = convolutionWork(*spec, args, w);
        break;
    case OpKind::Elementwise:
    case OpKind::Normalization:
        w.known = spec->shape == Shape::InductorKernel ? inductorKernelWork(args, w) : bytesWork(*spec, args, w);
        break;
    case OpKind::None:
        break;
    }
    if (w.known && !(std::isfinite(w.flops) && w.bytes >= 0 && w.bytes <= kLargestOperatorBytes)) {
        w.known = false;
        w.impossible = true;
    }
    if (!w.known) {
        w.flops = 0;
        w.recomputedFlops = 0;
        w.bytes = 0;
    }
    return w;
}

} // namespace mfu::trace
