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
#include "core/trace/critical_path.h"
#include "core/trace/roofline.h"
#include "widgets/charts/category_palette.h" // categoryColour(): every chart below colours a category with it

namespace mfu::widgets {

class ChartView;

// "gemm" -> "GEMM", "attention_bwd" -> "Attention bwd", "idle" -> "Idle"; unknown keys come back unchanged.
QString categoryLabel(std::string_view key);

enum class BreakdownUnit { Share, Milliseconds };

// One stacked bar per analysed step: exclusive time per category plus idle, as % of the step window or in ms.
void fillStepChart(ChartView* chart, const trace::RankAnalysis& rank, BreakdownUnit unit);

// Baseline and this run as two stacked bars of category shares (% of the analysed span); each series is named
// with its change in percentage points. The title says which run is faster; the bars name each run's GPU when
// they differ.
void fillComparisonChart(ChartView* chart, const trace::RunComparison& comparison);

// The roofline (core/trace/roofline.h) on log-log axes: a roof per precision (the bandwidth slope up to the ridge,
// then the dense peak), the operator problems as marks in their kernel category's colour, in three sizes by their
// share of the marks' time; the hover read-out names each mark's operator and shapes.
void fillRooflineChart(ChartView* chart, const trace::Roofline& roofline, const QString& gpuName);

// One stacked bar per analysed step: what bounded it on its critical path (GPU compute, communication, memory,
// launch and host, idle), as % of the step.
void fillCriticalPathChart(ChartView* chart, const trace::CriticalPath& path);
// The colour of a critical-path share: a dark blue of its own for GPU compute (no category's), the categories' own
// for communication and memory, idle's for idle, a brown for the host.
QColor pathShareColour(trace::PathShare share);

} // namespace mfu::widgets
