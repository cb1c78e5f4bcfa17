#pragma once
// Work limited by HBM bandwidth rather than FLOPs: elementwise kernels and norms, the loss, FP8 casts (per
// micro-batch), and the optimizer step (per step). Bytes over HBM bandwidth x hbmEfficiency
// (docs/cost-model.md, "Memory-bound work").
#include "core/costmodel/step_context.h"

namespace mfu {

// Bytes per micro-batch, and the achieved HBM bandwidth they move at.
struct MemoryBoundTime {
    double elementwiseBytes = 0; // norms, residual adds, SwiGLU, RoPE
    double lossBytes = 0;
    double fp8CastBytes = 0;
    double bytesPerSec = 1;
    double elementwise() const { return elementwiseBytes / bytesPerSec; } // seconds per micro-batch
    double total() const { return (elementwiseBytes + lossBytes + fp8CastBytes) / bytesPerSec; }
};

MemoryBoundTime memoryBoundTime(const StepContext& x);

// Ranks the FP32 master weights and AdamW moments are sharded over: the FSDP group, every data-parallel and CP rank
// under ZeRO-1, none under DDP.
int optimizerGroupOf(const StepContext& x);

// The optimizer step over the local shard, seconds per step (hidden but for one unit's share when it runs inside
// backward).
double optimizerTime(const StepContext& x);
// BF16+FP8: the weight-scale pass over the local shard after backward, seconds per step; 0 when the scales are
// precomputed in backward (Lambda's MFU paper, 3.4) or the run is BF16.
double fp8WeightScaleTime(const StepContext& x);

} // namespace mfu
