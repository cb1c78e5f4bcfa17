#pragma once
// Data-parallel communication (docs/cost-model.md, "Communication"):
// - FSDP: per unit (one per layer, one for the embedding and LM head) an all-gather of BF16 weights before forward
//   and again before backward and a reduce-scatter of gradients after backward, every micro-batch; with PP the stage
//   keeps weights and gradients unsharded across the step, so once per step. Experts are gathered over the ranks
//   that share them.
// - Megatron-FSDP: FSDP's traffic, overlapped with a micro-batch's whole compute in one window; the step's first
//   gather and last reduce-scatter exposed once per step, not per micro-batch.
// - torch FSDP's CPUOffload (optimizer offload under torch FSDP): each all-gather and reduce-scatter also copies the
//   rank's FP32 shard over the host link, in and out (fsdpHostShardShare).
// - HSDP: the gradient shard all-reduced across replicas once per step, bucketed behind the last backward.
// - ZeRO-1 and DDP: gradients reduce-scattered (ZeRO-1) or all-reduced (DDP) once per step behind the last backward;
//   ZeRO-1 all-gathers the updated weights, overlapped with the next forward like an FSDP prefetch. With virtual
//   pipeline stages both go chunk by chunk, as Megatron-Core's interleaved schedule issues them, and hide behind
//   the other chunks' micro-batches.
#include "core/costmodel/overlap.h"
#include "core/costmodel/step_context.h"

namespace mfu {

struct FsdpComm {
    double allGather = 0; // one pass over the stage's units, seconds
    double reduceScatter = 0;
    bool reshardEachMicroBatch = false; // no PP: weights resharded after forward, gathered again for backward
    // Exposed per micro-batch (resharding each micro-batch) ...
    double allGatherForwardExposed = 0, allGatherBackwardExposed = 0, reduceScatterExposed = 0;
    // ... or once per step (PP keeps the stage unsharded).
    double allGatherStepExposed = 0, reduceScatterStepExposed = 0;
};

// The ranks that hold the same experts within a data-parallel group of `denseGroup` ranks (FSDP x CP, or every
// data-parallel and CP rank under ZeRO-1 and DDP): its ranks times TP, over EP x expert TP.
int expertShardGroup(const StepContext& x, int denseGroup);

// forwardSeconds, backwardSeconds: what the traffic can hide behind in one micro-batch's forward and backward, its
// kernels and the GPU's waits on other links (PassAccount::windowOn).
FsdpComm fsdpComm(const StepContext& x, double forwardSeconds, double backwardSeconds);

struct DataParallelSync {
    CommTime gradients; // HSDP all-reduce, DDP all-reduce or ZeRO-1 reduce-scatter, per step
    CommTime weightGather; // ZeRO-1's all-gather of the updated weights, per step
};

DataParallelSync dataParallelSync(const StepContext& x, double forwardSeconds, double backwardSeconds);

// The link FSDP's traffic runs on (its dense group's), and the link of the once-a-step sync (HSDP's all-reduce,
// ZeRO-1's reduce-scatter and all-gather, DDP's all-reduce): the NICs when the group spans scale-up domains.
Link fsdpLink(const StepContext& x);
Link dataParallelLink(const StepContext& x);

} // namespace mfu
