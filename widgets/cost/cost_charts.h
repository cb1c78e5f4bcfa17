#pragma once
// The money charts, filled from core results, shared by the Cost panel and the report so both draw the same thing:
// cost and wall-clock days of the same work vs MFU (baseline and target marked), the savings of an uplift, and the
// same job on each GPU at its predicted MFU.
#include "core/money/hardware_comparison.h"
#include "core/money/scenario_cost.h"

namespace mfu::widgets {

class ChartView;

// MFU from 10% to max(80%, target): the job's cost (k$) or days, with the baseline and target as points.
void fillCostVsMfu(ChartView& chart, const ScenarioCost& cost);
void fillDaysVsMfu(ChartView& chart, const ScenarioCost& cost);
// Baseline vs target: cost of the same work and the value recovered in the same GPU-hours (k$).
void fillSavings(ChartView& chart, const MfuSavings& savings);
// Rows in the order given (callers sort); category names "<id> (<MFU>%)".
void fillHardwareCost(ChartView& chart, const HardwareComparison& comparison);
void fillHardwareDays(ChartView& chart, const HardwareComparison& comparison);

} // namespace mfu::widgets
