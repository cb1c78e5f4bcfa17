// Trace panel: imports a small synthetic Kineto trace (exact figures known by construction) off the GUI thread and
// shows its steps, categories, overlap, idle, kernels and timeline; compares with a baseline; keeps the previous
// run when an import is cancelled or fails (the error names the file and byte); reads the real shared traces when
// present. MFU_SCREENSHOT_DIR=folder saves the main window with the Trace tab on a real trace.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QThread>
#include <QThreadPool>
#include <QTranslator>
#include <QtTest>

#include <atomic>

#include <qcustomplot.h>
#include <sqlite3.h>

#include "app/main_window.h"
#include "app/preset_store.h"
#include "core/number_format.h"
#include "core/trace/comparison.h"
#include "trace_test_support.h"
#include "widgets/charts/category_palette.h"
#include "widgets/charts/chart_view.h"
#include "widgets/jobs/background_job.h"
#include "widgets/scenario/scenario_model.h"
#include "widgets/trace/kernel_diff_model.h"
#include "widgets/trace/timeline_view.h"
#include "widgets/trace/top_kernels_model.h"
#include "widgets/trace/trace_import.h"
#include "widgets/trace/trace_panel.h"
#include "widgets/trace/training_log_view.h"

using namespace mfu::widgets;
using trace_test::annotation;
using trace_test::kernel;
using trace_test::traceOf;

namespace {

const std::string kGemm = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_cublas";
const std::string kElementwise = "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>";
const std::string kAllReduce = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)";

// Three 1 ms steps annotated on the GPU stream; the third is dropped (the profiler stops inside the last step).
// Step 1: GEMM 0.6 ms, elementwise 0.2 ms, idle 0.2 ms.
// Step 2: GEMM 0.6 ms; all-reduce 0.4 ms on another stream, 0.2 ms of it under the GEMM (overlap 50%), exposed
//         0.2 ms; elementwise 0.1 ms; idle 0.1 ms.
std::string syntheticTrace(const std::string& gemmDurStep1 = "600", const std::string& elemDurStep1 = "200")
{
    return traceOf(
        { annotation("ProfilerStep#1", "0", "1000", true), annotation("ProfilerStep#2", "1000", "1000", true),
            annotation("ProfilerStep#3", "2000", "1000", true), kernel(kGemm, "0", gemmDurStep1),
            kernel(kElementwise, "600", elemDurStep1), kernel(kGemm, "1000", "600"),
            kernel(kAllReduce, "1400", "400", 20), kernel(kElementwise, "1800", "100"), kernel(kGemm, "2000", "500") },
        R"("deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}])");
}

QString label(const QWidget& w, const char* name)
{
    auto* l = w.findChild<QLabel*>(QLatin1String(name));
    return l ? l->text() : QStringLiteral("<no label %1>").arg(QLatin1String(name));
}

const ChartSeries* seriesNamed(const ChartData& data, const QString& prefix)
{
    for (const auto& s : data.series)
        if (s.name.startsWith(prefix))
            return &s;
    return nullptr;
}

} // namespace

