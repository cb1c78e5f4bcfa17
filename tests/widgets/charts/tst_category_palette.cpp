// One colour per kernel category in every view: no two categories (Idle included) share a colour; compute is
// cool, communication warm, memory grey, Idle light; the breakdown chart, the comparison chart, the top-kernels
// table and the timeline's palette give a category the same colour whatever else the chart holds (colour does not
// follow legend position).
#include <QtTest>

#include <qcustomplot.h>

#include "core/trace/comparison.h"
#include "widgets/charts/category_palette.h"
#include "widgets/charts/chart_view.h"
#include "widgets/trace/top_kernels_model.h"
#include "widgets/trace/trace_charts.h"

using namespace mfu;
using namespace mfu::widgets;
using trace::KernelCategory;

namespace {

std::vector<std::string> allKeys()
{
    std::vector<std::string> keys;
    for (int c = 0; c < trace::kKernelCategoryCount; ++c)
        keys.emplace_back(trace::categoryKey(static_cast<KernelCategory>(c)));
    keys.emplace_back("idle");
    return keys;
}

// The category key whose label names a chart series ("GEMM" or "GEMM +1.0 pp").
std::string keyOfSeries(const QString& name)
{
    std::string best;
    int bestLength = -1;
    for (const std::string& k : allKeys()) {
        const QString label = categoryLabel(k);
        if ((name == label || name.startsWith(label + QLatin1Char(' '))) && label.size() > bestLength) {
            best = k;
            bestLength = static_cast<int>(label.size());
        }
    }
    return best;
}

// A rank whose two steps spend time in the given categories (and idle).
trace::RankAnalysis rankWith(const std::vector<KernelCategory>& categories)
{
    trace::RankAnalysis r;
    for (int i = 0; i < 2; ++i) {
        trace::StepFigures s;
        s.step.number = i;
        s.breakdown.spanNs = 1'000'000;
        for (KernelCategory c : categories) {
            s.breakdown.exclusiveNs[static_cast<size_t>(c)] = 50'000;
            s.breakdown.busyNs += 50'000;
        }
        r.steps.push_back(s);
    }
    return r;
}

QColor barColour(ChartView* chart, int index)
{
    auto* bars = qobject_cast<QCPBars*>(chart->plot()->plottable(index));
    return bars ? bars->brush().color() : QColor();
}

int hue(const QColor& c)
{
    return c.toHsv().hue();
}

} // namespace

class TestCategoryPalette : public QObject {
    Q_OBJECT
private slots:
    void everyCategoryHasItsOwnColour()
    {
        const auto keys = allKeys();
        QCOMPARE(keys.size(), size_t(trace::kKernelCategoryCount + 1));
        for (size_t i = 0; i < keys.size(); ++i)
            for (size_t j = i + 1; j < keys.size(); ++j) {
                const QColor a = categoryColour(keys[i]);
                const QColor b = categoryColour(keys[j]);
                // Not just different bits: at least 40 apart in some RGB channel, so they read apart on screen.
                const int distance = std::max(
                    { std::abs(a.red() - b.red()), std::abs(a.green() - b.green()), std::abs(a.blue() - b.blue()) });
                QVERIFY2(distance >= 40,
                    qPrintable(QStringLiteral("%1 and %2 look alike")
                                   .arg(QString::fromStdString(keys[i]), QString::fromStdString(keys[j]))));
            }
    }

    // The critical path's "GPU compute" is every computation kernel at once: a colour of its own, apart from each
    // category's (it had been GEMM's blue, which means GEMM on every other chart).
    void gpuComputeShareHasItsOwnColour()
    {
        const QColor compute = pathShareColour(trace::PathShare::GpuCompute);
        for (const std::string& k : allKeys()) {
            const QColor c = categoryColour(k);
            const int distance = std::max({ std::abs(compute.red() - c.red()), std::abs(compute.green() - c.green()),
                std::abs(compute.blue() - c.blue()) });
            QVERIFY2(distance >= 40, k.c_str());
        }
    }

