#include "app/report/report_charts.h"

#include <QFileInfo>

#include <qcustomplot.h>

#include <algorithm>

#include "core/money/hardware_comparison.h"
#include "core/number_format.h"
#include "core/presets/presets.h"
#include "core/report/hardware_options.h"
#include "core/trace/comparison.h"
#include "core/trace/roofline.h"
#include "core/trace/trace_mfu.h"
#include "core/units.h"
#include "widgets/cost/cost_charts.h"
#include "widgets/predict/predict_charts.h"
#include "widgets/qt_text.h"
#include "widgets/trace/trace_charts.h"

namespace mfu::app {

using widgets::ChartView;

namespace {

ReportChart makeChart(const QString& stem, const QString& title, const QString& caption)
{
    ReportChart chart { stem, caption, std::make_unique<ChartView>() };
    chart.view->setTitle(title);
    return chart;
}

QVector<double> indices(int n)
{
    QVector<double> x;
    for (int i = 0; i < n; ++i)
        x.push_back(i);
    return x;
}

ReportChart flopsChart(const ReportFigures& f)
{
    ReportChart chart = makeChart(QStringLiteral("flops_per_token"), QStringLiteral("FLOP per token by formula"),
        QStringLiteral("Training FLOP per token under each convention (6N; PaLM = 6(N-N_emb)+12LHQS on every "
                       "layer; PaLM per layer: each layer's attention over the keys it attends; Per-component: every "
                       "matmul, full attention; Per-component, causal: causal attention). MFU uses the scenario's "
                       "formula."));
    QStringList names;
    QVector<double> gflop;
    for (const FlopFormula formula : kAllFlopFormulas)
        if (const auto v = f.flopsPerToken.get(formula)) {
            names << qs(std::string(flopFormulaShortName(formula))); // the names the Calculator uses
            gflop << *v / kGiga;
        }
    chart.view->setCategories(names);
    chart.view->setXAxis(QStringLiteral("Formula"), {});
    chart.view->setYAxis(QStringLiteral("FLOP per token"), QStringLiteral("GFLOP"));
    chart.view->addBars(QStringLiteral("FLOP/token"), indices(int(gflop.size())), gflop);
    return chart;
}

// The Predict panel's sweep chart (widgets/predict/predict_charts.h), the scenario's point marked, and the line
// calibrated to a trace when the report has one.
ReportChart sweepChart(const Scenario& scenario, const SweepResult& sweep, const std::optional<StepPrediction>& own,
    const std::vector<std::optional<double>>& calibratedMfu)
{
    const widgets::LineSweepAxis axis = widgets::lineSweepAxis(sweep.axis, scenario);
    const bool calibrated = std::any_of(calibratedMfu.begin(), calibratedMfu.end(), [](const auto& v) { return v; });
    ReportChart chart = makeChart(axis.stem, {},
        QStringLiteral("Predicted MFU of this configuration across %1, with the error band of published runs like "
                       "each point; the star is this scenario.%2")
            .arg(axis.across,
                calibrated
                    ? QStringLiteral(" The calibrated line predicts each point with the terms the trace measured "
                                     "(\"Calibrated to a trace\").")
                    : QString()));
    widgets::showMfuSweep(chart.view.get(), sweep, scenario, own ? &*own : nullptr, calibratedMfu);
    return chart;
}

ReportChart stepTimeChart(const StepPrediction& p)
{
    ReportChart chart = makeChart(QStringLiteral("step_time"), QStringLiteral("Predicted step time breakdown"),
        QString::fromStdString(bottleneckSentence(p)));
    const TimeBreakdown& t = p.time;
    const QStringList names { QStringLiteral("Matmuls"), QStringLiteral("Attention"), QStringLiteral("Memory-bound"),
        QStringLiteral("Recompute"), QStringLiteral("Exposed comm"), QStringLiteral("Bubble"),
        QStringLiteral("Overhead") };
    const QVector<double> seconds { t.matmul, t.attention, t.memoryBound, t.recompute, t.exposedCommTotal(),
        t.pipelineBubble, t.overhead };
    QVector<double> msValues;
    for (double s : seconds)
        msValues << s * 1e3;
    chart.view->setCategories(names);
    chart.view->setXAxis(QStringLiteral("Part of the step"), {});
    chart.view->setYAxis(QStringLiteral("Time per step"), QStringLiteral("ms"));
    chart.view->addBars(QStringLiteral("Step time"), indices(int(names.size())), msValues);
    chart.view->setCategoryLabelsTilted(true);
    return chart;
}

ReportChart memoryChart(const StepPrediction& p)
{
    ReportChart chart = makeChart(QStringLiteral("memory"), QStringLiteral("Predicted memory per GPU"),
        QStringLiteral("Peak bytes per GPU; capacity %1 GiB.").arg(p.memoryCapacityBytes / kGiB, 0, 'f', 0));
    const MemoryBreakdown& m = p.memory;
    const QStringList names { QStringLiteral("Parameters"), QStringLiteral("Gradients"), QStringLiteral("Optimizer"),
        QStringLiteral("Activations"), QStringLiteral("Temporary"), QStringLiteral("Reserved") };
    QVector<double> gib;
    for (double b : { m.parameters, m.gradients, m.optimizerState, m.activations, m.temporary, m.reserved })
        gib << b / kGiB;
    chart.view->setCategories(names);
    chart.view->setXAxis(QStringLiteral("Memory"), {});
    chart.view->setYAxis(QStringLiteral("Per GPU"), QStringLiteral("GiB"));
    chart.view->addBars(QStringLiteral("Memory"), indices(int(names.size())), gib);
    chart.view->setCategoryLabelsTilted(true);
    return chart;
}

std::vector<ReportChart> moneyCharts(const ScenarioDocument& doc, const ScenarioCost& c, const PresetLibrary& presets)
{
    std::vector<ReportChart> out;
    const QString sameWork = QStringLiteral("Same work (tokens) at other MFUs on the same cluster.");
    out.push_back(makeChart(QStringLiteral("cost_vs_mfu"), {}, sameWork));
    widgets::fillCostVsMfu(*out.back().view, c);
    out.push_back(makeChart(QStringLiteral("days_vs_mfu"), {}, sameWork));
    widgets::fillDaysVsMfu(*out.back().view, c);
    if (c.savings) {
        out.push_back(makeChart(QStringLiteral("savings"), {},
            QStringLiteral("Fixed work: the same tokens cost less. Fixed budget: the same GPU-hours recover "
                           "GPUs x (target - baseline) GPU-equivalents, valued at the price per GPU-hour.")));
        widgets::fillSavings(*out.back().view, *c.savings);
    }
    if (!c.job.tokens)
        return out;
    const auto options = predictedHardwareOptions(doc.scenario, presets.hardware(), &presets);
    if (options.empty())
        return out;
    HardwareComparison cmp = compareHardware(*c.job.tokens, c.flopsPerToken, options);
    const std::string cheapest = cmp.rows[cmp.cheapest].hardwareId;
    const std::string fastest = cmp.rows[cmp.fastest].hardwareId;
    std::stable_sort(cmp.rows.begin(), cmp.rows.end(),
        [](const auto& a, const auto& b) { return a.cost.costUsd < b.cost.costUsd; }); // cheapest first
    const QString caption = QStringLiteral("%1 of each kind, this scenario's configuration, MFU predicted by "
                                           "the cost model for every GPU alike (in brackets; not the MFU given for "
                                           "the job), cheapest first; devices it does not fit on are left out. "
                                           "Cheapest: %2. Fastest: %3.")
                                .arg(QString::fromStdString(formatCount(c.rate.gpuCount, "GPU")))
                                .arg(qs(cheapest), qs(fastest));
    out.push_back(makeChart(QStringLiteral("hardware_cost"), {}, caption));
    widgets::fillHardwareCost(*out.back().view, cmp);
    out.push_back(makeChart(QStringLiteral("hardware_days"), {}, caption));
    widgets::fillHardwareDays(*out.back().view, cmp);
    return out;
}

// The first rank's steps as stacked category shares (the Trace panel's step chart).
ReportChart traceChart(const TraceFigures& t)
{
    const trace::RankAnalysis& rank = t.run.ranks.front();
    ReportChart chart = makeChart(QStringLiteral("trace_breakdown"), QStringLiteral("Step time by kernel category"),
        QStringLiteral("Exclusive GPU time per category and idle, as a share of each analysed step of %1 (rank %2).")
            .arg(QFileInfo(qs(rank.sourceFile)).fileName())
            .arg(rank.rank));
    widgets::fillStepChart(chart.view.get(), rank, widgets::BreakdownUnit::Share);
    return chart;
}

// The first rank's operator problems on its GPU's roofline (the Trace panel's Roofline tab).
std::optional<ReportChart> rooflineChart(const TraceFigures& t)
{
    const trace::RankAnalysis& rank = t.run.ranks.front();
    if (!rank.opFlops.recordsShapes)
        return std::nullopt;
    const auto gpu = trace::traceHardware(rank, t.knownHardware);
    const trace::Roofline roof = trace::rooflineOf(rank.opFlops, gpu ? &*gpu : nullptr);
    // The roofs only where the trace names a GPU the presets know: the caption said "under the GPU's roofs" beneath
    // a chart titled "no roofs" for HTA's traces, which record no GPU.
    const QString under = roof.ceilings.empty()
        ? QStringLiteral("; no roofs: the trace names no GPU the presets know.")
        : QStringLiteral(", under the GPU's roofs: dense peak per precision and HBM bandwidth.");
    ReportChart chart = makeChart(QStringLiteral("trace_roofline"), {},
        QStringLiteral("Each operator problem of rank %1 (an operator on one set of shapes, every call of it in the "
                       "analysed steps) at its arithmetic intensity and achieved TFLOPS, sized by its time%2")
            .arg(rank.rank)
            .arg(under));
    widgets::fillRooflineChart(chart.view.get(), roof, gpu ? qs(gpu->displayName()) : QString());
    return chart;
}

// What bounded each analysed step of the first rank (the Trace panel's Critical path tab).
std::optional<ReportChart> criticalPathChart(const TraceFigures& t)
{
    const trace::RankAnalysis& rank = t.run.ranks.front();
    if (rank.criticalPath.steps.empty())
        return std::nullopt;
    ReportChart chart = makeChart(QStringLiteral("trace_critical_path"), {},
        QStringLiteral("The critical path of each analysed step of rank %1: the time on it by what held the step "
                       "(GPU compute, communication, memory copies, launch and host, idle).")
            .arg(rank.rank));
    widgets::fillCriticalPathChart(chart.view.get(), rank.criticalPath);
    return chart;
}

// This run beside its baseline, category shares (the Trace panel's comparison chart).
std::optional<ReportChart> comparisonChart(const TraceFigures& t)
{
    if (!t.baseline)
        return std::nullopt;
    const trace::RunComparison c = trace::compareRuns(*t.baseline, t.run);
    ReportChart chart = makeChart(QStringLiteral("trace_comparison"), {}, qs(trace::comparisonVerdict(c)));
    widgets::fillComparisonChart(chart.view.get(), c);
    return chart;
}

} // namespace

std::vector<ReportChart> buildReportCharts(
    const ScenarioDocument& document, const ReportFigures& figures, const PresetLibrary& presets)
{
    std::vector<ReportChart> charts;
    charts.push_back(flopsChart(figures));
    if (figures.predicted) {
        charts.push_back(stepTimeChart(*figures.predicted));
        charts.push_back(memoryChart(*figures.predicted));
    }
    if (figures.cost) {
        for (auto& chart : moneyCharts(document, *figures.cost, presets))
            charts.push_back(std::move(chart));
    }
    for (size_t i = 0; i < figures.sweeps.size(); ++i)
        charts.push_back(sweepChart(document.scenario, figures.sweeps[i], figures.predicted,
            i < figures.calibratedSweepMfu.size() ? figures.calibratedSweepMfu[i]
                                                  : std::vector<std::optional<double>> {}));
    if (figures.trace && !figures.trace->run.ranks.empty() && !figures.trace->run.ranks.front().steps.empty()) {
        charts.push_back(traceChart(*figures.trace));
        if (auto roofline = rooflineChart(*figures.trace))
            charts.push_back(std::move(*roofline));
        if (auto path = criticalPathChart(*figures.trace))
            charts.push_back(std::move(*path));
        if (auto comparison = comparisonChart(*figures.trace))
            charts.push_back(std::move(*comparison));
    }
    for (auto& chart : charts)
        chart.view->rescale();
    return charts;
}

} // namespace mfu::app
