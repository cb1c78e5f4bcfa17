// Cross-rank views of the Trace panel on two synthetic ranks whose answers are worked out below: the straggler view
// (step-time box per rank, collective wait per rank and per collective), the busy-share heat map, the timeline with
// both ranks stacked on the absolute clock, a folder of ranks (traces, then their per-rank summaries) opened as one
// run with a progress cell per rank, and the same views on the real two-rank HTA traces when ../shared/traces has
// them. MFU_SCREENSHOT_DIR=folder saves the main window with each new view at 1280x720 and 1920x1080.
#include <QComboBox>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QSettings>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <qcustomplot.h>

#include "app/main_window.h"
#include "core/trace/analysis.h"
#include "core/trace/builtin_kernel_rules.h"
#include "core/trace/cross_rank.h"
#include "core/trace/rank_summary.h"
#include "core/trace/run_reader.h"
#include "core/trace/trace_loader.h"
#include "trace_test_support.h"
#include "widgets/charts/category_palette.h"
#include "widgets/charts/chart_view.h"
#include "widgets/scenario/scenario_model.h"
#include "widgets/trace/busy_heat_map.h"
#include "widgets/trace/rank_progress.h"
#include "widgets/trace/step_time_box_plot.h"
#include "widgets/trace/straggler_view.h"
#include "widgets/trace/timeline_view.h"
#include "widgets/trace/trace_import.h"
#include "widgets/trace/trace_panel.h"

using namespace mfu::widgets;
using trace_test::annotation;
using trace_test::kernel;
using trace_test::traceOf;

namespace {

const std::string kGemm = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_cublas";
const std::string kAllReduce = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)";

// Both ranks (times in us on each file's clock): GEMM then an all-reduce on stream 20 in each step; three steps
// annotated on the GPU, the third dropped. Rank 0: steps of 1.0 and 1.0 ms, all-reduces at 600 and 1600.
// Rank 1: its clock starts 100 us later (baseTimeNanoseconds), its second step is 1.2 ms (GEMM 700 us), its
// all-reduces at 600 and 1700 on its clock = 700 and 1800 on the shared clock.
// Collective wait: rank 1 is last at both; rank 0 waits 100 + 200 us = 0.3 ms; longest single wait 0.2 ms.
std::string rankTrace(int rank)
{
    if (rank == 0)
        return traceOf(
            { annotation("ProfilerStep#1", "0", "1000", true), annotation("ProfilerStep#2", "1000", "1000", true),
                annotation("ProfilerStep#3", "2000", "1000", true), kernel(kGemm, "0", "600"),
                kernel(kAllReduce, "600", "200", 20), kernel(kGemm, "1000", "600"),
                kernel(kAllReduce, "1600", "200", 20), kernel(kGemm, "2000", "500") },
            R"("distributedInfo": {"rank": 0, "world_size": 2}, "baseTimeNanoseconds": 0)");
    return traceOf(
        { annotation("ProfilerStep#1", "0", "1000", true), annotation("ProfilerStep#2", "1000", "1200", true),
            annotation("ProfilerStep#3", "2200", "1000", true), kernel(kGemm, "0", "600"),
            kernel(kAllReduce, "600", "200", 20), kernel(kGemm, "1000", "700"), kernel(kAllReduce, "1700", "200", 20),
            kernel(kGemm, "2200", "500") },
        R"("distributedInfo": {"rank": 1, "world_size": 2}, "baseTimeNanoseconds": 100000)");
}

bool write(const QString& path, const std::string& bytes)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return false;
    return f.write(bytes.data(), static_cast<qint64>(bytes.size())) == static_cast<qint64>(bytes.size());
}

bool imports(TracePanel& panel, const std::function<void()>& open)
{
    QSignalSpy done(&panel, &TracePanel::imported);
    open();
    return done.wait(20000) || done.count() > 0;
}

} // namespace

