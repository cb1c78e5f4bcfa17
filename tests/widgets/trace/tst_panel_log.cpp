// A training log in the Trace panel: the B200 scaling report's 8-GPU log (iteration blocks) opens in the "Training log"
// tab with its step time per step (the warm-up step marked apart, out of the line), the MFU it claims (2.61%) and the
// MFU recomputed for the scenario's model and GPU (39.6% for LLaMA 1.36B on B200, as in tst_diagnosis), with the
// diagnosis findings as text; a scenario change redoes the check; a file with no step lines is an error that keeps
// the panel usable; the log is read on a worker thread with a progress bar, and Cancel keeps the log shown before;
// the main window routes a log there by content and adds it to the recent files once it has loaded.
// MFU_SCREENSHOT_DIR=folder saves the window on the Training log tab.
#include <cmath>
#include <memory>

#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <qcustomplot.h>

#include "app/file_kind.h"
#include "app/main_window.h"
#include "b200_scaling_log.h"
#include "shipped_presets.h"
#include "trace_test_support.h"
#include "widgets/charts/chart_view.h"
#include "widgets/scenario/scenario_model.h"
#include "widgets/trace/facts_banner.h"
#include "widgets/trace/trace_panel.h"
#include "widgets/trace/training_log_view.h"

using namespace mfu;
using namespace mfu::widgets;

namespace {

const QByteArray kEightGpuLog = test::kB200ScalingLog;

void useReportScenario(ScenarioModel& model)
{
    const auto& presets = test::shippedPresets();
    model.setModel(*presets.findModel("llama-1.36b"));
    model.setHardware(*presets.findHardware("b200"));
}

} // namespace

