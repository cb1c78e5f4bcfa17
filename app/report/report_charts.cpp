#include "app/report/report_charts.h"

#include <qcustomplot.h>

#include <algorithm>

#include "core/costmodel/cost_model.h"
#include "core/errors.h"
#include "core/money/hardware_comparison.h"
#include "core/presets.h"
#include "core/units.h"

namespace mfu::app {

using widgets::ChartView;

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

ReportChart makeChart(const QString& stem, const QString& title, const QString& caption)
{
    ReportChart chart { stem, caption, std::make_unique<ChartView>() };
    chart.view->setTitle(title);
    return chart;
}

// Category names longer than a bar is wide are tilted so they do not run into each other.
void tiltCategoryLabels(ChartView& view)
{
    view.plot()->xAxis->setTickLabelRotation(-40);
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
        QStringLiteral("Training FLOP per token under each convention (six_n = 6N; palm = 6(N-N_emb)+12LHQS; "
                       "per_component = every matmul, full attention; per_component_causal = causal attention). "
                       "MFU uses the scenario's formula."));
    QStringList names;
    QVector<double> gflop;
    for (const FlopFormula formula : kAllFlopFormulas)
        if (const auto v = f.flopsPerToken.get(formula)) {
            names << qs(std::string(flopFormulaKey(formula)));
            gflop << *v / kGiga;
        }
    chart.view->setCategories(names);
    chart.view->setXAxis(QStringLiteral("Formula"), {});
    chart.view->setYAxis(QStringLiteral("FLOP per token"), QStringLiteral("GFLOP"));
    chart.view->addBars(QStringLiteral("FLOP/token"), indices(int(gflop.size())), gflop);
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
    tiltCategoryLabels(*chart.view);
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
    tiltCategoryLabels(*chart.view);
    return chart;
}

// Cost (or days) of the same work at every MFU from 10% to 80% (or the target, if higher).
std::vector<ReportChart> costCurveCharts(const ScenarioCost& c)
{
    const double target = c.savings ? c.savings->uplift.targetMfu : c.baselineMfu;
    const double top = std::max({ 0.8, target, c.baselineMfu });
    const auto curve = costVsMfu(c.job, c.baselineMfu, c.rate, 0.1, top, 71);
    QVector<double> mfuPct, costK, days;
    for (const auto& p : curve) {
        mfuPct << p.mfu * 100;
        costK << p.cost.costUsd / 1e3;
        days << p.cost.wallClockDays();
    }
    ReportChart cost = makeChart(QStringLiteral("cost_vs_mfu"), QStringLiteral("Cost of the job vs MFU"),
        QStringLiteral("Same work (tokens) at other MFUs on the same cluster."));
    cost.view->setXAxis(QStringLiteral("MFU"), QStringLiteral("%"));
    cost.view->setYAxis(QStringLiteral("Cost"), QStringLiteral("k$"));
    cost.view->addLine(QStringLiteral("Cost"), mfuPct, costK);
    ReportChart time = makeChart(QStringLiteral("days_vs_mfu"), QStringLiteral("Wall-clock days vs MFU"),
        QStringLiteral("Same work (tokens) at other MFUs on the same cluster."));
    time.view->setXAxis(QStringLiteral("MFU"), QStringLiteral("%"));
    time.view->setYAxis(QStringLiteral("Wall-clock"), QStringLiteral("days"));
    time.view->addLine(QStringLiteral("Days"), mfuPct, days);

    const auto mark = [&](const QString& name, double mfu, const JobCost& job) {
        cost.view->addScatter(name, { mfu * 100 }, { job.costUsd / 1e3 });
        time.view->addScatter(name, { mfu * 100 }, { job.wallClockDays() });
    };
    mark(QStringLiteral("Baseline"), c.baselineMfu, c.job);
    if (c.savings)
        mark(QStringLiteral("Target"), c.savings->uplift.targetMfu, c.savings->fixedWork.target);
    std::vector<ReportChart> out;
    out.push_back(std::move(cost));
    out.push_back(std::move(time));
    return out;
}