class TestTraceCrossRank : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_ranks; // folder of the two traces
    QString m_summaries; // folder of their summaries

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("mfu-explorer-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_trace_cross_rank"));
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        QDir(m_dir.path()).mkdir(QStringLiteral("ranks"));
        QDir(m_dir.path()).mkdir(QStringLiteral("summaries"));
        m_ranks = m_dir.filePath(QStringLiteral("ranks"));
        m_summaries = m_dir.filePath(QStringLiteral("summaries"));
        for (int r = 0; r < 2; ++r) {
            const QString trace = m_ranks + QStringLiteral("/rank%1.json").arg(r);
            QVERIFY(write(trace, rankTrace(r)));
            // The map step, as `trace FILE --summary-out` does it.
            const auto run = mfu::trace::readAndAnalyzeRun({ trace.toStdString() }, mfu::trace::builtInKernelRules());
            mfu::trace::writeRankSummary(
                (m_summaries + QStringLiteral("/rank%1.summary.json").arg(r)).toStdString(), run.ranks.at(0), {});
        }
    }

    void stragglerViewOfTwoRanks()
    {
        ScenarioModel scenario;
        TracePanel panel(&scenario);
        QVERIFY(imports(panel, [&] { panel.openRankFolder(m_ranks); }));
        QCOMPARE(panel.run()->analysis.ranks.size(), size_t(2));
        // Per-rank progress: both cells full once read.
        QCOMPARE(panel.rankProgress()->summary(), QStringLiteral("2 of 2 rank(s) read"));
        QVERIFY(panel.rankProgress()->isHidden()); // shown only while importing

        // The Ranks table's File column takes the width left (elided in the middle) and tooltips the full path; the
        // Rank combo tooltips it too.
        auto* table = panel.findChild<QTableView*>(QStringLiteral("rankTable"));
        QVERIFY(table);
        QCOMPARE(table->horizontalHeader()->sectionResizeMode(8), QHeaderView::Stretch);
        QCOMPARE(table->textElideMode(), Qt::ElideMiddle);
        const QString rank1 = m_ranks + QStringLiteral("/rank1.json");
        QCOMPARE(table->model()->index(1, 8).data(Qt::ToolTipRole).toString(), rank1);
        QComboBox* rankCombo = nullptr;
        for (auto* combo : panel.findChildren<QComboBox*>())
            if (combo->accessibleName() == QStringLiteral("Rank"))
                rankCombo = combo;
        QVERIFY(rankCombo);
        QCOMPARE(rankCombo->itemText(1), QStringLiteral("1 (rank1.json)"));
        QCOMPARE(rankCombo->itemData(1, Qt::ToolTipRole).toString(), rank1);

        StragglerView* s = panel.stragglers();
        const auto& times = s->boxPlot()->stepTimes();
        QCOMPARE(times.size(), size_t(2));
        QCOMPARE(times[0].medianSeconds, 1e-3);
        // Rank 1: steps of 1.0 and 1.2 ms: median 1.1, quartiles 1.05 and 1.15 (type 7), mean 1.1.
        QCOMPARE(qRound(times[1].medianSeconds * 1e7), 11000);
        QCOMPARE(qRound(times[1].lowerQuartileSeconds * 1e7), 10500);
        QCOMPARE(qRound(times[1].upperQuartileSeconds * 1e7), 11500);
        QCOMPARE(s->boxPlot()->boxes()->dataCount(), 2);
        QCOMPARE(s->boxPlot()->stepDots()->dataCount(), 4); // two analysed steps per rank, each a dot
        QCOMPARE(s->boxPlot()->plot()->yAxis->label(), QStringLiteral("Step time (ms)"));
        const QCPStatisticalBoxData box = *s->boxPlot()->boxes()->data()->at(1);
        QCOMPARE(qRound(box.median * 1e4), 11000); // ms on the axis
        QCOMPARE(qRound(box.maximum * 1e4), 12000);
        // The axis spans the step times (1.0 to 1.2 ms, 15% of the spread either side), not zero up.
        QCOMPARE(qRound(s->boxPlot()->plot()->yAxis->range().lower * 1e4), 9700);
        QCOMPARE(qRound(s->boxPlot()->plot()->yAxis->range().upper * 1e4), 12300);
        // Steps of 600 ms differing by 20 ms keep their spread visible; a spread nearly as large as the step, or
        // none at all, starts at zero or gets 2% of the step around it.
        QCOMPARE(StepTimeBoxPlot::spreadRange(600, 620), std::make_pair(597.0, 623.0));
        QCOMPARE(StepTimeBoxPlot::spreadRange(100, 610), std::make_pair(0.0, 686.5));
        QCOMPARE(StepTimeBoxPlot::spreadRange(500, 500), std::make_pair(498.5, 501.5));
        QCOMPARE(StepTimeBoxPlot::spreadRange(std::numeric_limits<double>::infinity(), 0), std::make_pair(0.0, 1.0));

        // Wait per rank: rank 0 waited 0.1 + 0.2 ms for rank 1, rank 1 never waited.
        const ChartData& wait = s->waitChart()->data();
        QCOMPARE(wait.categories, QStringList({ "0", "1" }));
        QCOMPARE(wait.yAxis.unit, QStringLiteral("ms"));
        QCOMPARE(wait.series.size(), 1);
        QCOMPARE(qRound(wait.series[0].y[0] * 1000), 300);
        QCOMPARE(wait.series[0].y[1], 0.0);
        // Per collective: the longest wait first, rank 1 the one waited for.
        QStandardItemModel* calls = s->collectives();
        QCOMPARE(calls->rowCount(), 2);
        QCOMPARE(calls->item(0, 0)->text(), QStringLiteral("1"));
        QCOMPARE(calls->item(0, 1)->text(), QStringLiteral("All-reduce"));
        QCOMPARE(calls->item(0, 2)->text(), QStringLiteral("rank 1"));
        QCOMPARE(calls->item(0, 3)->text(), QStringLiteral("0.200"));
        QCOMPARE(calls->item(0, 4)->text(), QStringLiteral("0.100"));
        QCOMPARE(calls->item(1, 3)->text(), QStringLiteral("0.100"));
        QVERIFY2(s->summaryText().contains(QStringLiteral("Rank 1 started last most often, in 2 of them")),
            qPrintable(s->summaryText()));
        QVERIFY2(s->summaryText().contains(QStringLiteral("0.300 ms")), qPrintable(s->summaryText()));
        // The category swatch is the category's own colour.
        QCOMPARE(calls->item(0, 1)->data(Qt::DecorationRole).value<QColor>(), categoryColour("comm_allreduce"));
    }

    void busyHeatMap()
    {
        ScenarioModel scenario;
        TracePanel panel(&scenario);
        QVERIFY(imports(panel, [&] { panel.openRankFolder(m_ranks); }));
        BusyHeatMap* map = panel.busyHeatMap();
        const mfu::trace::BusyShareMatrix expected = mfu::trace::busyShareMatrix(panel.run()->analysis);
        QCOMPARE(map->matrix().ranks, expected.ranks);
        QCOMPARE(map->matrix().steps, (std::vector<int64_t> { 1, 2 }));
        QCPColorMapData* data = map->colourMap()->data();
        QCOMPARE(data->keySize(), 2);
        QCOMPARE(data->valueSize(), 2);
        // Rank 0, step 1: GEMM 600 + all-reduce 200 us busy in a 1,000 us window = 80%.
        QCOMPARE(data->cell(0, 0), 80.0);
        for (int r = 0; r < 2; ++r)
            for (int c = 0; c < 2; ++c)
                QCOMPARE(data->cell(c, r), *expected.share[static_cast<size_t>(r)][static_cast<size_t>(c)] * 100);
        // A labelled colour scale with its unit, fixed at 0-100%, and the values printed in the four cells.
        QVERIFY(map->colourScale()->axis()->label().contains(QStringLiteral("%")));
        QCOMPARE(map->colourMap()->dataRange(), QCPRange(0, 100));
        QCOMPARE(map->labelledCells(), 4);
        QCOMPARE(map->plot()->xAxis->label(), QStringLiteral("Step (ProfilerStep#)"));
        QCOMPARE(map->plot()->yAxis->label(), QStringLiteral("Rank"));
        map->plot()->resize(600, 400);
        map->plot()->replot();
        const QPointF cell(map->plot()->xAxis->coordToPixel(0), map->plot()->yAxis->coordToPixel(0));
        QVERIFY2(map->readoutAt(cell).contains(QStringLiteral("Rank 0, step #1: GPU busy 80.0%")),
            qPrintable(map->readoutAt(cell)));
    }

    // Both ranks on one clock: rank 1's all-reduce sits 100 us right of rank 0's, as the hosts' clocks have it.
    void timelineStacksRanksOnOneClock()
    {
        ScenarioModel scenario;
        TracePanel panel(&scenario);
        QVERIFY(imports(panel, [&] { panel.openRankFolder(m_ranks); }));
        TimelineView* t = panel.timeline();
        QCOMPARE(t->rankCount(), 1);
        QCOMPARE(t->laneCount(), 2);
        panel.timelineRanks()->setCurrentIndex(1);
        QCOMPARE(t->rankCount(), 2);
        QCOMPARE(t->laneCount(), 4);
        QCOMPARE(t->laneLabel(0), QStringLiteral("Rank 0 · stream 7"));
        QCOMPARE(t->laneLabel(3), QStringLiteral("Rank 1 · stream 20"));
        QCOMPARE(t->laneTrack(2), 1);
        t->resize(900, 300);
        t->setVisibleRange(550'000, 850'000);
        QVERIFY(!t->grab().isNull());
        const auto xAt = [&](int lane, double us) {
            const QRect r = t->laneRect(lane);
            return QPoint(r.left() + static_cast<int>((us - 550) / 300 * r.width()), r.center().y());
        };
        const auto rank0 = t->hitAt(xAt(1, 650));
        QVERIFY(rank0.has_value());
        QCOMPARE(rank0->track, size_t(0));
        QVERIFY(!t->hitAt(xAt(3, 650)).has_value()); // rank 1 has not started its all-reduce yet
        const auto rank1 = t->hitAt(xAt(3, 750));
        QVERIFY(rank1.has_value());
        QCOMPARE(rank1->track, size_t(1));
        QCOMPARE(panel.run()->timelines[1].activities[rank1->activity].startNs, 600'000); // its own clock
        // Selecting rank 1 puts it first (its steps label the band).
        panel.setSelectedRank(1);
        QCOMPARE(t->laneLabel(0), QStringLiteral("Rank 1 · stream 7"));
    }

    // PyTorch 2.11 writes each ProfilerStep twice, the GPU copy 0 ms long: the band drew those and was empty. It now
    // shows the steps the analysis times, the loop's three steps of about 381 ms (the traces' README: 378.9 ms timed
    // outside the profiler).
    void timelineBandsArePyTorch211sSteps()
    {
        const std::string path = MFU_SHARED_TRACES_DIR "/pytorch211__h200__qwen3-0.6b-shape_compiled_s4096_mb8.json.gz";
        if (!QFile::exists(QString::fromStdString(path)))
            QSKIP("the PyTorch 2.11 trace is not in shared/traces in this checkout");
        std::vector<mfu::trace::Timeline> timelines;
        timelines.push_back(mfu::trace::loadTrace(path));
        const mfu::trace::RunAnalysis run = mfu::trace::analyzeRun(timelines, mfu::trace::builtInKernelRules());
        std::vector<mfu::trace::Step> steps;
        for (const auto& f : run.ranks[0].steps)
            steps.push_back(f.step);
        TimelineView view;
        view.setTimeline(std::make_shared<const mfu::trace::Timeline>(std::move(timelines[0])), steps);
        QCOMPARE(view.stepCount(), 3);
        for (int i = 0; i < view.stepCount(); ++i)
            QVERIFY2(view.stepDurationNs(i) > 340'000'000 && view.stepDurationNs(i) < 420'000'000,
                qPrintable(QString::number(view.stepDurationNs(i))));
    }

    // Many lanes shrink to fit, then scroll.
    void timelineLanesShrinkThenScroll()
    {
        std::vector<std::shared_ptr<mfu::trace::Timeline>> kept;
        std::vector<TimelineView::RankTimeline> ranks;
        for (int r = 0; r < 16; ++r) {
            auto t = std::make_shared<mfu::trace::Timeline>(trace_test::read(rankTrace(r % 2)));
            kept.push_back(t);
            ranks.push_back({ r, t, {} }); // no steps: lanes only
        }
        TimelineView view;
        view.resize(900, 400);
        view.setRankTimelines(ranks);
        QCOMPARE(view.laneCount(), 32);
        QVERIFY(view.laneHeight() < 22);
        view.resize(900, 250);
        QVERIFY(view.laneRect(31).bottom() > 250); // past the bottom: the lanes scroll
        QVERIFY(!view.grab().isNull());
    }

    // The category legend wraps to the width instead of cutting its last entries off (1280x720 cut "Other" and
    // "Idle"); the lanes give up the height it takes.
    void timelineLegendWrapsToTheWidth()
    {
        auto t = std::make_shared<mfu::trace::Timeline>(trace_test::read(rankTrace(0)));
        mfu::trace::classifyActivities(*t, mfu::trace::builtInKernelRules()); // GEMM and all-reduce
        TimelineView view;
        view.resize(2000, 400);
        view.show(); // a hidden widget gets its resize events only once shown: the legend is laid out on resize
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setTimeline(t);
        const auto wide = view.legendLayout();
        QVERIFY2(wide.size() >= 2, "the synthetic rank has several kernel categories");
        for (const auto& e : wide)
            QCOMPARE(e.rect.top(), 0); // one row
        const int oneRow = view.legendHeight();
        const int lastRight = wide.back().rect.right();
        view.resize(lastRight, 400); // the last entry no longer fits the row (8 px of margin)
        const auto narrow = view.legendLayout();
        QCOMPARE(narrow.size(), wide.size());
        QVERIFY(view.legendHeight() > oneRow);
        for (const auto& e : narrow)
            QVERIFY2(e.rect.right() < view.width(), qPrintable(e.label));
        QVERIFY(view.laneRect(0).bottom() < view.height() - view.legendHeight());
    }

    void folderOfSummariesOpensAsOneRun()
    {
        ScenarioModel scenario;
        TracePanel panel(&scenario);
        QVERIFY(imports(panel, [&] { panel.openRankFolder(m_summaries); }));
        QVERIFY(panel.run()->fromSummaries);
        QCOMPARE(panel.run()->analysis.ranks.size(), size_t(2));
        QCOMPARE(panel.rankTable()->rowCount(), 2);
        // Same cross-rank figures as from the traces; no timeline (a summary holds none), said so.
        QCOMPARE(panel.stragglers()->collectives()->rowCount(), 2);
        QCOMPARE(panel.stragglers()->collectives()->item(0, 2)->text(), QStringLiteral("rank 1"));
        QCOMPARE(panel.busyHeatMap()->matrix().steps.size(), size_t(2));
        QCOMPARE(panel.timeline()->laneCount(), 0);
        QVERIFY(panel.timeline()->grab().width() > 0);

        // A folder of both kinds is refused, naming the folder; the run shown stays.
        const auto before = panel.run();
        QTemporaryDir mixed;
        QVERIFY(QFile::copy(m_ranks + QStringLiteral("/rank0.json"), mixed.filePath(QStringLiteral("rank0.json"))));
        QVERIFY(QFile::copy(
            m_summaries + QStringLiteral("/rank1.summary.json"), mixed.filePath(QStringLiteral("rank1.summary.json"))));
        QSignalSpy failed(&panel, &TracePanel::importFailed);
        panel.openRankFolder(mixed.path());
        QCOMPARE(failed.count(), 1);
        QVERIFY2(panel.errorText().contains(QStringLiteral("both")), qPrintable(panel.errorText()));
        QCOMPARE(panel.run(), before);
    }

    // Cancel in a folder of big ranks keeps the run shown before.
    void cancelAFolderKeepsThePreviousRun()
    {
        QTemporaryDir big;
        std::vector<std::string> events { annotation("ProfilerStep#1", "0", "100000000", true) };
        for (int i = 0; i < 60000; ++i)
            events.push_back(kernel(kGemm + "_" + std::to_string(i % 50), std::to_string(i * 10), "5"));
        const std::string bytes = trace_test::gzip(traceOf(events));
        for (int r = 0; r < 4; ++r)
            QVERIFY(write(big.filePath(QStringLiteral("rank%1.json.gz").arg(r)), bytes));
        ScenarioModel scenario;
        TracePanel panel(&scenario);
        QVERIFY(imports(panel, [&] { panel.openRankFolder(m_ranks); }));
        const auto before = panel.run();
        QSignalSpy imported(&panel, &TracePanel::imported);
        panel.openRankFolder(big.path());
        QVERIFY(panel.isImporting());
        QVERIFY(panel.rankProgress()->isActive());
        QVERIFY(panel.rankProgress()->summary().endsWith(QStringLiteral("of 4 rank(s) read")));
        panel.cancelImport();
        QTRY_VERIFY(!panel.isImporting());
        QCOMPARE(imported.count(), 0);
        QCOMPARE(panel.run(), before);
    }

    void fileMenuOpensAFolderOfRanks()
    {
        mfu::app::MainWindow w;
        QAction* action = nullptr;
        for (QAction* a : w.menuBar()->actions().first()->menu()->actions())
            if (a->text() == QStringLiteral("Open &Folder of Ranks..."))
                action = a;
        QVERIFY(action);
    }

    void realTwoRankRun()
    {
        const QString dir = QStringLiteral(MFU_SHARED_TRACES_DIR);
        const QStringList names { QStringLiteral("hta__trace_filter__sampled_rank-0.json.gz"),
            QStringLiteral("hta__trace_filter__sampled_rank-1.json.gz") };
        if (!QFileInfo::exists(dir + QLatin1Char('/') + names[0]))
            QSKIP("real traces not present (../shared/traces); the synthetic ranks cover the views");
        // The two ranks of one job as a folder (links: the shared files stay where they are).
        QTemporaryDir folder;
        for (const QString& n : names)
            QVERIFY(QFile::link(dir + QLatin1Char('/') + n, folder.filePath(n)));
        mfu::app::MainWindow w;
        w.resize(1280, 720);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* panel = w.findChild<TracePanel*>();
        w.panels()->setCurrentWidget(panel);
        QVERIFY(imports(*panel, [&] { panel->openRankFolder(folder.path()); }));
        const auto& run = panel->run()->analysis;
        QCOMPARE(run.ranks.size(), size_t(2));
        QCOMPARE(panel->stragglers()->boxPlot()->boxes()->dataCount(), 2);
        QCOMPARE(panel->busyHeatMap()->matrix().ranks.size(), size_t(2));
        QVERIFY(!panel->busyHeatMap()->matrix().steps.empty());
        const auto waits = mfu::trace::collectiveWaits(run);
        QCOMPARE(panel->stragglers()->collectives()->rowCount(), static_cast<int>(waits.collectives.size()));
        panel->timelineRanks()->setCurrentIndex(1);
        QCOMPARE(panel->timeline()->rankCount(), 2);

        const QString shots = qEnvironmentVariable("MFU_SCREENSHOT_DIR");
        if (shots.isEmpty())
            return;
        for (const QSize size : { QSize(1280, 720), QSize(1920, 1080) }) {
            w.resize(size);
            for (QWidget* tab :
                { panel->timelineTab(), panel->viewTab(panel->stragglers()), panel->viewTab(panel->busyHeatMap()) }) {
                panel->views()->setCurrentWidget(tab);
                QTest::qWait(150);
                for (auto* plot : panel->findChildren<QCustomPlot*>())
                    plot->replot();
                QVERIFY(w.grab().save(shots
                    + QStringLiteral("/cross_rank_%1_%2x%3.png")
                          .arg(panel->views()
                                   ->tabText(panel->views()->currentIndex())
                                   .toLower()
                                   .replace(QLatin1Char(' '), QLatin1Char('_')))
                          .arg(size.width())
                          .arg(size.height())));
            }
        }
    }
};

QTEST_MAIN(TestTraceCrossRank)
#include "tst_cross_rank.moc"
