#pragma once
// The money figures of a scenario document (what the Cost panel and the report show): the cluster's rate at the
// scenario's price, the job from the cost inputs (a token budget, else days of the cluster), the MFU it runs at
// (the one the user gave, else the measured one, else the cost model's prediction, calibrated to a trace when one
// describes the scenario) and the savings for a target.
#include <optional>
#include <string>
#include <utility>

#include "core/money/savings.h"
#include "core/scenario/scenario_file.h"

namespace mfu {

enum class MfuOrigin { Given, Measured, Predicted, Calibrated };
// "given", "measured", "predicted by the cost model", "predicted by the cost model, calibrated to a trace"
std::string_view mfuOriginLabel(MfuOrigin origin);

struct ScenarioCost {
    ClusterRate rate;
    double baselineMfu = 0;
    MfuOrigin baselineOrigin = MfuOrigin::Given;
    double flopsPerToken = 0; // the scenario's MFU formula at its sequence length
    JobCost job; // at the baseline MFU
    std::optional<MfuSavings> savings; // when a target MFU is set
    // Why the measured MFU was not used although there is one: above 100%, no run reaches it, so the scenario does
    // not describe the measured run (another GPU, model or batch); the job is then costed at the prediction.
    std::optional<std::string> measuredSetAside;
};

// The cost model's MFU for the scenario's configuration, or why it prices nothing: a configuration that does not fit
// in memory runs no job, so its MFU is no price (the Cost panel once costed Llama 3.1 8B on one H100 at a predicted
// 57.10% while listing the H100 as not fitting).
struct PredictedMfu {
    PredictedMfu(double m) // NOLINT(google-explicit-constructor): a plain figure is a prediction that can run
        : mfu(m)
    {
    }
    PredictedMfu(double m, std::string whyNot)
        : mfu(m)
        , refused(std::move(whyNot))
    {
    }
    // The prediction with the terms a trace of the run measured (core/calibration/): what the job is costed at
    // when the calibration describes the scenario, so the Cost panel and the report's cost section agree with the
    // calibrated MFU beside them.
    static PredictedMfu calibratedToTrace(double m)
    {
        PredictedMfu p(m);
        p.calibrated = true;
        return p;
    }
    double mfu = 0;
    bool calibrated = false;
    std::optional<std::string> refused; // set: not used, and said when it would have been the job's MFU
};

// Throws InputError when the document has no job (token budget or days), no MFU from any origin (a measured MFU
// above 100% is none; a refused prediction is none, and its reason is the error), or no price.
ScenarioCost scenarioCost(
    const ScenarioDocument& document, std::optional<double> measuredMfu, std::optional<PredictedMfu> predicted);

} // namespace mfu
