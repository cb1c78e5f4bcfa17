#pragma once
// Expert parallelism's dispatch and combine all-to-alls, forward and backward, in the MoE layers of a stage, per
// micro-batch (docs/cost-model.md, "Communication", EP): on the critical path but for expertAllToAllExposedFraction,
// or overlapped with another micro-batch's compute (DualPipe, Megatron-Core's A2A overlap).
#include "core/costmodel/overlap.h"
#include "core/costmodel/step_context.h"

namespace mfu {

// computeSeconds: the micro-batch's compute, what an overlapped schedule hides the all-to-alls behind.
CommTime expertParallelComm(const StepContext& x, double computeSeconds);

} // namespace mfu
