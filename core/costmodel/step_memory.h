#pragma once
// Peak memory per GPU of a training step (FSDP2-style mixed precision, AdamW):
//   parameters  4 B x local shard (FP32 master weights)      gradients 4 B x shard (none with optimizer-in-backward)
//   optimizer   8 B x shard (two FP32 moments); optimizer offload keeps (1 - F) of these and the master weights
//   activation offload: the offloaded bytes leave the GPU but for a double buffer of one layer's
//   DDP and ZeRO-1 keep whole BF16 weights (2 B) and whole gradients (4 B, or 2 B reduced in BF16) on every rank;
//   DDP does not shard the master weights and moments either (Megatron's 18 bytes per parameter).
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
    int optimizerGroup = 1; // ranks the FP32 master weights and moments are sharded over (FSDP, ZeRO-1; DDP: 1)
    // MoE: the experts' part of modelParallelParams, and the ranks its weights, gradients and optimizer state are
    // sharded over (expertOptimizerGroupOf: ep x expert TP fewer copies than the dense weights).
    double expertParams = 0;
    int expertOptimizerGroup = 1;
    double tokensPerMicroBatch = 0; // per GPU
    double layersPerStage = 0;
    double microBatchesPerStep = 1;
    bool unfusedAttention = false; // the attention scores are materialised and saved for backward
    // Pipeline rank: under 1F1B rank r holds pp - r micro-batches in flight (the first holds the most).
    int pipelineRank = 0;
    bool holdsLogits = true; // the rank computes the LM head and loss
    // MoE: what the layers' experts hold per token beyond the dense layer (moeActivationBytesPerToken).
    double expertLoad = 1;
    double expertTp = 1;
    double ep = 1; // expert-parallel degree: a rank gathers (FSDP) only its own experts of a layer
    double fullRecomputeShare = 1; // full checkpointing: the share of layers recomputed (Megatron's block method)
};

// Parameters of the largest transformer block one rank holds whole while FSDP has it gathered (and reduces its
// gradients from): a layer's weights over TP; for a MoE block, its routed experts over EP x expert TP instead, since
// a rank gathers only the experts it computes.
double largestLayerParamsOnRank(const StepMemoryInputs& in);

// MoE layers, bytes per token of the micro-batch and per layer (averaged over the layers) beyond what
// activationBytesPerTokenLayer counts: the dispatched copies each expert receives and keeps for its weight gradient
// (k x the expert load per routed token, x expert TP / TP per GPU; the routing weights are applied inside the
// expert, so its outputs are not kept), and the busiest expert's extra share of the FFN interior. Full
// checkpointing keeps none, Megatron's moe module none.
double moeActivationBytesPerToken(
    const ModelShape& shape, const ActivationLayout& layout, double expertLoad, double expertTp);

// Megatron-Core's fine-grained activation offload (OffloadModule bits), bytes per token of the micro-batch and per
// layer (averaged over the layers) that the named modules would keep on the GPU: expert_fc1 the dispatched copies
// above, moe_act the routed experts' FC1 output (gate and up, 4F bytes in BF16; 2F for GELU) at the busiest rank's
// load, of which TorchTitan's op-level policy keeps its matmul share. None under full checkpointing or Megatron's moe
// module, which save nothing of the experts (the block method's kept layers count as unrecomputed ones).
double offloadedModuleBytesPerToken(
    const ModelShape& shape, const ActivationLayout& layout, double expertLoad, double expertTp, unsigned modules);

// Bytes per token and layer of the saved activations that activation offload copies to the host in forward and back
// in backward: the named modules' share, and the scenario's fraction of the rest.
double offloadedActivationBytesPerTokenLayer(const StepMemoryInputs& in);

MemoryBreakdown stepMemory(const StepMemoryInputs& in);

// Fills bottleneck and worstComm from the time breakdown and whether the step fits.
void classifyBottleneck(StepPrediction& p);

} // namespace mfu
