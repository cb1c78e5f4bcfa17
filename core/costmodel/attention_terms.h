#pragma once
// The attention core of one micro-batch on one GPU (always BF16): the causal half of the S x S square per query,
// split over TP heads, at the efficiency of the scenario's kernel (attention_kernels.h), plus the other token mixers
// (recurrences, the sparse-attention indexer). Packed documents masked apart attend within their own document.
// docs/cost-model.md, "Attention".
#include "core/costmodel/step_context.h"

namespace mfu {

struct AttentionTime {
    double forward = 0; // seconds per micro-batch
    double backward = 0;
    bool unfused = false; // scores materialised in HBM (and kept for backward)
    double total() const { return forward + backward; }
};

// FP8 attention's forward over BF16's: FlashAttention-3 (Shah, Bikshandi, Zhang, Thakkar, Ramani, Dao, 2024) runs its
// BF16 forward at up to 740 TFLOPS on an H100 and its FP8 forward close to 1.2 PFLOPS, 1.6x. The backward is taken
// at BF16's speed: no published FP8 backward speedup is in hand (FlashAttention-3 has none; cuDNN's is not stated).
// Not yet validated against a published run with and without it.
inline constexpr double kFp8AttentionForwardSpeedup = 1.6;

AttentionTime attentionTime(const StepContext& x);

// The share of unsplit attention's speed that context-parallel chunks keep, by how the ranks exchange keys and
// values (Parallelism::cpComm): an all-gather and a kernel call per gathered chunk, or Transformer Engine's P2P ring.
// 1 without context parallelism.
double contextParallelAttentionEfficiency(const StepContext& x);

// A length-weighted average over the packed documents of f(document length), or f(sequence) when the sequence is
// one document (or attends over the whole packed sequence).
double overDocuments(const StepContext& x, double (*f)(const StepContext&, double));

} // namespace mfu
