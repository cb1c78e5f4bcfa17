#include "core/report/hardware_options.h"

#include "core/costmodel/cost_model.h"
#include "core/costmodel/planner.h"
#include "core/errors.h"

namespace mfu {

namespace {
// The scenario moved onto device h: the scenario's constants stay with its own GPU, another takes its preset's.
Scenario onDevice(const Scenario& scenario, const HardwareSpec& h, const PresetLibrary* presets)
{
    Scenario s = scenario;
    if (h.id == scenario.cluster.hardware.id)
        return s;
    s.cluster.hardware = h;
    s.costModel = presets ? presets->costModelFor(h.id) : std::nullopt;
    return s;
}
} // namespace

std::vector<HardwareOption> predictedHardwareOptions(
    const Scenario& scenario, const std::vector<HardwareSpec>& devices, const PresetLibrary* presets)
{
    return predictedHardwareOptionsExplained(scenario, devices, presets).options;
}

PredictedHardware predictedHardwareOptionsExplained(
    const Scenario& scenario, const std::vector<HardwareSpec>& devices, const PresetLibrary* presets)
{
    PredictedHardware out;
    // A scenario's own GPU that is not a preset (edited or imported) is compared too, first.
    std::vector<HardwareSpec> all = devices;
    bool ownListed = false;
    for (const HardwareSpec& h : devices)
        ownListed = ownListed || h.id == scenario.cluster.hardware.id;
    if (!ownListed)
        all.insert(all.begin(), scenario.cluster.hardware);
    for (const HardwareSpec& h : all) {
        const Scenario s = onDevice(scenario, h, presets);
        const bool own = h.id == scenario.cluster.hardware.id;
        const double price = own ? scenario.effectivePricePerGpuHourUsd() : h.pricePerGpuHourUsd;
        if (!(price > 0)) {
            out.leftOut.push_back({ h.id, "no price per GPU-hour" });
            continue;
        }
        try {
            const StepPrediction p = evaluate(s);
            if (!p.fits)
                out.leftOut.push_back({ h.id, "this configuration does not fit in its memory" });
            else if (!(p.mfu > 0 && p.mfu <= 1))
                out.leftOut.push_back({ h.id, "no MFU between 0 and 100% predicted" });
            else
                out.options.push_back({ s.cluster.hardware, s.cluster.gpuCount, p.mfu, price });
        } catch (const InputError& e) {
            out.leftOut.push_back({ h.id, e.what() });
        }
    }
    return out;
}

PlannedHardware plannedHardwareOptions(const Scenario& scenario, const std::vector<HardwareSpec>& devices,
    const PresetLibrary* presets, const ErrorBandModel* bands)
{
    PlannedHardware out;
    PlannerOptions planner;
    planner.topN = 1;
    for (const HardwareSpec& h : devices) {
        const bool own = h.id == scenario.cluster.hardware.id;
        const double price = own ? scenario.effectivePricePerGpuHourUsd() : h.pricePerGpuHourUsd;
        if (!(price > 0)) {
            out.leftOut.push_back({ h.id, "no price per GPU-hour" });
            continue;
        }
        Scenario s = onDevice(scenario, h, presets);
        s.cluster.hardware = h; // the preset's figures, also for the scenario's own GPU
        if (bands)
            planner.tieTolerance = plannerTieTolerance(s, *bands);
        try {
            const PlanResult plan = planConfigurations(s, planner);
            if (plan.configs.empty()) {
                out.leftOut.push_back(
                    { h.id, "on " + std::to_string(s.cluster.gpuCount) + " of it: " + whyNothingPlanned(plan) });
                continue;
            }
            const PlannedConfig& best = plan.configs.front();
            out.options.push_back({ h, s.cluster.gpuCount, best.prediction.mfu, price });
            out.configurations.push_back(describeConfig(best));
        } catch (const InputError& e) {
            out.leftOut.push_back({ h.id, e.what() });
        }
    }
    return out;
}

} // namespace mfu
