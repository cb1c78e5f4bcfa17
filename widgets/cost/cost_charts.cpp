#include "widgets/cost/cost_charts.h"

#include <qcustomplot.h>

#include <algorithm>

#include "widgets/charts/chart_view.h"

namespace mfu::widgets {

namespace {

QVector<double> indices(int n)
{
    QVector<double> x;
    for (int i = 0; i < n; ++i)
        x.push_back(i);
    return x;
}

template <typename Value>
void fillVsMfu(ChartView& chart, const ScenarioCost& c, const QString& title, const QString& label, const QString& unit,
    Value value)
{
    chart.clearSeries();
    chart.setTitle(title);
    chart.setXAxis(QStringLiteral("MFU"), QStringLiteral("%"));
    chart.setYAxis(label, unit);
    const double target = c.savings ? c.savings->uplift.targetMfu : c.baselineMfu;
    const auto curve = costVsMfu(c.job, c.baselineMfu, c.rate, 0.1, std::max({ 0.8, target, c.baselineMfu }), 71);
    QVector<double> x, y;
    for (const auto& p : curve) {
        x << p.mfu * 100;
        y << value(p.cost);
    }
    // The job's curve in this configuration's colour; the baseline the user stated in the text's colour, the target
    // as a gain, or a loss when it is below the baseline (meaning_palette.h).
    chart.setSeriesMeaning(chart.addLine(label, x, y), Meaning::ThisConfiguration);
    const int baseline = chart.addScatter(QStringLiteral("Baseline"), { c.baselineMfu * 100 }, { value(c.job) });
    chart.setSeriesInTextColour(baseline);
    chart.setSeriesMarker(baseline, Marker::Diamond);
    if (c.savings)
        chart.setSeriesMeaning(chart.addScatter(QStringLiteral("Target"), { c.savings->uplift.targetMfu * 100 },
                                   { value(c.savings->fixedWork.target) }),
            c.savings->uplift.targetMfu < c.savings->uplift.baselineMfu ? Meaning::Lost : Meaning::Gained);
    chart.rescale();
}

template <typename Value>
void fillHardware(ChartView& chart, const HardwareComparison& cmp, const QString& title, const QString& label,
    const QString& unit, Value value)
{
    chart.clearSeries();
    chart.setTitle(title);
    QStringList names;
    QVector<double> y;
    for (const auto& row : cmp.rows) {
        names << QStringLiteral("%1 (%2%)").arg(QString::fromStdString(row.hardwareId)).arg(row.mfu * 100, 0, 'f', 0);
        y << value(row.cost);
    }
    chart.setCategories(names);
    chart.setXAxis(QStringLiteral("GPU (predicted MFU)"), {});
    chart.setYAxis(label, unit);
    chart.addBars(label, indices(int(y.size())), y);
    chart.setCategoryLabelsTilted(true);
    chart.rescale();
}

} // namespace

void fillCostVsMfu(ChartView& chart, const ScenarioCost& cost)
{
    fillVsMfu(chart, cost, QStringLiteral("Cost of the job vs MFU"), QStringLiteral("Cost"), QStringLiteral("k$"),
        [](const JobCost& j) { return j.costUsd / 1e3; });
}

void fillDaysVsMfu(ChartView& chart, const ScenarioCost& cost)
{
    fillVsMfu(chart, cost, QStringLiteral("Wall-clock days vs MFU"), QStringLiteral("Wall-clock"),
        QStringLiteral("days"), [](const JobCost& j) { return j.wallClockDays(); });
}

void fillSavings(ChartView& chart, const MfuSavings& s)
{
    chart.clearSeries();
    // Below the baseline the same readings are a loss: named so, as positive amounts.
    const bool loss = s.uplift.targetMfu < s.uplift.baselineMfu;
    chart.setTitle(
        (loss ? QStringLiteral("Loss from %1% down to %2% MFU") : QStringLiteral("Savings from %1% to %2% MFU"))
            .arg(s.uplift.baselineMfu * 100, 0, 'f', 0)
            .arg(s.uplift.targetMfu * 100, 0, 'f', 0));
    const QStringList names { QStringLiteral("Cost at baseline"), QStringLiteral("Cost at target"),
        loss ? QStringLiteral("Extra cost (same tokens)") : QStringLiteral("Saved (same tokens)"),
        loss ? QStringLiteral("Lost (same GPU-hours)") : QStringLiteral("Recovered (same GPU-hours)") };
    const double sign = loss ? -1.0 : 1.0;
    const QVector<double> y { s.fixedWork.baseline.costUsd / 1e3, s.fixedWork.target.costUsd / 1e3,
        sign * s.fixedWork.costSavedUsd / 1e3, sign * s.fixedBudget.recoveredValueUsd / 1e3 };
    chart.setCategories(names);
    chart.setXAxis(QStringLiteral("Reading"), {});
    chart.setYAxis(QStringLiteral("Dollars"), QStringLiteral("k$"));
    chart.addBars(QStringLiteral("Dollars"), indices(int(y.size())), y);
    chart.setCategoryLabelsTilted(true);
    chart.rescale();
}

void fillHardwareCost(ChartView& chart, const HardwareComparison& comparison)
{
    fillHardware(chart, comparison, QStringLiteral("Cost of the same job by GPU"), QStringLiteral("Cost"),
        QStringLiteral("k$"), [](const JobCost& j) { return j.costUsd / 1e3; });
}

void fillHardwareDays(ChartView& chart, const HardwareComparison& comparison)
{
    fillHardware(chart, comparison, QStringLiteral("Days to train the same job by GPU"), QStringLiteral("Wall-clock"),
        QStringLiteral("days"), [](const JobCost& j) { return j.wallClockDays(); });
}

} // namespace mfu::widgets
