#pragma once
// Work limited by HBM bandwidth rather than FLOPs: elementwise kernels and norms, the loss, FP8 casts (per
// micro-batch), and the optimizer step (per step). Bytes over HBM bandwidth x hbmEfficiency
// (docs/cost-model.md, "Memory-bound work").
#include "core/costmodel/step_context.h"

namespace mfu {

// Bytes per micro-batch, and the achieved HBM bandwidth they move at.
struct MemoryBoundTime {
    double elementwiseBytes = 0; // norms, residual adds, SwiGLU, RoPE, the kernels around recurrences
    double lossBytes = 0;
    double fp8CastBytes = 0; // quantisation of BF16+FP8 and BF16+FP4 runs
    // MoE: routing (softmax or sigmoid, top-k) and the permutation of tokens into expert order and back.
    double moeShuffleBytes = 0;
    // torch.autocast over FP32 weights: the BF16 cast of each weight and the FP32 cast of its gradient.
    double autocastCastBytes = 0;
    double bytesPerSec = 1;
    double elementwise() const { return elementwiseBytes / bytesPerSec; } // seconds per micro-batch
    double moeShuffle() const { return moeShuffleBytes / bytesPerSec; }
    double total() const
    {
        return (elementwiseBytes + lossBytes + fp8CastBytes + moeShuffleBytes + autocastCastBytes) / bytesPerSec;
    }
};

MemoryBoundTime memoryBoundTime(const StepContext& x);

// MoE routing and token permutation per micro-batch, bytes: per token a GPU routes and MoE layer,
// moePermuteBytesPerElement x (k x expert load + 1) x the dispatched width (permute: read one vector, write k; the
// unpermute the reverse; forward and backward), and moeRouterBytesPerExpert x the experts for the router's logits.
double moeShuffleBytes(const StepContext& x);

// BF16+FP8: the casts of each GEMM's operands and of the weights, bytes per micro-batch; 0 for a BF16 run.
double fp8CastBytes(const StepContext& x);
// How often a micro-batch quantises the weights: 1, or 1 / micro-batches with FrameworkFlags::quantizedWeightCache.
// A per-tensor FP8 cast writes one orientation and runs twice (the weight and its transpose); the block and FP4
// recipes write both in one.
double weightCastsPerMicroBatch(const StepContext& x);
// The linear weights one rank quantises per layer: the dense ones split by TP (the router stays BF16) and all its
// local routed experts, E / (EP x expert TP) of them, whether a token picks them or not.
double quantisedLinearParamsPerLayer(const StepContext& x);

// Ranks the FP32 master weights and AdamW moments are sharded over: the FSDP group, every data-parallel and CP rank
// under ZeRO-1, none under DDP.
int optimizerGroupOf(const StepContext& x);
// Ranks one GPU's experts' master weights and moments are sharded over: the ranks of that group (x TP, which MoE
// parallel folding lends to the experts) that hold the same experts, ep x expert TP fewer (Megatron-Core's
// expert-data-parallel group; TorchTitan's dp_shard_mod_ep); none under DDP.
int expertOptimizerGroupOf(const StepContext& x);
// The parameters whose FP32 master weights and moments one GPU updates: its dense weights over optimizerGroupOf, its
// experts over expertOptimizerGroupOf. With EP, each expert has fewer copies than the dense weights, so one GPU's
// share of the experts' optimizer state is ep x expert TP / TP times the dense share's rate.
double optimizerShardParams(const StepContext& x);

// The optimizer step over the local shard, seconds per step (hidden but for one unit's share when it runs inside
// backward).
double optimizerTime(const StepContext& x);
// BF16+FP8: the weight-scale pass over the local shard after backward, seconds per step; 0 when the scales are
// precomputed in backward (Lambda's MFU paper, 3.4) or the run is BF16.
double fp8WeightScaleTime(const StepContext& x);

// BF16+FP4: the bytes one micro-batch's FP4 quantisation moves (NVFP4 or MXFP4 per operand element, both
// orientations, the weights twice), counted in MemoryBoundTime::fp8CastBytes with the FP8 casts.
double fp4CastBytes(const StepContext& x);

} // namespace mfu
