#pragma once
// Pipeline parallelism (docs/cost-model.md, "Communication", PP): activations forward and gradients backward at every
// stage boundary of every virtual chunk, per micro-batch; and the bubble, (pp - 1) / v micro-batch slots of idle time
// per step under 1F1B and interleaved 1F1B (with fewer micro-batches than stages, (v - 1)(pp - m) / v slots more), a
// residual of it under a zero-bubble schedule.
#include "core/costmodel/overlap.h"
#include "core/costmodel/step_context.h"

namespace mfu {

CommTime pipelineP2pComm(const StepContext& x);
// microBatchSeconds: one micro-batch's time on a stage (compute, overheads and exposed communication).
double pipelineBubble(const StepContext& x, double microBatchSeconds);

} // namespace mfu
