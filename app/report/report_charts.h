#pragma once
// The charts of a report, built from the report's figures with the shared ChartView (so the PDF, the PNGs beside the
// HTML page and the panels draw the same way): FLOP/token by formula, step-time and memory breakdowns (when the cost
// model predicts), cost and days vs MFU with the baseline and target marked, and the same job on every hardware
// preset at its own predicted MFU.
#include <QString>

#include <memory>
#include <vector>

#include "core/report/report_figures.h"
#include "widgets/charts/chart_view.h"

namespace mfu {
class PresetLibrary;
}

namespace mfu::app {

struct ReportChart {
    QString stem; // file name without suffix: "cost_vs_mfu"
    QString caption;
    std::unique_ptr<widgets::ChartView> view;
};

// `presets` supplies the hardware compared; the scenario's own GPU keeps the scenario's price.
std::vector<ReportChart> buildReportCharts(
    const ScenarioDocument& document, const ReportFigures& figures, const PresetLibrary& presets);

} // namespace mfu::app