class TestTracePanelLog : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_log;
    QString m_notALog;
    QString m_bigLog;

    QString write(const QString& name, const QByteArray& bytes)
    {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
            return {};
        return path;
    }

    // A panel on the report's scenario with `text` written to `name` and opened as a training log, read to the end.
    std::unique_ptr<TracePanel> panelWithLog(ScenarioModel& scenario, const QString& name, const QByteArray& text)
    {
        const QString path = write(name, text);
        useReportScenario(scenario);
        auto panel = std::make_unique<TracePanel>(&scenario);
        if (path.isEmpty() || !panel->openTrainingLog(path))
            return nullptr;
        if (!QTest::qWaitFor([&] { return panel->trainingLogView()->hasLog(); }))
            return nullptr;
        return panel;
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("mfu-explorer-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_trace_panel_log"));
        QSettings().clear();
        m_log = write(QStringLiteral("b200-8gpu.log"), kEightGpuLog);
        m_notALog = write(QStringLiteral("notes.txt"), "nothing\nto see\n");
        // Big enough (~24 MB) that the worker is still reading it when the test presses Cancel.
        QByteArray big;
        for (int step = 1; step <= 200000; ++step)
            big += "[titan] step: " + QByteArray::number(step)
                + "  loss: 10.5  memory: 48.87GiB(51.44%)  tps: 4,376  tflops: 253.41  mfu: 25.62%\n";
        m_bigLog = write(QStringLiteral("big-torchtitan.log"), big);
        QVERIFY(!m_log.isEmpty() && !m_notALog.isEmpty() && !m_bigLog.isEmpty());
    }

    // File > Open offers logs and Nsight exports; the Training log tab has its own Open button.
    void logsCanBeFoundFromTheWindow()
    {
        const QString filter = app::openFileFilter();
        for (const char* pattern : { "*.log", "*.txt", "*.sqlite", "*.json.gz" })
            QVERIFY2(filter.contains(QLatin1String(pattern)), pattern);
        QVERIFY2(filter.section(QStringLiteral(";;"), 0, 0).contains(QStringLiteral("*.log")),
            "the first (default) filter shows logs too");
        ScenarioModel scenario;
        TrainingLogView view(&scenario); // alone: in the panel the click opens a file dialog
        auto* open = view.findChild<QPushButton*>(QStringLiteral("openTrainingLog"));
        QVERIFY(open);
        QSignalSpy asked(&view, &TrainingLogView::openRequested);
        open->click();
        QCOMPARE(asked.count(), 1);
    }

    void logShowsClaimedAndRecomputedMfu()
    {
        ScenarioModel scenario;
        useReportScenario(scenario);
        TracePanel panel(&scenario);
        TrainingLogView* view = panel.trainingLogView();
        view->setKnownHardware(test::shippedPresets().hardware());
        QVERIFY(panel.openTrainingLog(m_log));
        QTRY_VERIFY(view->hasLog()); // read on a worker thread
        QCOMPARE(panel.views()->currentWidget(), panel.viewTab(view));
        QVERIFY(panel.errorText().isEmpty());

        const ChartData& time = view->throughputChart()->data();
        QCOMPARE(time.series.size(), 2);
        QCOMPARE(time.yAxis.text(), QStringLiteral("Step time (s)"));
        // The warm-up step (59.8 s, "warming up...") is out of the line, as out of the medians, marked on its own.
        QCOMPARE(time.series[0].x, (QVector<double> { 10, 20 }));
        QCOMPARE(time.series[0].y, (QVector<double> { 29.452, 29.46 }));
        QCOMPARE(time.series[1].name, QStringLiteral("Warm-up (left out)"));
        QCOMPARE(time.series[1].x, (QVector<double> { 0 }));
        QCOMPARE(time.series[1].y, (QVector<double> { 59.848 }));

        const ChartData& mfu = view->mfuChart()->data();
        QCOMPARE(mfu.series.size(), 2);
        QCOMPARE(mfu.series[0].y, (QVector<double> { 2.61, 2.61 })); // claimed, steps 10 and 20
        const double recomputed = mfu.series[1].y[0];
        QCOMPARE(qRound(recomputed * 10) / 10.0, 39.6); // median of steps 10 and 20
        QVERIFY(view->summaryText().contains(QStringLiteral("MFU claimed: 2.61%")));
        // Named as people read them, not by preset ids (issue 35: "params:5219013357 on b200").
        QVERIFY2(
            view->summaryText().contains(QStringLiteral("LLaMA 1.36B (B200 scaling report) on NVIDIA B200 (HGX B200)")),
            qPrintable(view->summaryText()));
        // Steps are whole: both charts tick at integers only.
        for (ChartView* chart : { view->throughputChart(), view->mfuChart() }) {
            const auto ticker = chart->plot()->xAxis->ticker().dynamicCast<QCPAxisTickerFixed>();
            QVERIFY(ticker);
            QCOMPARE(ticker->tickStep(), 1.0);
            QCOMPARE(ticker->scaleStrategy(), QCPAxisTickerFixed::ssMultiples);
            chart->plot()->xAxis->setRange(3.7, 16.1);
            chart->plot()->replot();
            for (double tick : chart->plot()->xAxis->tickVector())
                QCOMPARE(tick, std::round(tick));
        }
        QVERIFY2(view->findingsText().contains(QStringLiteral("peak_is_sparse")), qPrintable(view->findingsText()));
        QVERIFY(view->findingsText().contains(QStringLiteral("per_gpu_over_cluster_peak")));

        // The check follows the scenario: another model gives another recomputed MFU.
        scenario.setModel(*test::shippedPresets().findModel("llama-3.1-8b"));
        QVERIFY2(view->summaryText().contains(QStringLiteral("Llama 3.1 8B on NVIDIA B200 (HGX B200)")),
            qPrintable(view->summaryText()));
        // A bare model adopted from a log reads as its name, not "params:5219013357".
        scenario.setModel(bareModel(5'219'013'357, "Model of 5.22 B parameters (from the log)"));
        QVERIFY2(view->summaryText().contains(QStringLiteral("Model of 5.22 B parameters (from the log) on NVIDIA")),
            qPrintable(view->summaryText()));
        QVERIFY(!view->summaryText().contains(QStringLiteral("params:")));
        scenario.setModel(*test::shippedPresets().findModel("llama-3.1-8b"));
        QVERIFY(qAbs(view->mfuChart()->data().series.value(1).y.value(0) - recomputed) > 1.0);
        // A scenario on another GPU than the log's ("Device: NVIDIA B200") cannot describe it: no recomputed figure
        // (it would divide by the H100's peak), the reason named in its place.
        scenario.setHardware(*test::shippedPresets().findHardware("h100-sxm"));
        QVERIFY2(view->summaryText().contains(QStringLiteral("MFU recomputed: not shown"))
                && view->summaryText().contains(QStringLiteral("NVIDIA B200")),
            qPrintable(view->summaryText()));
        QCOMPARE(view->mfuChart()->data().series.size(), 1); // the claimed line only
    }

    // A file with two runs (a report quoting a 2-GPU and an 8-GPU run, each from iteration 0): each run is a line of
    // its own with its first step a warm-up, so no line joins step 10 of one run to step 0 of the next.
    void twoRunsInOneFileAreTwoLines()
    {
        ScenarioModel scenario;
        const auto panel = panelWithLog(scenario, QStringLiteral("two-runs.log"),
            "Iter 0: loss 10.8422, time 32054ms (warming up...)\n"
            "Iter     10 | Loss: 10.7652 | Time: 1838ms | LR: 1.65e-06\n"
            "Iter     20 | Loss: 10.7000 | Time: 1840ms | LR: 3.30e-06\n"
            "Iter 0: loss 10.8414, time 59848ms (warming up...)\n"
            "Iter     10 | Loss: 10.7715 | Time: 29452ms | LR: 1.65e-06\n"
            "Iter     20 | Loss: 10.6000 | Time: 29460ms | LR: 3.30e-06\n");
        QVERIFY(panel);
        const ChartData& time = panel->trainingLogView()->throughputChart()->data();
        QCOMPARE(time.series.size(), 3);
        QCOMPARE(time.series[0].name, QStringLiteral("Step time, run 1"));
        QCOMPARE(time.series[0].y, (QVector<double> { 1.838, 1.84 }));
        QCOMPARE(time.series[1].name, QStringLiteral("Step time, run 2"));
        QCOMPARE(time.series[1].y, (QVector<double> { 29.452, 29.46 }));
        QCOMPARE(time.series[2].name, QStringLiteral("Warm-up (left out)"));
        QCOMPARE(time.series[2].y, (QVector<double> { 32.054, 59.848 }));
    }

    // A trace and a log open together: the banner compares the one on screen. The Training log tab shows the log's
    // facts (8 B200s, and its 1.29 B model against the scenario's), the trace's tabs the trace's H100; the log's
    // model size ("N=1.294B") is compared too.
    void bannerFollowsTheViewOnScreen()
    {
        using trace_test::annotation;
        using trace_test::kernel;
        const std::string gemm = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_cublas";
        const QString trace = write(QStringLiteral("h100.json"),
            QByteArray::fromStdString(trace_test::traceOf(
                { annotation("ProfilerStep#1", "0", "1000", true), annotation("ProfilerStep#2", "1000", "1000", true),
                    kernel(gemm, "0", "600"), kernel(gemm, "1000", "600") },
                R"("deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}])")));
        ScenarioModel scenario;
        scenario.setModel(*test::shippedPresets().findModel("llama-3.1-8b"));
        scenario.setHardware(*test::shippedPresets().findHardware("b200"));
        TracePanel panel(&scenario);
        panel.setKnownHardware(test::shippedPresets().hardware());
        const QLabel* banner = panel.factsBanner()->message();
        QVERIFY(panel.openTrainingLog(m_log));
        QTRY_VERIFY(panel.trainingLogView()->hasLog());
        panel.openTraces({ trace });
        QTRY_VERIFY(panel.run() != nullptr);
        QTRY_VERIFY(!panel.isImporting());
        // The trace arrived last, but the Training log tab is on screen: the log's facts.
        QCOMPARE(panel.views()->currentWidget(), panel.viewTab(panel.trainingLogView()));
        QVERIFY2(banner->text().contains(QStringLiteral("the log")), qPrintable(banner->text()));
        QVERIFY2(banner->text().contains(QStringLiteral("model size")), qPrintable(banner->text()));
        QVERIFY2(banner->text().contains(QStringLiteral("1.29")), qPrintable(banner->text()));
        panel.views()->setCurrentIndex(0); // Breakdown
        QVERIFY2(banner->text().contains(QStringLiteral("the trace")), qPrintable(banner->text()));
        QVERIFY2(banner->text().contains(QStringLiteral("H100")), qPrintable(banner->text()));
        panel.views()->setCurrentWidget(panel.viewTab(panel.trainingLogView()));
        QVERIFY2(banner->text().contains(QStringLiteral("the log")), qPrintable(banner->text()));
        panel.closeAll();
        QVERIFY(panel.factsBanner()->isHidden());
    }

    // One step after warm-up: drawn as a marker (a line through one point draws nothing).
    void aSingleStepIsDrawn()
    {
        ScenarioModel scenario;
        const auto panel = panelWithLog(scenario, QStringLiteral("one-step.log"),
            "Iter 0: loss 10.8414, time 59848ms (warming up...)\n"
            "Iter     10 | Loss: 10.7715 | Time: 29452ms | LR: 1.65e-06\n"
            "MFU: 2.61% | Achieved: 938.2 TF | Peak: 36000.0 TF\n");
        QVERIFY(panel);
        const ChartData& time = panel->trainingLogView()->throughputChart()->data();
        QCOMPARE(time.series.size(), 2); // the step and the warm-up marker
        QCOMPARE(time.series[0].kind, SeriesKind::Scatter);
        QCOMPARE(time.series[0].x, (QVector<double> { 10 }));
        QCOMPARE(panel->trainingLogView()->mfuChart()->data().series.value(0).kind, SeriesKind::Scatter);
    }

    void aFileWithoutStepsIsAnError()
    {
        ScenarioModel scenario;
        useReportScenario(scenario);
        TracePanel panel(&scenario);
        QVERIFY(panel.openTrainingLog(m_log));
        QTRY_VERIFY(panel.trainingLogView()->hasLog());
        QVERIFY(panel.openTrainingLog(m_notALog)); // readable: the worker finds no step lines
        QTRY_VERIFY(!panel.errorText().isEmpty());
        QVERIFY2(panel.errorText().contains(QStringLiteral("notes.txt")), qPrintable(panel.errorText()));
        QVERIFY(panel.errorText().contains(QStringLiteral("no training-step lines")));
        // The file the user asked for could not be read: the previous log's charts, axes and figures are not shown
        // as if they were its (issue 35: an empty log kept the last log's axes).
        QVERIFY(!panel.trainingLogView()->hasLog());
        QVERIFY(!panel.trainingLogView()->summaryText().contains(QStringLiteral("b200-8gpu.log")));
        for (ChartView* chart : { panel.trainingLogView()->throughputChart(), panel.trainingLogView()->mfuChart() }) {
            QVERIFY(chart->data().series.isEmpty());
            QVERIFY2(chart->data().xAxis.text().isEmpty(), qPrintable(chart->data().xAxis.text()));
            QVERIFY(chart->data().yAxis.text().isEmpty());
            QCOMPARE(chart->plot()->xAxis->range().upper, 1.0);
        }
        // An empty file is the same.
        QVERIFY(panel.openTrainingLog(m_log));
        QTRY_VERIFY(panel.trainingLogView()->hasLog());
        const QString empty = write(QStringLiteral("empty.log"), QByteArray());
        QVERIFY(panel.openTrainingLog(empty));
        QTRY_VERIFY(!panel.trainingLogView()->hasLog());
        QVERIFY(panel.trainingLogView()->throughputChart()->data().xAxis.text().isEmpty());
        // The refusal says how to read another format (the window has no pattern field; the command line has).
        QVERIFY2(panel.errorText().contains(QStringLiteral("--log-pattern REGEX --log-groups")),
            qPrintable(panel.errorText()));
        QVERIFY(panel.openTrainingLog(m_log));
        QTRY_VERIFY(panel.trainingLogView()->hasLog());

        const QString missing = m_dir.filePath(QStringLiteral("missing.log"));
        QVERIFY(!panel.openTrainingLog(missing)); // cannot be opened: refused at once
        QVERIFY2(panel.errorText().contains(QStringLiteral("missing.log")), qPrintable(panel.errorText()));
        QVERIFY(panel.trainingLogView()->summaryText().contains(QStringLiteral("b200-8gpu.log")));
    }

    // A MaxText log, which no built-in format reads: the refusal offers a step line pattern right under it, and the
    // pattern (the command line's --log-pattern and --log-groups) reads the log in the window.
    void aPatternOfOnesOwnReadsAnotherFormat()
    {
        const QString maxtext = write(QStringLiteral("maxtext.log"),
            "completed step: 1, seconds: 7.012, TFLOP/s/device: 180.2, Tokens/s/device: 4673.1, loss: 10.9\n"
            "completed step: 2, seconds: 6.950, TFLOP/s/device: 181.8, Tokens/s/device: 4714.5, loss: 10.1\n"
            "completed step: 3, seconds: 6.948, TFLOP/s/device: 181.9, Tokens/s/device: 4715.9, loss: 9.8\n");
        ScenarioModel scenario;
        useReportScenario(scenario);
        TracePanel panel(&scenario);
        panel.show();
        auto* row = panel.findChild<QWidget*>(QStringLiteral("logPatternRow"));
        QVERIFY(row);
        QVERIFY(!row->isVisible()); // nothing to offer before a log fails
        QVERIFY(panel.openTrainingLog(maxtext));
        QTRY_VERIFY(!panel.errorText().isEmpty());
        QTRY_VERIFY(row->isVisible());
        QVERIFY2(panel.errorText().contains(QStringLiteral("here, below")), qPrintable(panel.errorText()));

        auto* regex = row->findChild<QLineEdit*>(QStringLiteral("logPatternRegex"));
        auto* groups = row->findChild<QLineEdit*>(QStringLiteral("logPatternGroups"));
        auto* read = row->findChild<QPushButton*>(QStringLiteral("logPatternRead"));
        auto* problem = row->findChild<QLabel*>(QStringLiteral("logPatternProblem"));
        QVERIFY(regex && groups && read && problem);
        // A key the command line does not know is refused by the same parser, in its words.
        regex->setText(QStringLiteral(R"(completed step: (\d+), seconds: ([\d.]+), TFLOP/s/device: ([\d.]+))"));
        groups->setText(QStringLiteral("step=1,seconds=2"));
        read->click();
        QVERIFY(problem->isVisible());
        QVERIFY2(problem->text().contains(QStringLiteral("seconds")), qPrintable(problem->text()));
        QVERIFY(!panel.trainingLogView()->hasLog());

        groups->setText(QStringLiteral("step=1,time_s=2,tflops=3"));
        read->click();
        QTRY_VERIFY(panel.trainingLogView()->hasLog());
        QVERIFY(!row->isVisible());
        QVERIFY(!problem->isVisible());
        QVERIFY2(panel.trainingLogView()->summaryText().contains(QStringLiteral("custom")),
            qPrintable(panel.trainingLogView()->summaryText()));
    }

    void cancellingKeepsThePreviousLog()
    {
        ScenarioModel scenario;
        useReportScenario(scenario);
        TracePanel panel(&scenario);
        QVERIFY(panel.openTrainingLog(m_log));
        QTRY_VERIFY(panel.trainingLogView()->hasLog());
        QVERIFY(!panel.isImporting());
        QVERIFY(panel.progressBar()->isHidden());

        QVERIFY(panel.openTrainingLog(m_bigLog));
        QVERIFY(panel.isImporting());
        QVERIFY(!panel.progressBar()->isHidden()); // progress and Cancel while the worker reads
        QCOMPARE(panel.progressBar()->format(), QStringLiteral("Reading the training log %p%"));
        panel.cancelImport();
        QTRY_VERIFY(!panel.isImporting());
        QVERIFY(panel.progressBar()->isHidden());
        QVERIFY(panel.errorText().isEmpty());
        QVERIFY2(panel.trainingLogView()->summaryText().contains(QStringLiteral("b200-8gpu.log")),
            qPrintable(panel.trainingLogView()->summaryText()));

        // Read to the end, the big log replaces it: 200,000 steps.
        QVERIFY(panel.openTrainingLog(m_bigLog));
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isImporting(), 60000);
        QVERIFY2(panel.errorText().isEmpty(), qPrintable(panel.errorText()));
        QVERIFY2(panel.trainingLogView()->summaryText().contains(QStringLiteral("big-torchtitan.log")),
            qPrintable(panel.trainingLogView()->summaryText()));
        QVERIFY(panel.trainingLogView()->summaryText().contains(QStringLiteral("200000 steps")));
    }

    void mainWindowRoutesLogsByContent()
    {
        QCOMPARE(app::sniffFileKind(m_log), app::FileKind::TrainingLog);
        QCOMPARE(app::sniffFileKind(m_notALog), app::FileKind::Unknown);
        app::MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* panel = w.panels()->findChild<TracePanel*>();
        QVERIFY(panel);
        // A log becomes a recent file once it has loaded; one whose reading is cancelled does not.
        const QString big = QFileInfo(m_bigLog).absoluteFilePath();
        QVERIFY(w.openFiles({ m_bigLog }));
        QVERIFY(panel->isImporting());
        panel->cancelImport();
        QTRY_VERIFY(!panel->isImporting());
        QVERIFY(!w.recentFiles().contains(big));
        QVERIFY(w.openFiles({ m_log }));
        QVERIFY(!w.recentFiles().contains(QFileInfo(m_log).absoluteFilePath())); // still being read
        QCOMPARE(w.panels()->currentWidget(), panel);
        QTRY_VERIFY(panel->trainingLogView()->hasLog());
        QCOMPARE(panel->views()->currentWidget(), panel->viewTab(panel->trainingLogView()));
        QTRY_COMPARE(w.recentFiles().value(0), QFileInfo(m_log).absoluteFilePath());
        QVERIFY(!w.recentFiles().contains(big));
        const QString folder = qEnvironmentVariable("MFU_SCREENSHOT_DIR");
        if (folder.isEmpty())
            return;
        for (auto* chart : panel->findChildren<ChartView*>())
            chart->plot()->replot();
        QTest::qWait(100);
        QVERIFY(w.grab().save(folder + QStringLiteral("/trace_panel_training_log.png")));
    }
};

QTEST_MAIN(TestTracePanelLog)
#include "tst_panel_log.moc"
