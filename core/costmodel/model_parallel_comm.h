#pragma once
// Communication inside a model-parallel group, per micro-batch (docs/cost-model.md, "Communication"):
// - tensor parallelism: per layer 2 all-gathers + 2 reduce-scatters of the layer's activations forward (all-reduces
//   of the same volume without SP), as many backward, and the forward's again under full recompute; exposed, or with
//   async TP overlapped with the matmuls;
// - context parallelism (ring attention): K and V all-gathered forward, K, V and their gradients backward, overlapped
//   with attention.
#include "core/costmodel/overlap.h"
#include "core/costmodel/step_context.h"

namespace mfu {

// matmulSeconds: the matmul time async TP overlaps the collectives with; trafficShare: the share of the
// micro-batch's collectives that run beside it (one pass's: the forward's, or the backward's with the recomputed
// forward's), 1 for all of them.
CommTime tensorParallelComm(const StepContext& x, double matmulSeconds, double trafficShare = 1.0);
// The share of TP's collectives the forward pass runs: one pass of 2 + the recomputed share.
double tensorParallelForwardShare(const StepContext& x);
// attentionSeconds: the attention time the ring overlaps with; trafficShare as above (the forward's all-gather is a
// third of the exchange).
CommTime contextParallelComm(const StepContext& x, double attentionSeconds, double trafficShare = 1.0);

// The links their groups run on: NVLink, or the NICs when the group spans scale-up domains.
Link tensorParallelLink(const StepContext& x);
Link contextParallelLink(const StepContext& x);

} // namespace mfu
