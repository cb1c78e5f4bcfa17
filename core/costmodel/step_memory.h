#pragma once
// Peak memory per GPU of a training step (FSDP2-style mixed precision, AdamW):
//   parameters  4 B x local shard (FP32 master weights)      gradients 4 B x shard (none with optimizer-in-backward)
//   optimizer   8 B x shard (two FP32 moments)
//   activations per token per layer (activation_memory.h) x tokens per micro-batch x layers per stage x micro-batches
//               in flight (1F1B holds pp of them on the first stage; interleaving adds (pp-1)/(pp v))
//   temporary   unsharded weights of the units being all-gathered (prefetch depth + 1, BF16) and of the gradients
//               being reduced, logits and their gradient, the working set of the layer being recomputed, plus the
//               caching allocator's fragmentation share
//   reserved    CUDA context, NCCL and cuBLAS workspaces
#include "core/costmodel/cost_model.h"

namespace mfu {

struct StepMemoryInputs {
    const ModelShape* shape = nullptr;
    const CostModelConstants* constants = nullptr;
    const Scenario* scenario = nullptr;
    double modelParallelParams = 0; // weights of one TP x PP (x EP) rank before FSDP sharding
    int fsdpGroup = 1;
    double tokensPerMicroBatch = 0; // per GPU
    double layersPerStage = 0;
    double microBatchesPerStep = 1;
};

MemoryBreakdown stepMemory(const StepMemoryInputs& in);

// Fills bottleneck and worstComm from the time breakdown and whether the step fits.
void classifyBottleneck(StepPrediction& p);

} // namespace mfu
