#pragma once
// Activation memory per transformer layer, after Korthikanti et al. 2022 ("Reducing Activation Recomputation in
// Large Transformer Models"), generalised from GPT (MHA, 4h GELU FFN, dropout) to GQA, SwiGLU, flash attention and
// no dropout. 16-bit activations; bytes per token of one layer (multiply by tokens per GPU):
//   attention block: QKV input 2h + Q 2(a dqk) + K 2(kv dqk) + V 2(kv dv) + out-proj input 2(a dv) [+ dropout mask h]
//                    [+ an output gate and the gated product 4(a dv)]
//                    + score terms: 5 a s with dropout (softmax 2, mask 1, dropout out 2), 2 a s without, 0 with flash
//                    attention (which keeps only the log-sum-exp, 4a bytes)
//   MLP block:       input 2h + GELU: 2F in + 2F out | SwiGLU: 2F gate + 2F up + 2F product [+ dropout mask h]
//   norms:           2h each, two per layer
// A hybrid model's layers differ: a Nemotron-H block holds one sublayer (a Mamba-2 mixer, attention, an MLP or a MoE
// alone), a Qwen3.5 layer a Gated DeltaNet or attention beside its MLP. The norm terms count per sublayer, the
// attention's per attending layer, a recurrence's own saved tensors (core/model/chunked_scans.h) per recurrent layer,
// all averaged over the layers.
// For GPT this is 34h + 5as per token: the paper's s b h (34 + 5 a s / h). With TP t and sequence parallelism every
// term is divided by t; without SP the 10h of norms, block inputs and dropout masks stay whole (the paper's
// 10 + 24/t). Context parallelism divides the tokens each GPU holds. Checkpointing keeps:
//   AttentionCore (the paper's selective)  everything but the score terms
//   OpLevel (TorchTitan's selective, op-level SAC)  the layer input, the attention output and a fraction of matmul
//                                                   outputs; the rest is recomputed
//   Full                                    the layer input only (2h, split by t under SP)
// Compiled graphs (torch.compile's min-cut partitioner) do not save pointwise outputs that are cheap to recompute:
// the norm outputs (QKV and MLP inputs, 4h) and the SwiGLU product / GELU output (2F) are rebuilt in backward.
// The counts above are those of fused norm and SwiGLU kernels (Liger Kernel's, or compiled). PyTorch's eager ops save
// more (unfusedPointwise): an RMSNorm computed in FP32 keeps its FP32 input (4h) and its normalised BF16 output (2h)
// instead of its input (2h), +4h per norm; SiLU(gate) x up keeps the SiLU output for the multiply, +2F.
#include "core/model/flops.h"

namespace mfu {

struct LayerShape {
    double hidden = 0;
    double heads = 0;
    double kvHeads = 0;
    double qkHeadDim = 0;
    double vHeadDim = 0;
    double ffnDim = 0; // width of the FFN intermediate a token passes through (MoE: top-k x expert width + shared)
    bool gatedFfn = true; // SwiGLU (3 matrices) vs GELU (2)
    bool dropout = false;
    bool flashAttention = true;
    // Multi-head latent attention: bytes/2 per token of the compressed query and key-value latents (q_lora_rank +
    // kv_lora_rank + rope dim). When set, the layer keeps these instead of Q, K and V and recomputes the
    // up-projections in backward (DeepSeek-V3 technical report, section 3.2.3).
    double latentQkvWidth = 0;
    // MoE: the part of ffnDim that routed experts make up (top-k x expert width, averaged over layers), and the part
    // of dense layers' MLPs; the rest of ffnDim is shared experts.
    double routedFfnDim = 0;
    double denseMlpFfnDim = 0;
    // Sublayers (a token mixer, a channel mixer) per layer, averaged over layers: 2 in a transformer layer, 1 in a
    // Nemotron-H block (a Mamba-2 mixer, attention, an MLP or a MoE alone) or a Nemotron-NAS layer without attention.
    // Each sublayer has its own norm and residual add (and keeps their inputs for backward), and under TP its own
    // all-gather and reduce-scatter.
    double sublayersPerLayer = 2.0;
    // Share of layers with softmax attention: those that keep queries, keys, values and the attention's output for
    // backward, and whose keys and values context parallelism exchanges (recurrent mixers pass a small state instead,
    // and MLP blocks nothing).
    double keyValueLayerShare = 1.0;
    // The attention's output passes a sigmoid gate from q_proj before the out-projection (Qwen3-Next, Qwen3.5): the
    // gate and the gated product are kept beside the attention's own output, 2 x 2 (a dv) bytes more.
    bool attentionOutputGate = false;
    // Bytes per token the recurrent token mixers keep for backward between their in- and out-projections, averaged
    // over layers (core/model/chunked_scans.h, the *SavedBytes functions); split by TP with the heads.
    double recurrentSavedBytes = 0;
    // Query and key elements per token that a q/k RMSNorm (Qwen3, OLMo 2) normalises; 0 without one.
    double qkNormWidth = 0;
};

// Megatron-Core's module-level selective recompute (RecomputeModule bits, core/scenario/scenario.h) is Modules.
enum class ActivationRecompute { None, AttentionCore, OpLevel, Full, Modules };

struct ActivationLayout {
    int tp = 1;
    bool sequenceParallel = true;
    ActivationRecompute recompute = ActivationRecompute::None;
    double keptMatmulFraction = 0.5; // OpLevel only
    bool compiledRematerialisation = false; // None/AttentionCore: pointwise outputs recomputed, not saved
    bool unfusedPointwise = false; // eager norms and SwiGLU without fused kernels: +4h per norm, +2F (SwiGLU)
    unsigned recomputeModules = 0; // Modules only: RecomputeModule bits
    // Bytes per element of the GEMM inputs kept for backward: 2 (BF16), or 1 where an FP8 recipe caches them in FP8
    // (DeepSeek-V3's blockwise recipe, report section 3.3.2): the QKV, output-projection and MLP inputs and the FFN
    // interior; block inputs and norm inputs stay BF16.
    double linearInputBytes = 2.0;
    // Bytes per query and key element a q/k RMSNorm keeps for backward where its forward is saved (no checkpointing,
    // attention-core or module recompute): 0 compiled (rebuilt in backward), 2 for a fused kernel (its BF16 input),
    // 6 for PyTorch's composite form under autocast (the FP32 upcast and the normalised BF16 values).
    double qkNormSavedBytes = 0.0;
};

// Bytes per token per layer saved for backward, on one GPU, for a sequence of seqLen tokens.
double activationBytesPerTokenLayer(const LayerShape& shape, double seqLen, const ActivationLayout& layout);

ActivationRecompute activationRecomputeFor(ActivationCheckpointing ac);
// Selective checkpointing with Megatron's modules named is Modules, otherwise as above.
ActivationRecompute activationRecomputeFor(ActivationCheckpointing ac, unsigned recomputeModules);

} // namespace mfu