    void familiesReadAtAGlance()
    {
        for (const std::string& k : allKeys()) {
            const QColor c = categoryColour(k);
            const KernelCategory cat = [&] {
                for (int i = 0; i < trace::kKernelCategoryCount; ++i)
                    if (trace::categoryKey(static_cast<KernelCategory>(i)) == k)
                        return static_cast<KernelCategory>(i);
                return KernelCategory::Other;
            }();
            if (k == "idle") {
                QVERIFY(c.toHsv().saturation() < 20 && c.lightness() > 200); // light neutral
            } else if (k.rfind("comm_", 0) == 0) {
                QVERIFY2(hue(c) <= 60 || hue(c) >= 300, k.c_str()); // warm: red, orange, amber, magenta
            } else if (k == "memcpy" || k == "memset") {
                QVERIFY2(c.toHsv().saturation() < 20 && c.lightness() < 200, k.c_str()); // greys
            } else if (cat != KernelCategory::Other) {
                QVERIFY2(hue(c) >= 120 && hue(c) < 300, k.c_str()); // cool: green to violet
            }
        }
    }

    void breakdownChartUsesTheCategoryColour()
    {
        // Two charts with different sets of categories: the same category keeps its colour, whatever its position.
        ChartView a;
        fillStepChart(&a, rankWith({ KernelCategory::Gemm, KernelCategory::Memset, KernelCategory::Elementwise }),
            BreakdownUnit::Share);
        ChartView b;
        fillStepChart(&b,
            rankWith({ KernelCategory::Normalization, KernelCategory::Elementwise, KernelCategory::Other }),
            BreakdownUnit::Share);
        for (ChartView* chart : { &a, &b }) {
            QCOMPARE(chart->data().series.size(), 4); // three categories and idle
            for (int i = 0; i < chart->data().series.size(); ++i) {
                const std::string key = keyOfSeries(chart->data().series[i].name);
                QVERIFY(!key.empty());
                QCOMPARE(barColour(chart, i), categoryColour(key));
            }
        }
    }

    void comparisonChartUsesTheCategoryColour()
    {
        trace::RunComparison comparison;
        comparison.categories
            = { { "gemm", 0.5, 0.6, 0, 0 }, { "comm_allreduce", 0.2, 0.1, 0, 0 }, { "idle", 0.3, 0.3, 0, 0 } };
        ChartView chart;
        fillComparisonChart(&chart, comparison);
        QCOMPARE(chart.data().series.size(), 3);
        for (int i = 0; i < 3; ++i)
            QCOMPARE(barColour(&chart, i), categoryColour(keyOfSeries(chart.data().series[i].name)));
        QCOMPARE(barColour(&chart, 2), idleColour());
    }

    void colourSurvivesThePaletteChange()
    {
        ChartView chart;
        fillStepChart(&chart, rankWith({ KernelCategory::Gemm }), BreakdownUnit::Share);
        QPalette dark;
        dark.setColor(QPalette::Window, QColor(30, 30, 30));
        dark.setColor(QPalette::Base, QColor(20, 20, 20));
        dark.setColor(QPalette::Text, Qt::white);
        dark.setColor(QPalette::WindowText, Qt::white);
        chart.setPalette(dark);
        QCoreApplication::processEvents();
        QCOMPARE(barColour(&chart, 0), categoryColour(KernelCategory::Gemm));
    }

    void topKernelsShowTheSwatch()
    {
        TopKernelsModel model;
        trace::KernelStat gemm;
        gemm.name = "sm90_xmma_gemm";
        gemm.category = KernelCategory::Gemm;
        trace::KernelStat nccl;
        nccl.name = "ncclKernel_AllReduce";
        nccl.category = KernelCategory::CommAllReduce;
        model.setKernels({ gemm, nccl });
        QCOMPARE(model.data(model.index(0, TopKernelsModel::Category), Qt::DecorationRole).value<QColor>(),
            categoryColour(KernelCategory::Gemm));
        QCOMPARE(model.data(model.index(1, TopKernelsModel::Category), Qt::DecorationRole).value<QColor>(),
            categoryColour("comm_allreduce"));
    }
};

QTEST_MAIN(TestCategoryPalette)
#include "tst_category_palette.moc"
