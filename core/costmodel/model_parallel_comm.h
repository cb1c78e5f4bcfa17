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

// matmulSeconds: the micro-batch's matmul time, what async TP overlaps the collectives with.
CommTime tensorParallelComm(const StepContext& x, double matmulSeconds);
// attentionSeconds: the micro-batch's attention time (forward and backward), what the ring overlaps with.
CommTime contextParallelComm(const StepContext& x, double attentionSeconds);

// The links their groups run on: NVLink, or the NICs when the group spans scale-up domains.
Link tensorParallelLink(const StepContext& x);
Link contextParallelLink(const StepContext& x);

} // namespace mfu
