#pragma once
// Attention-kernel efficiency: which kernel a scenario runs (AttentionKernel::Auto picks the best one the GPU has)
// and how fast it runs at the scenario's head dimension and sequence chunk, relative to the generation's constants
// (CostModelConstants::attentionForward/BackwardEfficiency describe the best kernel at head dim 128, long sequences).
// Figures and sources: docs/cost-model.md, "Attention kernels".
#include "core/costmodel/constants.h"
#include "core/model/hardware_spec.h"
#include "core/scenario/scenario.h"

namespace mfu {

enum class AcceleratorFamily { Ampere, Hopper, Blackwell, Amd, Tpu, Other };
AcceleratorFamily acceleratorFamilyOf(const HardwareSpec& hardware);

// Auto resolves to FlashAttention 3 on Hopper, cuDNN SDPA on Blackwell, FlashAttention 2 elsewhere.
AttentionKernel resolveAttentionKernel(AttentionKernel requested, AcceleratorFamily family);
// nullptr when the kernel runs on this family, else why not ("FlashAttention 3 needs a Hopper GPU").
const char* attentionKernelUnavailable(AttentionKernel requested, AcceleratorFamily family);

struct AttentionEfficiency {
    double forward = 0; // achieved fraction of the BF16 peak on the executed (causal) forward FLOPs
    double backward = 0; // against twice the forward FLOPs
    bool unfused = false; // scores materialised: full square at GEMM speed plus softmax traffic (see below)
};

// headDim: query/key head dimension; chunkSeq: keys a query block attends over in one kernel call (seq / cp).
AttentionEfficiency attentionEfficiency(
    const CostModelConstants& c, AttentionKernel resolved, AcceleratorFamily family, double headDim, double chunkSeq);

} // namespace mfu
