#include "widgets/trace/trace_charts.h"

#include <QLocale>

#include <map>
#include <set>

#include "core/trace/kernel_category.h"
#include "widgets/charts/chart_view.h"
#include "widgets/number_text.h"

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
    // Short enough for a half-width chart: the verdict sentence is beside the chart, the shares in the bars.
    QString title = QObject::tr("Baseline vs this run");
    const std::string faster = comparison.faster();
    if (faster == "optimised")
        title += QObject::tr(": %1 ms → %2 ms, %3× faster")
                     .arg(locale.toString(comparison.baselineStepSeconds * 1e3, 'f', 3),
                         locale.toString(comparison.optimisedStepSeconds * 1e3, 'f', 3),
                         locale.toString(comparison.speedup, 'f', 2));
    else if (faster == "baseline")
        title += QObject::tr(": %1 ms → %2 ms, %3× slower")
                     .arg(locale.toString(comparison.baselineStepSeconds * 1e3, 'f', 3),
                         locale.toString(comparison.optimisedStepSeconds * 1e3, 'f', 3),
                         locale.toString(1 / comparison.speedup, 'f', 2));
    else if (faster == "same")
        title += QObject::tr(": the same step time");
    chart->setTitle(title);
    chart->setXAxis(QObject::tr("Run"), {});
    chart->setYAxis(QObject::tr("Share of step"), QStringLiteral("%"));
    QString baseline = QObject::tr("Baseline");
    QString current = QObject::tr("This run");
    if (comparison.gpusDiffer()) {
        baseline += QStringLiteral(" (%1)").arg(QString::fromStdString(*comparison.baselineGpu));
        current += QStringLiteral(" (%1)").arg(QString::fromStdString(*comparison.optimisedGpu));
    }
    chart->setCategories({ baseline, current });
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

namespace {

QString precisionLabel(const std::optional<trace::GemmPrecision>& p)
{
    return p ? QString::fromStdString(p->label()) : QObject::tr("no matrix precision");
}

} // namespace

void fillRooflineChart(ChartView* chart, const trace::Roofline& roof, const QString& gpuName)
{
    chart->clearSeries();
    chart->setTitle(gpuName.isEmpty() ? QObject::tr("Roofline (the trace names no GPU: no roofs)")
                                      : QObject::tr("Roofline on %1").arg(gpuName));
    chart->setXAxis(QObject::tr("Arithmetic intensity"), QObject::tr("FLOP/byte"));
    chart->setYAxis(QObject::tr("Achieved"), QStringLiteral("TFLOPS"));
    chart->setLogX(true, 10);
    chart->setLogY(true);
    double lo = 1e300, hi = 0, longest = 0, total = 0;
    for (const auto& m : roof.marks) {
        lo = std::min(lo, m.intensity());
        hi = std::max(hi, m.intensity());
        total += static_cast<double>(m.ns);
        longest = std::max(longest, static_cast<double>(m.ns));
    }
    for (const auto& c : roof.ceilings)
        hi = std::max(hi, c.ridgeIntensity);
    if (roof.marks.empty()) {
        lo = 0.1;
        hi = std::max(hi, 1000.0);
    }
    lo /= 3;
    hi *= 3;
    for (const auto& c : roof.ceilings) {
        QVector<double> x { lo }, y;
        if (c.ridgeIntensity > lo && c.ridgeIntensity < hi)
            x << c.ridgeIntensity;
        x << hi;
        for (double v : x)
            y << (roof.hbmBytesPerSecond > 0 ? std::min(c.peakFlops, v * roof.hbmBytesPerSecond) : c.peakFlops) / 1e12;
        const QString name = QObject::tr("%1 roof: %2 TFLOPS%3")
                                 .arg(QString::fromStdString(c.label), tflopsText(c.peakFlops),
                                     c.fallback ? QObject::tr(" (another format's peak)") : QString());
        // In the text's colour, each roof its own dash: the palette's first colour is GEMM's blue, and a roof
        // drawn in it read as one more GEMM kernel (one colour, one meaning).
        const int index = chart->addLine(name, x, y, QStringLiteral("TFLOPS"));
        chart->setSeriesInTextColour(index);
    }
    // Marks by category and size: three sizes by their share of the marks' time, one legend entry per category.
    struct Group {
        QVector<double> x, y;
        QStringList labels;
    };
    std::map<std::pair<int, int>, Group> groups;
    for (const auto& m : roof.marks) {
        const double share = total > 0 ? static_cast<double>(m.ns) / total : 0;
        const int size = share >= 0.10 ? 2 : share >= 0.02 ? 1 : 0;
        Group& g = groups[{ static_cast<int>(m.category), size }];
        g.x << m.intensity();
        g.y << m.tflops();
        g.labels << QObject::tr("%1 %2 (%3): %n call(s), %4 ms", nullptr, static_cast<int>(m.calls))
                        .arg(QString::fromStdString(m.op), QString::fromStdString(m.shapes),
                            precisionLabel(m.precision), QLocale().toString(static_cast<double>(m.ns) / 1e6, 'f', 3));
    }
    std::set<int> listed;
    constexpr double kSizes[] = { 6, 10, 15 };
    for (auto it = groups.rbegin(); it != groups.rend(); ++it) {
        const auto category = static_cast<trace::KernelCategory>(it->first.first);
        const bool first = listed.insert(it->first.first).second;
        const int index = chart->addLabelledScatter(categoryLabel(trace::categoryKey(category)), it->second.x,
            it->second.y, it->second.labels, kSizes[it->first.second], first);
        chart->setSeriesColour(index, categoryColour(category));
    }
    chart->rescale();
}

QColor pathShareColour(trace::PathShare share)
{
    switch (share) {
    case trace::PathShare::GpuCompute:
        // All computation together, in a dark blue of its own: GEMM's blue means "GEMM" on every other chart, and
        // the table below colours each kernel by its category.
        return QColor(0x22, 0x55, 0x88);
    case trace::PathShare::Communication:
        return categoryColour(KernelCategory::CommAllReduce);
    case trace::PathShare::Memory:
        return categoryColour(KernelCategory::Memcpy);
    case trace::PathShare::LaunchHost:
        return QColor(0x8c, 0x56, 0x4b); // brown: neither a GPU category's hue nor idle's grey
    case trace::PathShare::Idle:
        return idleColour();
    }
    return idleColour();
}

void fillCriticalPathChart(ChartView* chart, const trace::CriticalPath& path)
{
    chart->clearSeries();
    chart->setTitle(QObject::tr("What bounded each step (its critical path)"));
    chart->setXAxis(QObject::tr("Step"), {});
    chart->setYAxis(QObject::tr("Share of step"), QStringLiteral("%"));
    QStringList names;
    QVector<double> x;
    for (size_t i = 0; i < path.steps.size(); ++i) {
        names << QStringLiteral("#%1").arg(path.steps[i].step);
        x << static_cast<double>(i);
    }
    chart->setCategories(names);
    int below = -1;
    for (int k = 0; k < trace::kPathShareCount; ++k) {
        const auto share = static_cast<trace::PathShare>(k);
        QVector<double> y;
        bool any = false;
        for (const auto& s : path.steps) {
            y << 100 * s.share(share);
            any = any || s.shareNs[static_cast<size_t>(k)] > 0;
        }
        if (!any)
            continue;
        const std::string_view label = trace::pathShareLabel(share);
        below = chart->addBars(QString::fromUtf8(label.data(), static_cast<qsizetype>(label.size())), x, y, below);
        chart->setSeriesColour(below, pathShareColour(share));
    }
    chart->rescale();
}

} // namespace mfu::widgets