// Every hardware preset trains the job's tokens at the MFU the cost model predicts for this scenario on it.
std::vector<ReportChart> hardwareCharts(
    const ScenarioDocument& doc, const ScenarioCost& c, const PresetLibrary& presets)
{
    if (!c.job.tokens)
        return {};
    std::vector<HardwareOption> options;
    for (const HardwareSpec& h : presets.hardware()) {
        Scenario s = doc.scenario;
        const bool own = h.id == s.cluster.hardware.id;
        s.cluster.hardware = own ? s.cluster.hardware : h;
        try {
            const StepPrediction p = evaluate(s);
            // The scenario's price override is for its own GPU; the others cost their preset's typical price.
            const double price = own ? s.effectivePricePerGpuHourUsd() : h.pricePerGpuHourUsd;
            if (!p.fits || !(p.mfu > 0 && p.mfu <= 1) || !(price > 0))
                continue;
            options.push_back({ s.cluster.hardware, s.cluster.gpuCount, p.mfu, price });
        } catch (const InputError&) {
            continue; // a device this configuration cannot run on is left out of the comparison
        }
    }
    if (options.empty())
        return {};
    HardwareComparison cmp = compareHardware(*c.job.tokens, c.flopsPerToken, options);
    const std::string cheapest = cmp.rows[cmp.cheapest].hardwareId;
    const std::string fastest = cmp.rows[cmp.fastest].hardwareId;
    std::stable_sort(cmp.rows.begin(), cmp.rows.end(),
        [](const auto& a, const auto& b) { return a.cost.costUsd < b.cost.costUsd; }); // cheapest first
    QStringList names;
    QVector<double> costK, days;
    for (const auto& row : cmp.rows) {
        names << QStringLiteral("%1 (%2%)").arg(qs(row.hardwareId)).arg(row.mfu * 100, 0, 'f', 0);
        costK << row.cost.costUsd / 1e3;
        days << row.cost.wallClockDays();
    }
    const QString caption
        = QStringLiteral("%1 GPUs of each kind, this scenario's configuration, MFU predicted by "
                         "the cost model for every GPU alike (in brackets; not the MFU given for the job), "
                         "cheapest first; devices it does not fit on are left out. "
                         "Cheapest: %2. Fastest: %3.")
              .arg(c.rate.gpuCount)
              .arg(qs(cheapest), qs(fastest));
    ReportChart cost
        = makeChart(QStringLiteral("hardware_cost"), QStringLiteral("Cost of the same job by GPU"), caption);
    cost.view->setCategories(names);
    cost.view->setXAxis(QStringLiteral("GPU (predicted MFU)"), {});
    cost.view->setYAxis(QStringLiteral("Cost"), QStringLiteral("k$"));
    cost.view->addBars(QStringLiteral("Cost"), indices(int(names.size())), costK);
    tiltCategoryLabels(*cost.view);
    ReportChart time
        = makeChart(QStringLiteral("hardware_days"), QStringLiteral("Days to train the same job by GPU"), caption);
    time.view->setCategories(names);
    time.view->setXAxis(QStringLiteral("GPU (predicted MFU)"), {});
    time.view->setYAxis(QStringLiteral("Wall-clock"), QStringLiteral("days"));
    time.view->addBars(QStringLiteral("Days"), indices(int(names.size())), days);
    tiltCategoryLabels(*time.view);
    std::vector<ReportChart> out;
    out.push_back(std::move(cost));
    out.push_back(std::move(time));
    return out;
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
        for (auto& chart : costCurveCharts(*figures.cost))
            charts.push_back(std::move(chart));
        for (auto& chart : hardwareCharts(document, *figures.cost, presets))
            charts.push_back(std::move(chart));
    }
    for (auto& chart : charts)
        chart.view->rescale();
    return charts;
}

} // namespace mfu::app
