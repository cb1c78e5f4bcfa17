#pragma once
// Which attention implementation a trace ran, so that Predict can model the kernel the user's code actually runs.
//
// From the kernels' names first (each library names its kernels its own way):
//   cuDNN       cudnn_generated_fort_native_sdpa_sm90_flash_fprop/bprop_..., and the backward's helpers
//               cudnn::fusion::compute_dot_do_o_... and cudnn::fusion::convert_dq_to_16bits (PyTorch's
//               SDPBackend.CUDNN_ATTENTION);
//   FlashAttention 3  flash::FlashAttnFwdSm90 / FlashAttnBwdSm90 and their pre/post-processing kernels
//               (Dao-AILab/flash-attention's hopper/ build);
//   FlashAttention 2  flash_fwd_kernel, flash_fwd_splitkv_kernel, flash_bwd_dq_dk_dv_loop_..., flash_bwd_dot_do_o_...
//               (the flash-attn package and PyTorch's SDPBackend.FLASH_ATTENTION, pytorch_flash::);
//   memory-efficient  fmha_cutlassF/B_... (PyTorchMemEffAttention::AttentionKernel, xFormers' CUTLASS kernels);
//   math        no fused kernel: the batched GEMMs and softmax launched under aten::_scaled_dot_product_attention_math.
// Then from the CPU operators where no kernel says (aten::_scaled_dot_product_cudnn_attention,
// aten::_flash_attention_forward, aten::_efficient_attention_forward, flash_attn::_flash_attn_forward,
// flash_attn_3::..., aten::_scaled_dot_product_attention_math).
#include <cstdint>
#include <optional>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "core/scenario/scenario.h"
#include "core/trace/timeline.h"

namespace mfu::trace {

enum class AttentionImplementation : uint8_t { Cudnn, Flash2, Flash3, Efficient, Math };

std::string_view attentionImplementationKey(
    AttentionImplementation a); // "cudnn", "flash2", "flash3", "efficient", "math"
std::string_view attentionImplementationLabel(AttentionImplementation a); // "cuDNN SDPA", "FlashAttention 3", ...
std::optional<AttentionImplementation> attentionImplementationFromKey(std::string_view key);

struct DetectedAttention {
    AttentionImplementation implementation = AttentionImplementation::Cudnn;
    // Of the attention time (attention kernels, and the kernels math attention launched), the share that ran on
    // this implementation's kernels; nullopt when only the CPU operators named it (no kernel of it was recorded).
    std::optional<double> shareOfAttentionTime;
};

// The implementation a kernel of that name belongs to, nullopt for any other kernel.
std::optional<AttentionImplementation> attentionImplementationOfKernel(std::string_view kernelName);
// The implementation a CPU operator of that name dispatches to, nullopt for any other operator.
std::optional<AttentionImplementation> attentionImplementationOfOperator(std::string_view opName);

// The implementation with the most attention time in the trace (needs the activities classified,
// classifyActivities); nullopt when the trace shows no attention.
std::optional<DetectedAttention> detectAttentionImplementation(const Timeline& timeline);

// The cost model's kernel for what the trace ran: cuDNN, FlashAttention 2 and 3 as themselves, math attention as the
// unfused kernel (the scores materialised in HBM). nullopt for memory-efficient attention, which no cost-model kernel
// describes (Predict keeps its own setting).
std::optional<AttentionKernel> attentionKernelFor(AttentionImplementation implementation);

// `attention_implementation` (the key, or null) and `attention_implementation_share` (or null) into a rank's JSON.
void addAttentionImplementationJson(nlohmann::json& rank, const std::optional<DetectedAttention>& detected);

} // namespace mfu::trace
