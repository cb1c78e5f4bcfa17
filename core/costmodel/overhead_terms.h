#pragma once
// Fixed costs (docs/cost-model.md, constants perLayerOverhead and perStepOverheadSeconds): kernel launches and host
// work per layer and pass, per micro-batch; data loading, logging and clipping once per step.
#include "core/costmodel/step_context.h"

namespace mfu {

// Per micro-batch: forward and backward passes over the stage's layers, and the recomputed forward under
// checkpointing.
double launchOverheadTime(const StepContext& x);

} // namespace mfu
