#pragma once
// The hardware a scenario's job could run on, each at the MFU the cost model predicts for the scenario's own
// configuration on it: the input of the hardware comparison (core/money/hardware_comparison.h) in the Cost panel and
// the report. Lives beside the report rather than in money so money does not depend on the cost model.
#include <string>
#include <vector>

#include "core/costmodel/error_band.h"
#include "core/money/hardware_comparison.h"
#include "core/presets/presets.h"
#include "core/scenario/scenario.h"

namespace mfu {

// One option per device the configuration runs on and fits in memory with a price; the scenario's own GPU keeps the
// scenario's price override, the others cost their preset's typical price. Devices the cost model rejects
// (degrees that do not divide, no BF16 peak, ...) are left out. The scenario's own GPU keeps the scenario's cost-model
// constants; another device uses its preset's "cost_model" when `presets` gives one, else the defaults.
std::vector<HardwareOption> predictedHardwareOptions(
    const Scenario& scenario, const std::vector<HardwareSpec>& devices, const PresetLibrary* presets = nullptr);

// The same, with each device left out and why (no price, does not fit, rejected by the cost model): what the Cost
// panel says beside its "By GPU" chart, so an empty or short chart explains itself.
struct PredictedHardware {
    std::vector<HardwareOption> options; // each with the predicted MFU it is costed at
    struct LeftOut {
        std::string hardwareId;
        std::string reason;
    };
    std::vector<LeftOut> leftOut;
};
PredictedHardware predictedHardwareOptionsExplained(
    const Scenario& scenario, const std::vector<HardwareSpec>& devices, const PresetLibrary* presets = nullptr);

// The same question at each device's best: the planner's best configuration of the scenario's model on
// scenario.cluster.gpuCount of it (`mfu-explorer cost --compare`). A device nothing fits on, that has no price or that
// the cost model rejects is listed in leftOut with the reason, so one bad device does not sink the comparison.
struct PlannedHardware {
    std::vector<HardwareOption> options;
    std::vector<std::string> configurations; // per option: describeConfig of the planner's best
    struct LeftOut {
        std::string hardwareId;
        std::string reason;
    };
    std::vector<LeftOut> leftOut;
};
// The scenario's own GPU (by id) keeps the scenario's price; the others cost their preset's typical price. With
// `bands`, each GPU's configuration is the one `plan` ranks first (ties within the error band ranked simplest first,
// plannerTieTolerance); without, the fastest.
PlannedHardware plannedHardwareOptions(const Scenario& scenario, const std::vector<HardwareSpec>& devices,
    const PresetLibrary* presets = nullptr, const ErrorBandModel* bands = nullptr);

} // namespace mfu
