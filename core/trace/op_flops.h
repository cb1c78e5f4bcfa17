#pragma once
// FLOPs and bytes of one recorded operator, from the shapes and types the profiler recorded for it (OpArgs).
//
//   matmul       aten::mm, aten::addmm, aten::bmm, aten::baddbmm, aten::_scaled_mm: 2·M·N·K, times the batch for
//                bmm and baddbmm (a multiply and an add per term of each output's dot product). FP4 tensors hold
//                two values per recorded element, so a packed K counts twice.
//   grouped GEMM aten::_grouped_mm, aten::_scaled_grouped_mm: 2·K·N per row of a 2-D A against a 3-D B (each row
//                meets one group's matrix), 2·G·M·N·K for 3-D x 3-D, 2·M·N·K_total for 2-D x 2-D (the weight
//                gradient, groups along K).
//   attention    scaled dot-product attention and its flash, memory-efficient and cuDNN kernels (PyTorch's
//                aten::_scaled_dot_product_* and aten::_flash_attention_* / _efficient_attention_*, the
//                flash_attn package's flash_attn::_flash_attn_*): forward 2·B·H·Sq·Sk·(Dqk + Dv) (Q·Kᵀ and P·V),
//                halved when the op says it is causal; backward 2.5 times the forward (five matrix products
//                against two: Dao, "FlashAttention-2", 2023, section 3.2). H is the query's heads (GQA's shared
//                K/V heads do not change the work).
//   convolution  2·N·C_out·(output positions)·(C_in/groups)·(kernel positions), the output size from the input,
//                stride, padding and dilation; the backward 2x the forward (input and weight gradients) unless
//                its output mask says fewer; transposed convolutions count from their input positions.
//   elementwise, normalisation, softmax
//                bytes only matter: every tensor input read once, the output written once (broadcast of the
//                inputs; the first input for normalisation, softmax and in-place ops; nothing for a reduction;
//                copy_, fill_ and zero_ write their first input without reading it); counted at one FLOP per
//                output element so that they can stand on a roofline. Their FLOPs are never model FLOPs (trace
//                MFU leaves them out).
//   Inductor     torch.compile's Triton kernels, recorded as operators named after the kernel with their buffer
//                arguments' shapes: triton_poi/red/per/for_* move each buffer once, at one FLOP per element of the
//                largest (elementwise, never model FLOPs); a templated GEMM (triton_tem_fused_mm, addmm, bmm) is
//                matrix work, 2·M·N·K from the A [M, K] and B [K, N] buffers beside one of the product's shape.
// Bytes of matrix work: both operands read and the output written once, what an ideal kernel moves.
#include <optional>
#include <string_view>

#include "core/model/precision.h"
#include "core/trace/op_args.h"

namespace mfu::trace {

enum class OpKind : uint8_t { None, Matmul, GroupedGemm, Attention, Convolution, Elementwise, Normalization };
inline constexpr int kOpKindCount = static_cast<int>(OpKind::Normalization) + 1;

std::string_view opKindKey(OpKind k); // "none", "matmul", "grouped_gemm", "attention", "convolution", ...
// Matrix work whose FLOPs the model counts: matmul, grouped GEMM, attention, convolution.
bool isModelWork(OpKind k);

// The family of an operator by its name; None for every operator this file does not count (views, allocations,
// wrappers such as aten::linear and aten::matmul, whose work is counted through the operators they call).
OpKind opKindOf(std::string_view name);
// Whether the FLOP count needs `Concrete Inputs` (the causal flag of attention, a convolution's stride).
bool needsConcreteInputs(OpKind kind);
// A torch.compile (Inductor) Triton kernel recorded as an operator: triton_poi_, triton_red_, triton_per_,
// triton_for_, triton_tem_... Its `Concrete Inputs` hold its iteration space (xnumel, r0_numel), which bounds the
// bytes it can touch.
bool isInductorKernel(std::string_view name);

// The dimensions of one matrix product C[M, N] = A[M, K] x B[K, N], as the kernel ran it (an mm's 3-D A folded into
// M; a bmm's batch beside). What calibration bins GEMM efficiency by (core/calibration/gemm_shapes.h).
struct GemmDims {
    double m = 0, n = 0, k = 0;
    double batch = 1;
    bool known() const { return m > 0 && n > 0 && k > 0; }
};

// The dimensions of one attention call: query [batch, heads, seqQ, headDimQk] against keys [.., seqK, ..] and values
// of headDimV. What calibration bins attention by (core/calibration/attention_shapes.h).
struct AttentionDims {
    double batch = 0, heads = 0, seqQ = 0, seqK = 0, headDimQk = 0, headDimV = 0;
    bool known() const { return batch > 0 && heads > 0 && seqQ > 0 && seqK > 0 && headDimQk > 0 && headDimV > 0; }
};

// More bytes than one operator can touch: ten terabytes, 35 times the largest accelerator memory of 2026 (AMD
// MI355X, 288 GB) and more than a host's. An operator whose recorded inputs and output add up to more ran on other
// shapes than those recorded (a logger's overflow, a corrupted or hand-edited trace), and its FLOPs are not counted.
inline constexpr double kLargestOperatorBytes = 1e13;

struct OpWork {
    OpKind kind = OpKind::None;
    bool known = false; // shapes recorded and readable: flops and bytes hold
    bool impossible = false; // shapes recorded, but of tensors no device could hold (kLargestOperatorBytes): not known
    double flops = 0; // what the kernels execute
    // Of flops, the work a kernel repeats that the model does not need: a fused attention backward computes Q·Kᵀ
    // again, since its forward kept no probabilities. Rematerialisation: hardware FLOPs, not model FLOPs (MFU leaves
    // it out; Chowdhery et al., "PaLM: Scaling Language Modeling with Pathways", 2022, appendix B).
    double recomputedFlops = 0;
    double modelFlops() const { return flops - recomputedFlops; }
    double bytes = 0;
    std::optional<NumberFormat> precision; // of the matrix inputs (FP32 for float, FP16, BF16, FP8, FP4)
    bool microscaled = false; // MX / NV block-scaled inputs (E8M0 or FP8 scales of an FP4/FP8 product)
    bool backward = false;
    bool causal = false;
    GemmDims gemm; // matmul (mm, addmm, bmm, baddbmm, _scaled_mm, Inductor templates) only
    AttentionDims attention; // attention only
};

OpWork opWork(std::string_view name, const OpArgs& args);

// The number format of a matrix input, nullopt for integer and non-tensor inputs.
std::optional<NumberFormat> numberFormatOf(ScalarType t);

} // namespace mfu::trace
