#pragma once
// Calibration: given one measured MFU (or tokens/s) for a scenario, scale the compute and memory-bandwidth
// efficiency constants by one common factor k (each capped at 1) so that the model reproduces the measurement.
// MFU rises monotonically with k, so a bisection finds it. Apply the returned constants to the scenario
// (Scenario::costModel) and every other prediction moves with them; the hardware spec itself stays as it was.
#include "core/costmodel/constants.h"
#include "core/costmodel/step_prediction.h"
#include "core/scenario/scenario.h"

namespace mfu {

struct CalibrationResult {
    double scale = 1.0; // k applied to the efficiencies
    CostModelConstants constants; // the calibrated set
    StepPrediction before; // with the scenario's current constants
    StepPrediction after; // with the calibrated ones
};

// The constants with every efficiency (GEMM, FP8 ratio excluded, attention, HBM) multiplied by k, capped at 1.
CostModelConstants scaledEfficiencies(const CostModelConstants& c, double k);

// Throws InputError when the measurement is not positive or lies outside what any scale can reach.
CalibrationResult calibrateToMfu(const Scenario& scenario, double measuredMfu);
CalibrationResult calibrateToTokensPerSecPerGpu(const Scenario& scenario, double tokensPerSecPerGpu);

} // namespace mfu
