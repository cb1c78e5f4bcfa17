#pragma once
// The constants a scenario's step is predicted with: its own (Scenario::costModel) when it carries them, else the
// documented defaults for its hardware (core/model/cost_model_constants.h).
#include "core/model/cost_model_constants.h"

namespace mfu {

struct Scenario;

// The scenario's own constants when it carries them, otherwise the defaults for its hardware.
CostModelConstants costModelConstantsFor(const Scenario& scenario);

// The constants of a one-GPU run: its GEMMs at isolatedGemmEfficiency and isolatedGemmHalfSaturationDim. Published
// runs share their GPUs' SMs, HBM and power with collectives and neighbours, and the GEMM figures fitted on them carry
// that; a lone GPU has neither.
CostModelConstants loneGpuConstants(const CostModelConstants& c);
// Whether a scenario's step runs with loneGpuConstants: one GPU, and the lone-GPU figures measured (non-zero).
bool runsAsLoneGpu(const Scenario& scenario, const CostModelConstants& c);

} // namespace mfu
