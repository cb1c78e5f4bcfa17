#include "widgets/trace/trace_charts.h"

#include <QLocale>

#include "core/trace/kernel_category.h"
#include "widgets/charts/chart_view.h"

namespace mfu::widgets {

using trace::KernelCategory;

QString categoryLabel(std::string_view key)
{
    if (key == "idle")
        return QStringLiteral("Idle");
    if (const auto category = trace::categoryFromKey(key)) {
        const std::string_view label = trace::categoryLabel(*category); // one name everywhere (core)
        return QString::fromUtf8(label.data(), static_cast<qsizetype>(label.size()));
    }
    return QString::fromUtf8(key.data(), static_cast<qsizetype>(key.size()));
}

void fillStepChart(ChartView* chart, const trace::RankAnalysis& rank, BreakdownUnit unit)
{
    chart->clearSeries();
    const bool share = unit == BreakdownUnit::Share;
    chart->setTitle(QObject::tr("Step time by kernel category, rank %1").arg(rank.rank));
    chart->setXAxis(rank.stepSource == trace::StepSource::WholeTrace ? QObject::tr("Whole trace (no ProfilerStep)")
            : rank.stepSource == trace::StepSource::Inferred ? QObject::tr("Step (inferred from the kernel sequence)")
                                                             : QObject::tr("Step (ProfilerStep#)"),
        {});
    chart->setYAxis(share ? QObject::tr("Share of step") : QObject::tr("Time per step"),
        share ? QStringLiteral("%") : QStringLiteral("ms"));
    QStringList names;
    QVector<double> x;
    for (size_t i = 0; i < rank.steps.size(); ++i) {
        names << QStringLiteral("#%1").arg(rank.steps[i].step.number);
        x << static_cast<double>(i);
    }
    chart->setCategories(names);
    auto value = [&](const trace::Breakdown& b, int64_t ns) {
        return share ? 100.0 * b.share(ns) : static_cast<double>(ns) / 1e6;
    };
    int below = -1;
    for (int c = 0; c <= trace::kKernelCategoryCount; ++c) {
        const bool idle = c == trace::kKernelCategoryCount; // idle last: the top of every bar
        QVector<double> y;
        bool any = false;
        for (const auto& s : rank.steps) {
            const int64_t ns = idle ? s.breakdown.idleNs() : s.breakdown.exclusiveNs[static_cast<size_t>(c)];
            any = any || ns > 0;
            y << value(s.breakdown, ns);
        }
        if (!any)
            continue;
        const QString name
            = idle ? categoryLabel("idle") : categoryLabel(trace::categoryKey(static_cast<KernelCategory>(c)));
        below = chart->addBars(name, x, y, below);
        chart->setSeriesColour(below, idle ? idleColour() : categoryColour(static_cast<KernelCategory>(c)));
    }
    chart->rescale();
}

void fillComparisonChart(ChartView* chart, const trace::RunComparison& comparison)
{
    chart->clearSeries();
    const QLocale locale;
    // Short enough for a half-width chart: the shares themselves are in the bars and the hover read-out.
    QString title = QObject::tr("Baseline vs optimised");
    if (comparison.speedup > 0)
        title += QObject::tr(": step %1 → %2 ms (%3×)")
                     .arg(locale.toString(comparison.baselineStepSeconds * 1e3, 'f', 3),
                         locale.toString(comparison.optimisedStepSeconds * 1e3, 'f', 3),
                         locale.toString(comparison.speedup, 'f', 2));
    chart->setTitle(title);
    chart->setXAxis(QObject::tr("Run"), {});
    chart->setYAxis(QObject::tr("Share of step"), QStringLiteral("%"));
    chart->setCategories({ QObject::tr("Baseline"), QObject::tr("Optimised") });
    int below = -1;
    for (const auto& c : comparison.categories) {
        if (c.baselineShare <= 0 && c.optimisedShare <= 0)
            continue;
        const double deltaPp = c.deltaShare() * 100;
        const QString name = QStringLiteral("%1 %2%3 pp")
                                 .arg(categoryLabel(c.key), deltaPp >= 0 ? QStringLiteral("+") : QString(),
                                     locale.toString(deltaPp, 'f', 1));
        below = chart->addBars(name, { 0, 1 }, { 100 * c.baselineShare, 100 * c.optimisedShare }, below);
        chart->setSeriesColour(below, categoryColour(c.key));
    }
    chart->rescale();
}

} // namespace mfu::widgets
