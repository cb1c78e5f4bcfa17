#pragma once
// A trace calibration built from the cost model's own prediction with known factors, for tests of what shows a
// calibration (the report, the window): the fields calibrateFromTrace fills, without a trace to read.
#include "core/calibration/trace_calibration.h"
#include "core/costmodel/cost_model.h"

namespace mfu::test {

// A calibration of `traced` whose trace ran its matmuls at 0.8 of the predicted time and the rest as predicted: the
// fields calibrateFromTrace fills, from the model's own prediction.
inline TraceCalibration matmulsFasterThanPredicted(const Scenario& traced)
{
    const StepPrediction p = evaluate(traced);
    TraceCalibration c;
    c.traced = traced;
    c.tracePaths = { "rank0.json" };
    c.gpuName = traced.cluster.hardware.name;
    c.ranks = 1;
    c.steps = 3;
    const double predicted[] = { p.time.matmul + p.time.recompute, p.time.attention, p.time.memoryBound,
        p.time.exposedCommTotal(), p.time.overhead };
    for (const CalibratedTerm t : kAllCalibratedTerms) {
        TermFit f;
        f.term = t;
        f.predictedSeconds = predicted[static_cast<size_t>(t)];
        f.factor = t == CalibratedTerm::Matmul ? 0.8 : 1.0;
        f.measuredSeconds = f.factor * f.predictedSeconds;
        f.fitted = f.predictedSeconds > 0;
        f.evidence = "synthetic";
        c.fits.push_back(f);
    }
    c.scales = termScalesOf(c.fits, traced);
    c.uncalibratedStepSeconds = p.stepTimeSeconds;
    c.measuredStepSeconds = p.stepTimeSeconds - 0.2 * c.fits.front().predictedSeconds;
    c.replayStepSeconds = c.measuredStepSeconds;
    return c;
}

} // namespace mfu::test
