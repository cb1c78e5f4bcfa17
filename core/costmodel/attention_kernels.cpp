#include "core/costmodel/attention_kernels.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "core/text.h"

namespace mfu {

namespace {

// Speed of a kernel relative to the family's best one (the constants), forward and backward alike.
// - FlashAttention 1 vs 2: "FlashAttention-2 ... around 2x speedup compared to FlashAttention" (Dao 2023, abstract;
//   FA1 at 25-40% of the A100 peak, FA2 at 50-73%).
// - FlashAttention 2 on Hopper: 35% utilisation against FlashAttention 3's 75% forward, 1.5-2.0x slower (Shah et
//   al. 2024, FlashAttention-3, abstract and section 4.1): 0.57. Blackwell runs FA2 on the same pre-Hopper MMA
//   instructions; assumed as on Hopper.
// - cuDNN SDPA on Hopper: within ~5% of FlashAttention 3 at head dim 128 (Shah et al. 2024, figure 5).
double kernelRatio(AttentionKernel k, AcceleratorFamily f)
{
    const bool newMma = f == AcceleratorFamily::Hopper || f == AcceleratorFamily::Blackwell;
    switch (k) {
    case AttentionKernel::FlashAttention1:
        return 0.5 * (newMma ? 0.57 : 1.0);
    case AttentionKernel::FlashAttention2:
        return newMma ? 0.57 : 1.0;
    case AttentionKernel::Cudnn:
        return f == AcceleratorFamily::Hopper ? 0.95 : 1.0;
    default:
        return 1.0;
    }
}
} // namespace

AcceleratorFamily acceleratorFamilyOf(const HardwareSpec& hardware)
{
    const std::string id = asciiLowered(hardware.id);
    const std::string vendor = asciiLowered(hardware.vendor);
    if (vendor.find("amd") != std::string::npos || startsWithAny(id, { "mi" }))
        return AcceleratorFamily::Amd;
    if (vendor.find("google") != std::string::npos || startsWithAny(id, { "tpu" }))
        return AcceleratorFamily::Tpu;
    if (startsWithAny(id, { "a100", "a800", "a10", "a30", "a40" }))
        return AcceleratorFamily::Ampere;
    if (startsWithAny(id, { "h100", "h200", "h800", "h20", "gh200" }))
        return AcceleratorFamily::Hopper;
    if (startsWithAny(id, { "b200", "b300", "gb200", "gb300" }))
        return AcceleratorFamily::Blackwell;
    return AcceleratorFamily::Other;
}

AttentionKernel resolveAttentionKernel(AttentionKernel requested, AcceleratorFamily family)
{
    if (requested != AttentionKernel::Auto)
        return requested;
    switch (family) {
    case AcceleratorFamily::Hopper:
        return AttentionKernel::FlashAttention3;
    case AcceleratorFamily::Blackwell:
        return AttentionKernel::Cudnn;
    default:
        return AttentionKernel::FlashAttention2;
    }
}

const char* attentionKernelUnavailable(AttentionKernel requested, AcceleratorFamily family)
{
    if (requested == AttentionKernel::FlashAttention3 && family != AcceleratorFamily::Hopper)
        return "FlashAttention 3 runs on Hopper GPUs only";
    if (requested == AttentionKernel::Cudnn && family != AcceleratorFamily::Ampere
        && family != AcceleratorFamily::Hopper && family != AcceleratorFamily::Blackwell)
        return "cuDNN attention is modelled on NVIDIA's Ampere, Hopper and Blackwell data-centre GPUs only";
    return nullptr;
}

AttentionEfficiency attentionEfficiency(
    const CostModelConstants& c, AttentionKernel resolved, AcceleratorFamily family, double headDim, double chunkSeq)
{
    AttentionEfficiency e;
    if (resolved == AttentionKernel::Unfused) {
        e.unfused = true;
        return e;
    }
    // Tiles of 64-128 rows: a kernel over a short chunk spends more of its time in the causal diagonal blocks and
    // the prologue; the FlashAttention 2 and 3 benchmark curves (causal, head dim 128) rise from ~60% of their
    // plateau at 512 tokens to within 3% of it at 8k: s / (s + attentionHalfSaturationSeq).
    const double seqFactor = chunkSeq / (chunkSeq + c.attentionHalfSaturationSeq);
    // Head dimension: 64-dim heads reach ~85% of 128-dim throughput, 256-dim slightly more (FlashAttention 2 and 3
    // benchmark figures): d / (d + 32), normalised at 128.
    const double headFactor = std::min(1.05, (headDim / (headDim + 32.0)) / (128.0 / 160.0));
    const double k = kernelRatio(resolved, family) * seqFactor * headFactor;
    e.forward = std::min(1.0, c.attentionForwardEfficiency * k);
    e.backward = std::min(1.0, c.attentionBackwardEfficiency * k);
    return e;
}

} // namespace mfu
