#pragma once
// Expert parallelism's traffic in the MoE layers of a stage, per micro-batch (docs/cost-model.md, "Expert
// parallelism"): the dispatch and the combine forward, their gradients backward, and the forward's again when
// checkpointing repeats the MoE layer; with expert TP, the all-gather of the received tokens over the expert-TP group
// and the reduce-scatter of the experts' outputs. Each dispatcher (core/scenario/scenario.h, ExpertDispatcher) moves
// its own bytes over the links the EP group spans: NVLink inside a scale-up domain, the NICs between domains. On
// the critical path but for expertAllToAllExposedFraction, or hidden behind another micro-batch's compute (1F1B
// overlap, DualPipe).
#include "core/costmodel/overlap.h"
#include "core/costmodel/step_context.h"

namespace mfu {

// The bytes one GPU sends for one dispatch of its tokens (one pass, `bytesPerElement` each), split by the tier they
// cross: inside the scale-up domain, and out through the NIC.
struct DispatchBytes {
    double scaleUp = 0;
    double scaleOut = 0;
};
DispatchBytes dispatchBytes(const StepContext& x, double bytesPerElement);

// Seconds for one dispatch (or combine) of `bytesPerElement` per element at the dispatcher's bandwidths.
double dispatchSeconds(const StepContext& x, double bytesPerElement);

// computeSeconds: the micro-batch's compute, what an overlapped schedule hides the traffic behind.
CommTime expertParallelComm(const StepContext& x, double computeSeconds);
// The link the EP group's exchange runs on: NVLink, or the NICs when the group spans scale-up domains (DeepEP
// forwards over NVLink inside them, but the NICs set its pace).
Link expertParallelLink(const StepContext& x);

} // namespace mfu
