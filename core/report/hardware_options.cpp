#include "core/report/hardware_options.h"

#include "core/costmodel/cost_model.h"
#include "core/errors.h"

namespace mfu {

std::vector<HardwareOption> predictedHardwareOptions(const Scenario& scenario, const std::vector<HardwareSpec>& devices)
{
    std::vector<HardwareOption> options;
    // A scenario's own GPU that is not a preset (edited or imported) is compared too, first.
    std::vector<HardwareSpec> all = devices;
    bool ownListed = false;
    for (const HardwareSpec& h : devices)
        ownListed = ownListed || h.id == scenario.cluster.hardware.id;
    if (!ownListed)
        all.insert(all.begin(), scenario.cluster.hardware);
    for (const HardwareSpec& h : all) {
        Scenario s = scenario;
        const bool own = h.id == scenario.cluster.hardware.id;
        if (!own)
            s.cluster.hardware = h;
        const double price = own ? scenario.effectivePricePerGpuHourUsd() : h.pricePerGpuHourUsd;
        try {
            const StepPrediction p = evaluate(s);
            if (!p.fits || !(p.mfu > 0 && p.mfu <= 1) || !(price > 0))
                continue;
            options.push_back({ s.cluster.hardware, s.cluster.gpuCount, p.mfu, price });
        } catch (const InputError&) {
            continue;
        }
    }
    return options;
}

} // namespace mfu
