#pragma once
// The hardware a scenario's job could run on, each at the MFU the cost model predicts for the scenario's own
// configuration on it: the input of the hardware comparison (core/money/hardware_comparison.h) in the Cost panel and
// the report. Lives beside the report rather than in money so money does not depend on the cost model.
#include <vector>

#include "core/money/hardware_comparison.h"
#include "core/scenario.h"

namespace mfu {

// One option per device the configuration runs on and fits in memory with a price; the scenario's own GPU keeps the
// scenario's price override, the others cost their preset's typical price. Devices the cost model rejects
// (degrees that do not divide, no BF16 peak, ...) are left out.
std::vector<HardwareOption> predictedHardwareOptions(
    const Scenario& scenario, const std::vector<HardwareSpec>& devices);

} // namespace mfu