class TestTracePanel : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_trace;
    QString m_baseline;
    QString m_big;

    QString write(const QString& name, const std::string& bytes)
    {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            return {};
        f.write(bytes.data(), static_cast<qint64>(bytes.size()));
        return path;
    }

    static bool imports(TracePanel& panel, const QStringList& paths, bool baseline = false)
    {
        QSignalSpy done(&panel, &TracePanel::imported);
        baseline ? panel.openBaseline(paths) : panel.openTraces(paths);
        return done.wait(20000) || done.count() > 0;
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // the main window's recent files go to a test location
        QCoreApplication::setOrganizationName(QStringLiteral("mfu-explorer-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_trace_panel"));
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        m_trace = write(QStringLiteral("optimised.json"), syntheticTrace());
        m_baseline = write(QStringLiteral("baseline.json"), syntheticTrace("400", "400"));
        // Big enough (gzip, ~10 MB inflated) that cancel arrives before the reader finishes.
        std::vector<std::string> events { annotation("ProfilerStep#1", "0", "100000000", true) };
        for (int i = 0; i < 60000; ++i)
            events.push_back(kernel(kGemm + "_" + std::to_string(i % 50), std::to_string(i * 10), "5"));
        m_big = write(QStringLiteral("big.json.gz"), trace_test::gzip(traceOf(events)));
        QVERIFY(!m_trace.isEmpty() && !m_baseline.isEmpty() && !m_big.isEmpty());
    }

    void backgroundJobDeliversOnlyTheNewestResult()
    {
        BackgroundJob job;
        QList<int> delivered;
        QSignalSpy finished(&job, &BackgroundJob::finished);
        std::atomic<bool> release { false };
        job.start<int>(
            [&release](JobControl&) {
                while (!release.load())
                    QThread::msleep(1);
                return 1;
            },
            [&delivered](int& v) { delivered << v; });
        const int second = job.start<int>(
            [](JobControl& c) {
                c.setProgress(0.5);
                return 2;
            },
            [&delivered](int& v) { delivered << v; });
        QTRY_COMPARE(finished.count(), 1);
        QCOMPARE(finished.first().first().toInt(), second);
        release = true; // the first job was cancelled by the second; even returning a value it is not delivered
        QTest::qWait(50);
        QCOMPARE(delivered, QList<int> { 2 });
        QVERIFY(!job.isRunning());
    }

    void backgroundJobReportsFailureAndCancel()
    {
        BackgroundJob job;
        QSignalSpy failed(&job, &BackgroundJob::failed);
        job.start<int>([](JobControl&) -> int { throw std::runtime_error("bad.json: byte 7: expected ':'"); },
            [](int&) { QFAIL("no result expected"); });
        QTRY_COMPARE(failed.count(), 1);
        QCOMPARE(failed.first().at(1).toString(), QStringLiteral("bad.json: byte 7: expected ':'"));
        QSignalSpy cancelled(&job, &BackgroundJob::cancelled);
        job.start<int>(
            [](JobControl& c) -> int {
                while (!c.cancel.load())
                    QThread::msleep(1);
                throw std::runtime_error("cancelled");
            },
            [](int&) { QFAIL("no result expected"); });
        QVERIFY(job.isRunning());
        job.cancel();
        QTRY_COMPARE(cancelled.count(), 1);
        QVERIFY(!job.isRunning());
    }

    // With nothing open, the charts say what to open instead of drawing a scale of nothing; a trace replaces that.
    void emptyChartsSayWhatToOpen()
    {
        ScenarioModel scenario;
        TracePanel panel(&scenario);
        QVERIFY2(panel.stepChart()->emptyReason().startsWith(QStringLiteral("Open a profiler trace")),
            qPrintable(panel.stepChart()->emptyReason()));
        QVERIFY(panel.trainingLogView()->throughputChart()->emptyReason().startsWith(
            QStringLiteral("Open a training log")));
        QVERIFY(panel.trainingLogView()->mfuChart()->emptyReason().startsWith(QStringLiteral("Open a training log")));
        QVERIFY(imports(panel, { m_trace }));
        QVERIFY(panel.stepChart()->emptyReason().isEmpty());
        QVERIFY(!panel.stepChart()->data().series.isEmpty());
    }

    void showsTheSyntheticRun()
    {
        ScenarioModel scenario;
        TracePanel panel(&scenario);
        QVERIFY(imports(panel, { m_trace }));
        QVERIFY(panel.errorText().isEmpty());
        QVERIFY(!panel.isImporting());
        QVERIFY(!panel.progressBar()->isVisible());

        // Step chart: steps #1 and #2 (the third dropped), exclusive shares of each step window, stacked to 100%.
        const ChartData& steps = panel.stepChart()->data();
        QCOMPARE(steps.categories, QStringList({ "#1", "#2" }));
        QCOMPARE(steps.yAxis.unit, QStringLiteral("%"));
        QCOMPARE(steps.series.size(), 4); // GEMM, elementwise, all-reduce, idle: empty categories get no series
        const ChartSeries* gemm = seriesNamed(steps, QStringLiteral("GEMM"));
        const ChartSeries* comm = seriesNamed(steps, QStringLiteral("All-reduce"));
        const ChartSeries* idle = seriesNamed(steps, QStringLiteral("Idle"));
        const ChartSeries* elem = seriesNamed(steps, QStringLiteral("Elementwise"));
        QVERIFY(gemm && comm && idle && elem);
        QCOMPARE(gemm->y, QVector<double>({ 60, 60 }));
        QCOMPARE(elem->y, QVector<double>({ 20, 10 }));
        QCOMPARE(comm->y, QVector<double>({ 0, 20 })); // exposed part only: computation wins the overlap
        QCOMPARE(idle->y, QVector<double>({ 20, 10 }));
        QCOMPARE(idle->stackedOn, static_cast<int>(steps.series.size()) - 2);

        // Figures: per analysed step, over both steps.
        QVERIFY2(label(panel, "overlap").startsWith(QStringLiteral("50.00%")), qPrintable(label(panel, "overlap")));
        QVERIFY2(label(panel, "exposedComm").startsWith(QStringLiteral("0.100 ms per step")),
            qPrintable(label(panel, "exposedComm")));
        QVERIFY2(label(panel, "idle").startsWith(QStringLiteral("0.150 ms per step, 15.00%")),
            qPrintable(label(panel, "idle")));
        QVERIFY2(label(panel, "busy").contains(QStringLiteral("85.00%")), qPrintable(label(panel, "busy")));
        QVERIFY2(
            label(panel, "stepTime").startsWith(QStringLiteral("1.000 ms mean")), qPrintable(label(panel, "stepTime")));
        QVERIFY2(label(panel, "gpu").contains(QStringLiteral("H100")), qPrintable(label(panel, "gpu")));

        // Top kernels: three names in the analysed steps, longest first by default.
        QAbstractItemModelTester tester(panel.kernelModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(panel.kernelModel()->rowCount(), 3);
        QSortFilterProxyModel* proxy = panel.kernelProxy();
        QCOMPARE(proxy->index(0, TopKernelsModel::Name).data().toString(), QString::fromStdString(kGemm));
        QCOMPARE(proxy->index(0, TopKernelsModel::Calls).data().toString(), QStringLiteral("2"));
        QCOMPARE(proxy->index(0, TopKernelsModel::TotalMs).data().toString(), QStringLiteral("1.200"));
        QCOMPARE(proxy->index(0, TopKernelsModel::Category).data().toString(), QStringLiteral("GEMM"));
        // Sorting is numeric (raw values), not by the formatted text.
        panel.kernelView()->sortByColumn(TopKernelsModel::MeanUs, Qt::AscendingOrder);
        QCOMPARE(proxy->index(0, TopKernelsModel::MeanUs).data().toString(), QStringLiteral("150.0"));
        QCOMPARE(proxy->index(2, TopKernelsModel::MeanUs).data().toString(), QStringLiteral("600.0"));
        panel.kernelFilter()->setText(QStringLiteral("all-reduce")); // category text matches too
        QCOMPARE(proxy->rowCount(), 1);
        QVERIFY(proxy->index(0, 0).data().toString().startsWith(QStringLiteral("ncclDevKernel_AllReduce")));
        panel.kernelFilter()->clear();
        QCOMPARE(proxy->rowCount(), 3);

        // Ctrl+C copies the selection as TSV with a header line.
        panel.kernelView()->selectRow(2);
        panel.copySelectedKernels();
        const QStringList lines = QApplication::clipboard()->text().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 2);
        QVERIFY(lines[0].startsWith(QStringLiteral("Kernel\tCategory\tCalls\tTotal (ms)")));
        QCOMPARE(lines[1].split(QLatin1Char('\t')).value(TopKernelsModel::Calls), QStringLiteral("2"));

        // Timeline: one lane per stream (7 and 20), zooming down to a single kernel drawn as its own rectangle.
        TimelineView* timeline = panel.timeline();
        QCOMPARE(timeline->laneCount(), 2);
        QCOMPARE(timeline->laneLabel(0), QStringLiteral("GPU 0 stream 7"));
        timeline->resize(900, 200);
        timeline->setVisibleRange(1'000'000, 1'700'000);
        // (The panel's layout may give the timeline its own size once it is laid out: the grab is what it draws.)
        const QPixmap drawn = timeline->grab();
        QCOMPARE(drawn.size(), timeline->size());
        QVERIFY(timeline->lastRectCount() >= 2);
        QCOMPARE(timeline->stepCount(), 2); // the analysed steps: the third, cut short by the profiler, is left out
        const QRect lane = timeline->laneRect(0);
        const int x = lane.left() + lane.width() * 2 / 5; // 1.28 ms: inside the GEMM at 1.0-1.6 ms
        const auto hit = timeline->activityAt(QPoint(x, lane.center().y()));
        QVERIFY(hit.has_value());
        QCOMPARE(panel.run()->timelines[0].activities[*hit].startNs, 1'000'000);

        // Ranks: one rank, no straggler.
        QCOMPARE(panel.rankTable()->rowCount(), 1);
        QVERIFY(label(panel, "slowestRank").contains(QStringLiteral("One rank")));
    }

    // A bare parameter count: the measured MFU counts 6N, as the Calculator, the command line and the report do (it
    // used to say "not available" for the scenario's PaLM formula). 7e9 x 6 x 8,192 tokens / 1 ms / 989 TFLOPS.
    void measuredMfuOfABareModelUsesSixN()
    {
        ScenarioModel scenario;
        mfu::Scenario s = mfu::widgets::defaultScenario(mfu::app::presetLibrary());
        s.model = mfu::bareModel(7'000'000'000);
        s.cluster.hardware = *mfu::app::presetLibrary().findHardware("h100-sxm");
        s.mfuFormula = mfu::FlopFormula::PaLM;
        scenario.setScenario(s);
        TracePanel panel(&scenario);
        panel.setKnownHardware(mfu::app::presetLibrary().hardware()); // the trace's H100 is the scenario's preset
        QVERIFY(imports(panel, { m_trace }));
        // A 1 ms step is far above the peak: the figure is withheld as impossible, and named in the reason.
        const double expected = 6.0 * 7e9 * 8192 / 1e-3 / 989e12;
        QVERIFY2(label(panel, "measuredMfu").contains(QString::fromStdString(mfu::formatPercent(expected))),
            qPrintable(label(panel, "measuredMfu")));
    }

    void measuredMfuBesidePrediction()
    {
        ScenarioModel scenario; // a default-constructed scenario has no model: MFU says why instead of a number
        TracePanel panel(&scenario);
        QVERIFY(imports(panel, { m_trace }));
        QVERIFY2(label(panel, "measuredMfu").startsWith(QStringLiteral("not available")),
            qPrintable(label(panel, "measuredMfu")));
        QVERIFY2(label(panel, "predictedMfu").startsWith(QStringLiteral("not available")),
            qPrintable(label(panel, "predictedMfu")));

        mfu::app::MainWindow w; // Lambda's worked example: Llama 3.1 8B on a B200, 8,192 tokens per step, 1 GPU
        auto* inWindow = w.findChild<TracePanel*>();
        QVERIFY(inWindow);
        QVERIFY(imports(*inWindow, { m_trace }));
        // The trace ran on an H100, the scenario's GPU is a B200: no figure divided by the wrong peak. The measured
        // MFU names the GPU instead, and the banner above the figures offers the trace's GPU.
        const QString onB200 = label(*inWindow, "measuredMfu");
        QVERIFY2(onB200.startsWith(QStringLiteral("not shown")) && onB200.contains(QStringLiteral("H100")),
            qPrintable(onB200));
        QVERIFY2(!onB200.contains(QRegularExpression(QStringLiteral("\\d%"))), qPrintable(onB200));
        QVERIFY2(label(*inWindow, "factsMessage").contains(QStringLiteral("H100")),
            qPrintable(label(*inWindow, "factsMessage")));
        inWindow->findChild<QPushButton*>(QStringLiteral("useFileFacts"))->click();
        const auto& s = w.scenarioModel()->scenario();
        QCOMPARE(s.cluster.hardware.id, std::string("h100-sxm"));
        const double fpt = *mfu::countFlopsPerToken(s.model, s.workload.seqLen).get(s.mfuFormula);
        const double tokens = static_cast<double>(w.scenarioModel()->tokensPerStep());
        // 1 ms per step: MFU = FLOP/token x tokens per step / 1 ms / dense BF16 peak.
        const double expected = fpt * tokens / 1e-3 / s.cluster.hardware.densePeak(mfu::NumberFormat::BF16).value();
        const QString measured = label(*inWindow, "measuredMfu");
        // Llama 3.1 8B at 8,192 tokens on one 80 GB H100 needs about 152 GiB: no predicted MFU for a layout that
        // does not fit, as the Predict panel says.
        QVERIFY2(label(*inWindow, "predictedMfu").contains(QStringLiteral("does not fit in memory")),
            qPrintable(label(*inWindow, "predictedMfu")));
        // A 1 ms step for 8,192 tokens of an 8B model is far above any peak: the panel says the inputs disagree, in
        // the error colour, and shows no MFU figure as if it were one.
        QVERIFY(expected > 1);
        QVERIFY2(measured.startsWith(QStringLiteral("not shown: above 100% (")), qPrintable(measured));
        QVERIFY2(measured.contains(QStringLiteral("model or tokens per step")), qPrintable(measured));
        QVERIFY(inWindow->findChild<QLabel*>(QStringLiteral("measuredMfu"))
                    ->styleSheet()
                    .contains(QStringLiteral("color")));
    }

    void comparesWithABaseline()
    {
        ScenarioModel scenario;
        TracePanel panel(&scenario);
        QVERIFY(imports(panel, { m_trace }));
        QVERIFY(imports(panel, { m_baseline }, true));
        const ChartData& c = panel.comparisonChart()->data();
        QCOMPARE(c.categories, QStringList({ "Baseline", "This run" }));
        const ChartSeries* gemm = seriesNamed(c, QStringLiteral("GEMM"));
        const ChartSeries* elem = seriesNamed(c, QStringLiteral("Elementwise"));
        QVERIFY(gemm && elem);
        // Over both steps (2 ms): baseline GEMM 0.4 + 0.6 ms = 50%, optimised 1.2 ms = 60%: +10 pp.
        QCOMPARE(gemm->y, QVector<double>({ 50, 60 }));
        QVERIFY2(gemm->name.contains(QStringLiteral("+10.0 pp")), qPrintable(gemm->name));
        // Baseline elementwise 0.4 + 0.1 ms = 25%, optimised 0.3 ms = 15%.
        QCOMPARE(elem->y, QVector<double>({ 25, 15 }));
        QVERIFY2(elem->name.contains(QStringLiteral("-10.0 pp")), qPrintable(elem->name));

        // Top kernels become core's kernel diff (all ranks pooled, per analysed step: two each): GEMM 0.4 + 0.6
        // = 1.0 ms -> 0.6 + 0.6 = 1.2 ms over the two steps, 0.5 -> 0.6 ms a step (+0.1), elementwise 0.25 -> 0.15
        // ms a step (-0.1), the all-reduce unchanged; largest change first (a tie keeps core's name order).
        QSortFilterProxyModel* proxy = panel.kernelProxy();
        QCOMPARE(proxy->sourceModel(), panel.kernelDiffModel());
        QAbstractItemModelTester tester(
            panel.kernelDiffModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(proxy->rowCount(), 3);
        QCOMPARE(proxy->headerData(KernelDiffModel::ChangeMs, Qt::Horizontal).toString(),
            QStringLiteral("Change (ms/step)"));
        QCOMPARE(proxy->index(0, KernelDiffModel::Name).data().toString(), QString::fromStdString(kGemm));
        QCOMPARE(proxy->index(0, KernelDiffModel::BaselineMs).data().toString(), QStringLiteral("0.500"));
        QCOMPARE(proxy->index(0, KernelDiffModel::Ms).data().toString(), QStringLiteral("0.600"));
        QCOMPARE(proxy->index(0, KernelDiffModel::ChangeMs).data().toString(), QStringLiteral("+0.100"));
        QCOMPARE(proxy->index(1, KernelDiffModel::Name).data().toString(), QString::fromStdString(kElementwise));
        QCOMPARE(proxy->index(1, KernelDiffModel::ChangeMs).data().toString(), QStringLiteral("-0.100"));
        QCOMPARE(proxy->index(2, KernelDiffModel::ChangeMs).data().toString(), QStringLiteral("0.000"));
        QCOMPARE(proxy->index(0, KernelDiffModel::BaselineCalls).data().toString(), QStringLiteral("2"));
        QCOMPARE(proxy->index(0, KernelDiffModel::Category).data(Qt::DecorationRole).value<QColor>(),
            categoryColour("gemm"));
        QVERIFY2(
            panel.kernelTableNote().contains(QStringLiteral("all ranks pooled")), qPrintable(panel.kernelTableNote()));
        // The kernel name takes the width the numbers leave.
        QCOMPARE(
            panel.kernelView()->horizontalHeader()->sectionResizeMode(KernelDiffModel::Name), QHeaderView::Stretch);
    }

    void badFileNamesFileAndPositionAndKeepsTheRun()
    {
        ScenarioModel scenario;
        TracePanel panel(&scenario);
        QVERIFY(imports(panel, { m_trace }));
        const auto before = panel.run();
        const QString bad = write(QStringLiteral("broken.json"), R"({"traceEvents": [{"ph": "X", "ts": 1,,}]})");
        QSignalSpy failed(&panel, &TracePanel::importFailed);
        panel.openTraces({ bad });
        QTRY_COMPARE(failed.count(), 1);
        QVERIFY2(panel.errorText().contains(QStringLiteral("broken.json")), qPrintable(panel.errorText()));
        QVERIFY2(panel.errorText().contains(QStringLiteral("byte")), qPrintable(panel.errorText()));
        QCOMPARE(panel.run(), before);
        QCOMPARE(panel.stepChart()->data().categories, QStringList({ "#1", "#2" }));
        QVERIFY(!panel.isImporting());
        // Still usable: the next good import clears the error.
        QVERIFY(imports(panel, { m_baseline }));
        QVERIFY(panel.errorText().isEmpty());
    }

    void cancelKeepsThePreviousRun()
    {
        ScenarioModel scenario;
        TracePanel panel(&scenario);
        QVERIFY(imports(panel, { m_trace }));
        const auto before = panel.run();
        QSignalSpy imported(&panel, &TracePanel::imported);
        panel.openTraces({ m_big });
        QVERIFY(panel.isImporting());
        panel.cancelImport();
        QTRY_VERIFY(!panel.isImporting());
        QCOMPARE(imported.count(), 0);
        QCOMPARE(panel.run(), before);
        QCOMPARE(panel.kernelModel()->rowCount(), 3);
        QVERIFY(panel.errorText().isEmpty());
    }

    // An import the user asked for does not queue behind the sweeps and the planner (which restart on every edit and
    // can hold every thread of their pool for minutes): it runs in its own pool while that one is full.
    void importDoesNotWaitForTheSweeps()
    {
        QThreadPool* background = jobThreadPool();
        const int threads = background->maxThreadCount();
        std::atomic<bool> release { false };
        for (int i = 0; i < threads; ++i)
            background->start([&release] {
                while (!release.load())
                    QThread::msleep(5);
            });
        ScenarioModel scenario;
        TracePanel panel(&scenario);
        const bool done = imports(panel, { m_trace });
        release = true;
        QVERIFY(background->waitForDone(30000));
        QVERIFY2(done, "the import waited behind the busy background pool");
    }

    void closingThePanelMidImportIsSafe()
    {
        ScenarioModel scenario;
        auto* panel = new TracePanel(&scenario);
        panel->openTraces({ m_big });
        QVERIFY(panel->isImporting());
        delete panel; // the worker stops at its next chunk and nothing is delivered to the deleted panel
        // The reader was told to stop: the job pool drains (a reader left running would hold it for the whole file,
        // and a result delivered to the deleted panel would crash here or under ASan).
        QVERIFY(requestedJobThreadPool()->waitForDone(30000));
        QCoreApplication::processEvents(); // deliver whatever the finished job queued
        QCOMPARE(requestedJobThreadPool()->activeThreadCount(), 0);
    }

    void realTraces_data()
    {
        QTest::addColumn<QStringList>("files");
        QTest::addColumn<int>("ranks");
        const QString dir = QStringLiteral(MFU_SHARED_TRACES_DIR);
        QTest::newRow("tracelens h100") << QStringList { dir + "/tracelens__h100__qwen1.5-0.5b-chat.json.gz" } << 1;
        QTest::newRow("hta sampled pair") << QStringList { dir + "/hta__trace_filter__sampled_rank-0.json.gz",
            dir + "/hta__trace_filter__sampled_rank-1.json.gz" }
                                          << 2;
    }

    void realTraces()
    {
        QFETCH(QStringList, files);
        QFETCH(int, ranks);
        if (!QFileInfo::exists(files.first()))
            QSKIP("real traces not present (../shared/traces); synthetic traces cover the panel");
        ScenarioModel scenario;
        TracePanel panel(&scenario);
        QVERIFY(imports(panel, files));
        QCOMPARE(panel.rankTable()->rowCount(), ranks);
        QVERIFY(panel.kernelModel()->rowCount() > 3);
        QVERIFY(!panel.stepChart()->data().series.isEmpty());
        QVERIFY(panel.timeline()->laneCount() >= 1);
        // The Rank combo's items fit its room: a single file's long name is cut in the middle, not at the edge.
        QComboBox* rankCombo = nullptr;
        for (auto* combo : panel.findChildren<QComboBox*>())
            if (combo->accessibleName() == QStringLiteral("Rank"))
                rankCombo = combo;
        QVERIFY(rankCombo);
        const QFontMetrics metrics = rankCombo->fontMetrics();
        const int room = metrics.horizontalAdvance(QLatin1Char('X')) * rankCombo->minimumContentsLength();
        for (int i = 0; i < rankCombo->count(); ++i) {
            const QString item = rankCombo->itemText(i);
            QVERIFY2(metrics.horizontalAdvance(item) <= room, qPrintable(item));
            QVERIFY2(item.endsWith(QStringLiteral("json.gz)")), qPrintable(item));
        }
        if (ranks == 1)
            QVERIFY2(rankCombo->itemText(0).contains(QChar(0x2026)), qPrintable(rankCombo->itemText(0)));
        // HTA's rank 1 does 15 ms more elementwise work a step than the median, more than its steps' standard
        // deviation: named, with the two open of the job's 128 ranks said.
        if (ranks > 1)
            QVERIFY2(label(panel, "slowestRank").startsWith(QStringLiteral("Slowest rank: 1"))
                    && label(panel, "slowestRank").contains(QStringLiteral("the 2 open of the job's 128 ranks")),
                qPrintable(label(panel, "slowestRank")));
        // Zoomed out, sub-pixel kernels are binned per pixel column instead of drawn one by one.
        panel.timeline()->resize(1000, 200);
        panel.timeline()->grab();
        QVERIFY(panel.timeline()->lastBinnedColumns() > 0);
        QVERIFY(panel.timeline()->lastBinnedColumns() <= 2 * 1000);
    }

    // An Nsight Systems SQLite export (content-sniffed, not by name) goes through the same open path.
    void mainWindowOpensNsightExports()
    {
        const std::string path = m_dir.filePath(QStringLiteral("profile.sqlite")).toStdString();
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
        const char* sql = "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
                          "INSERT INTO StringIds VALUES (5, 'volta_sgemm_128x64_nt'), (6, 'ProfilerStep#9');"
                          "CREATE TABLE TARGET_INFO_CUDA_GPU (id INTEGER, name TEXT);"
                          "INSERT INTO TARGET_INFO_CUDA_GPU VALUES (0, 'Tesla V100-SXM2-32GB');"
                          "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER,"
                          " streamId INTEGER, correlationId INTEGER, shortName INTEGER);"
                          "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10, 20, 0, 7, 1, 5), (30, 60, 0, 7, 2, 5);"
                          "CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, text TEXT,"
                          " textId INTEGER);"
                          "INSERT INTO NVTX_EVENTS VALUES (0, 100, 60, NULL, 6);";
        QCOMPARE(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(db);
        mfu::app::MainWindow w;
        auto* panel = w.findChild<TracePanel*>();
        QSignalSpy done(panel, &TracePanel::imported);
        QVERIFY2(w.openFiles({ QString::fromStdString(path) }), qPrintable(w.lastMessage()));
        QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, 20000);
        QCOMPARE(panel->kernelModel()->rowCount(), 1);
        QCOMPARE(panel->kernelProxy()->index(0, TopKernelsModel::Calls).data().toString(), QStringLiteral("2"));
        // The window gives the panel its presets: the name maps through their "match" patterns.
        QVERIFY2(label(*panel, "gpu").contains(QStringLiteral("Tesla V100-SXM2-32GB (preset v100-sxm2-32gb)")),
            qPrintable(label(*panel, "gpu")));
    }

    // The window routes a trace from its one open path to the Trace tab; MFU_SCREENSHOT_DIR keeps a PNG.
    void mainWindowOpensTracesInTheTracePanel()
    {
        const QString real = QStringLiteral(MFU_SHARED_TRACES_DIR "/tracelens__h100__qwen1.5-0.5b-chat.json.gz");
        const QString file = QFileInfo::exists(real) ? real : m_trace;
        mfu::app::MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* panel = w.findChild<TracePanel*>();
        QVERIFY(panel);
        QSignalSpy done(panel, &TracePanel::imported);
        QVERIFY2(w.openFiles({ file }), qPrintable(w.lastMessage()));
        QCOMPARE(w.panels()->currentWidget(), panel);
        QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, 20000);
        const QString folder = qEnvironmentVariable("MFU_SCREENSHOT_DIR");
        if (folder.isEmpty())
            return;
        for (int view = 0; view < panel->views()->count(); ++view) {
            panel->views()->setCurrentIndex(view);
            QTest::qWait(100);
            for (auto* chart : panel->findChildren<ChartView*>())
                chart->plot()->replot();
            QVERIFY(w.grab().save(folder + QStringLiteral("/trace_panel_%1.png").arg(view)));
        }
        panel->views()->setCurrentWidget(panel->timelineTab());
        panel->timeline()->zoom(60, 0.3); // down to single kernels
        QVERIFY(w.grab().save(folder + QStringLiteral("/trace_panel_timeline_zoomed.png")));
        // The comparison chart, on the synthetic pair.
        panel->views()->setCurrentIndex(0);
        QVERIFY(imports(*panel, { m_trace }));
        QVERIFY(imports(*panel, { m_baseline }, true));
        QTest::qWait(100);
        for (auto* chart : panel->findChildren<ChartView*>())
            chart->plot()->replot();
        QVERIFY(w.grab().save(folder + QStringLiteral("/trace_panel_comparison.png")));
        // Two ranks: the per-rank table and the slowest rank.
        const QString dir = QStringLiteral(MFU_SHARED_TRACES_DIR);
        if (!QFileInfo::exists(dir + "/hta__trace_filter__sampled_rank-0.json.gz"))
            return;
        QVERIFY(imports(*panel,
            { dir + "/hta__trace_filter__sampled_rank-0.json.gz",
                dir + "/hta__trace_filter__sampled_rank-1.json.gz" }));
        panel->views()->setCurrentIndex(3);
        QTest::qWait(50);
        QVERIFY(w.grab().save(folder + QStringLiteral("/trace_panel_ranks.png")));
    }

    // The Open dialogs' filter is translated when the dialog opens, by the translator installed then (a string built
    // at static initialisation is translated before any translator exists, so never).
    void fileFilterIsTranslatedWhenAsked()
    {
        class Upper : public QTranslator {
        public:
            QString translate(const char*, const char* source, const char*, int) const override
            {
                return QString::fromUtf8(source).startsWith(QLatin1String("Profiler traces"))
                    ? QString::fromUtf8(source).toUpper()
                    : QString();
            }
            bool isEmpty() const override { return false; }
        } upper;
        QVERIFY(TracePanel::traceFileFilter().startsWith(QLatin1String("Profiler traces (*.json *.json.gz *.sqlite)")));
        QVERIFY(QCoreApplication::installTranslator(&upper));
        QVERIFY2(TracePanel::traceFileFilter().startsWith(QLatin1String("PROFILER TRACES")),
            qPrintable(TracePanel::traceFileFilter()));
        QCoreApplication::removeTranslator(&upper);
    }

    // The panel says what happened through its statusMessage signal; the main window shows it in its status bar.
    void statusMessagesReachTheMainWindow()
    {
        mfu::app::MainWindow w;
        auto* panel = w.findChild<TracePanel*>();
        QVERIFY(panel);
        emit panel->statusMessage(QStringLiteral("Trace import cancelled; the previous trace is still shown."));
        QCOMPARE(w.statusBar()->currentMessage(),
            QStringLiteral("Trace import cancelled; the previous trace is still shown."));
        // Outside a main window the signal goes nowhere and nothing breaks.
        ScenarioModel model;
        TracePanel alone(&model);
        emit alone.statusMessage(QStringLiteral("nobody listens"));
    }
};

QTEST_MAIN(TestTracePanel)
#include "tst_panel.moc"
