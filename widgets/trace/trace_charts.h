#pragma once
// The Trace panel's charts, filled from core's analysis into the shared ChartView: the stacked category breakdown
// per step and the baseline-vs-optimised comparison in the style of Figure 3 of Lambda's MFU paper (one stacked bar per
// run, the category shares side by side, deltas in the legend). Only categories with time in them get a series, in
// the category's own colour (category_palette.h).
#include <QColor>
#include <QString>

#include <string_view>

#include "core/trace/analysis.h"
#include "core/trace/comparison.h"
#include "widgets/charts/category_palette.h" // categoryColour(): every chart below colours a category with it

namespace mfu::widgets {

class ChartView;

// "gemm" -> "GEMM", "attention_bwd" -> "Attention bwd", "idle" -> "Idle"; unknown keys come back unchanged.
QString categoryLabel(std::string_view key);

enum class BreakdownUnit { Share, Milliseconds };

// One stacked bar per analysed step: exclusive time per category plus idle, as % of the step window or in ms.
void fillStepChart(ChartView* chart, const trace::RankAnalysis& rank, BreakdownUnit unit);

// Baseline and optimised as two stacked bars of category shares (% of the analysed span); each series is named
// with its change in percentage points.
void fillComparisonChart(ChartView* chart, const trace::RunComparison& comparison);

} // namespace mfu::widgets
