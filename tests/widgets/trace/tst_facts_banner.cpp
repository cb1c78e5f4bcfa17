// Facts from the file: a trace or training log opened against a scenario that does not describe it gets one banner
// above the figures naming each fact that differs, with one button that adopts the file's GPU and GPU count (and
// sequence length, tokens per step) as one undo step. Measured MFU is never a number when the GPU differs or the
// figure exceeds 100% (the V100 trace showed "Measured MFU 19,336%"); a trace with no GPU says so there.
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include <sqlite3.h>

#include "app/main_window.h"
#include "widgets/scenario/scenario_model.h"
#include "widgets/trace/facts_banner.h"
#include "widgets/trace/trace_panel.h"
#include "widgets/trace/training_log_view.h"

using namespace mfu;
using namespace mfu::widgets;

namespace {

// The B200 scaling report's 8-GPU header and two iteration blocks (as tst_trace_panel_log).
const QByteArray kEightGpuLog = "  Device:                NVIDIA B200\n"
                                "  GPUs:                  8\n"
                                "  Hardware peak:         36000.0 TFLOPS (B200 bf16)\n"
                                "  Batch size (micro):    24\n"
                                "  Gradient accum steps:  64\n"
                                "  Tokens per iteration:  25,165,824\n"
                                "Iter     10 | Loss: 10.7715 | Time: 29452ms | LR: 1.65e-06\n"
                                "MFU: 2.61% | Achieved: 938.2 TF | Peak: 36000.0 TF\n"
                                "   Tokens/s: 106809 | FLOPs/token: 8.78 GF (6N+12LHQT: N=1.294B)\n"
                                "Iter     20 | Loss: 10.6000 | Time: 29460ms | LR: 3.30e-06\n"
                                "MFU: 2.61% | Achieved: 938.0 TF | Peak: 36000.0 TF\n"
                                "   Tokens/s: 106780 | FLOPs/token: 8.78 GF (6N+12LHQT: N=1.294B)\n";

QString label(const QWidget& w, const char* name)
{
    auto* l = w.findChild<QLabel*>(QLatin1String(name));
    return l ? l->text() : QStringLiteral("<no label %1>").arg(QLatin1String(name));
}

const QRegularExpression kPercentFigure(QStringLiteral("\\d%"));

} // namespace

class TestFactsBanner : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    bool open(app::MainWindow& w, TracePanel* panel, const QString& path)
    {
        QSignalSpy done(panel, &TracePanel::imported);
        if (!w.openFiles({ path }))
            return false;
        return QTest::qWaitFor([&] { return done.count() == 1; }, 20000);
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("mfu-explorer-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_facts_banner"));
        QSettings().clear();
    }

    // The real H100 trace against the window's default B200 scenario.
    void realTraceOffersItsGpu()
    {
        const QString path = QStringLiteral(MFU_SHARED_TRACES_DIR "/tracelens__h100__qwen1.5-0.5b-chat.json.gz");
        if (!QFileInfo::exists(path))
            QSKIP("real traces not present (../shared/traces)");
        app::MainWindow w;
        auto* panel = w.findChild<TracePanel*>();
        QVERIFY(open(w, panel, path));
        FactsBanner* banner = panel->factsBanner();
        QVERIFY(!banner->isHidden());
        const QString message = banner->message()->text();
        QVERIFY2(message.contains(QStringLiteral("NVIDIA H100 80GB HBM3")) && message.contains(QStringLiteral("B200")),
            qPrintable(message));
        // Its attention ran on FlashAttention 2 (pytorch_flash::flash_fwd_kernel), not what `auto` means here; its
        // one aten::embedding took [16, 559] token ids; PyTorch's own kernels ran (eager, the scenario is compiled).
        // Its tokens over its 47.15 ms step are the throughput it measured: 8,944 / 0.04715 s = 189,687 tokens/s,
        // offered as the scenario's measurement. The list breaks into lines (a button does not wrap).
        QCOMPARE(banner->useButton()->text(),
            QStringLiteral("Use NVIDIA H100 SXM5 80GB, 8,944 tokens per step (micro-batch 16),\nits measured 189,687 "
                           "tokens/s per GPU, sequence 559, FlashAttention 2 attention, eager from the trace"));
        QVERIFY2(message.contains(QStringLiteral("eager or compiled: <b>eager</b>")), qPrintable(message));
        // Beside an eager trace the prediction is the eager one, and the scenario's compiled one is named as such.
        const QString predicted = label(*panel, "predictedMfu");
        QVERIFY2(predicted.startsWith(QStringLiteral("As the trace ran (eager): "))
                && predicted.contains(QStringLiteral("\nThe scenario (compiled (torch.compile)): ")),
            qPrintable(predicted));
        // A B200 prediction is not this H100 run's: said beside it, with what differs.
        QVERIFY2(predicted.contains(QStringLiteral("\nFor the scenario, not this trace's run: they differ in GPU")),
            qPrintable(predicted));
        const QString measured = label(*panel, "measuredMfu");
        QVERIFY2(measured.startsWith(QStringLiteral("not shown")), qPrintable(measured));
        QVERIFY2(!measured.contains(kPercentFigure), qPrintable(measured));

        // One click, one undo step; the banner goes, the figure comes back as a number.
        const int before = w.undoStack()->count();
        banner->useButton()->click();
        QCOMPARE(w.scenarioModel()->scenario().cluster.hardware.id, std::string("h100-sxm"));
        QCOMPARE(w.scenarioModel()->scenario().flags.attentionKernel, AttentionKernel::FlashAttention2);
        QCOMPARE(w.scenarioModel()->scenario().flags.compiled, false);
        QCOMPARE(w.scenarioModel()->scenario().workload.seqLen, int64_t(559));
        QCOMPARE(w.scenarioModel()->scenario().workload.microBatch, int64_t(16));
        QCOMPARE(w.scenarioModel()->tokensPerStep(), int64_t(8944));
        // The throughput the trace measured is now the scenario's measurement: Calculator and Cost value this run.
        QCOMPARE(w.scenarioModel()->throughputInput(), ThroughputInput::TokensPerSecPerGpu);
        QVERIFY2(std::abs(w.scenarioModel()->throughputValue() / 189687.0 - 1) < 1e-5,
            qPrintable(QString::number(w.scenarioModel()->throughputValue())));
        QCOMPARE(w.undoStack()->count(), before + 1);
        // The scenario now runs eager as the trace did: one prediction, no second figure.
        QVERIFY2(!label(*panel, "predictedMfu").contains(QStringLiteral("as the trace ran")),
            qPrintable(label(*panel, "predictedMfu")));
        // What is left is the model: the window's Llama 3.1 8B is not this Qwen1.5-0.5B forward pass, which no
        // value of the trace's can change. The banner says so and offers nothing.
        const QString left = banner->message()->text();
        QVERIFY2(!banner->isHidden() && left.contains(QStringLiteral("Model: the trace's operators did"))
                && !left.contains(QStringLiteral("H100")),
            qPrintable(left));
        QVERIFY(banner->useButton()->isHidden());
        QVERIFY2(label(*panel, "predictedMfu")
                     .endsWith(QStringLiteral("they differ in model (the banner above names "
                                              "the trace's values)")),
            qPrintable(label(*panel, "predictedMfu")));
        QVERIFY2(!label(*panel, "measuredMfu").startsWith(QStringLiteral("not shown: the file ran on")),
            qPrintable(label(*panel, "measuredMfu")));
        w.undoStack()->undo();
        QCOMPARE(w.scenarioModel()->scenario().cluster.hardware.id, std::string("b200"));
        QVERIFY(!banner->isHidden());
    }

    // One process's trace beside a scenario of 1,024 GPUs: the banner compared its 32,768 tokens per step with the
    // cluster's global batch, never named the GPU count, and its button set a 32,768-token batch on 1,024 GPUs. The
    // trace ran on one GPU: the count differs, and adopting takes the count with the tokens.
    void oneProcessTraceIsOneGpu()
    {
        const QString path
            = QStringLiteral(MFU_SHARED_TRACES_DIR "/pytorch211__h200__qwen3-0.6b-shape_compiled_s4096_mb8.json.gz");
        if (!QFileInfo::exists(path))
            QSKIP("real traces not present (../shared/traces)");
        app::MainWindow w;
        w.scenarioModel()->setGpuCount(1024);
        auto* panel = w.findChild<TracePanel*>();
        QVERIFY(open(w, panel, path));
        FactsBanner* banner = panel->factsBanner();
        QVERIFY(!banner->isHidden());
        QVERIFY2(
            banner->message()->text().contains(QStringLiteral("GPU count")), qPrintable(banner->message()->text()));
        QVERIFY2(
            banner->useButton()->text().contains(QStringLiteral(" x 1,")), qPrintable(banner->useButton()->text()));
        // It cast its FP32 weights to BF16 every step (autocast): offered, and predicted as it ran beside the
        // scenario's 16-bit weights.
        QVERIFY2(banner->useButton()->text().contains(QStringLiteral("FP32 weights under autocast")),
            qPrintable(banner->useButton()->text()));
        const QString predicted = label(*panel, "predictedMfu");
        QVERIFY2(predicted.startsWith(QStringLiteral("As the trace ran (FP32 weights under autocast): "))
                && predicted.contains(QStringLiteral("\nThe scenario (16-bit weights): ")),
            qPrintable(predicted));
        banner->useButton()->click();
        QCOMPARE(w.scenarioModel()->scenario().cluster.gpuCount, 1);
        QCOMPARE(w.scenarioModel()->tokensPerStep(), int64_t(32768));
        QVERIFY(w.scenarioModel()->scenario().flags.autocast);
        QVERIFY2(!label(*panel, "predictedMfu").startsWith(QStringLiteral("As the trace ran")),
            qPrintable(label(*panel, "predictedMfu")));
    }

    // The case: a V100 (no preset) Nsight export with a 100 ns step against a B200 would read 1e5 %.
    void unknownGpuNamesItselfInsteadOfAFigure()
    {
        const std::string path = m_dir.filePath(QStringLiteral("v100.sqlite")).toStdString();
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
        app::MainWindow w;
        auto* panel = w.findChild<TracePanel*>();
        QVERIFY(open(w, panel, QString::fromStdString(path)));
        const QString measured = label(*panel, "measuredMfu");
        QVERIFY2(measured.startsWith(QStringLiteral("not shown")) && measured.contains(QStringLiteral("V100")),
            qPrintable(measured));
        QVERIFY2(!measured.contains(kPercentFigure), qPrintable(measured));
        QVERIFY(!panel->factsBanner()->isHidden());
        QVERIFY2(panel->factsBanner()->message()->text().contains(QStringLiteral("Tesla V100-SXM2-32GB")),
            qPrintable(panel->factsBanner()->message()->text()));
    }

    // the B200 scaling report's header says 8 B200s: against the default 1 x B200, the banner offers "NVIDIA B200 x 8".
    void logHeaderOffersItsGpuCount()
    {
        const QString path = m_dir.filePath(QStringLiteral("b200-8gpu.log"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(kEightGpuLog);
        }
        app::MainWindow w;
        auto* panel = w.findChild<TracePanel*>();
        QVERIFY(w.openFiles({ path }));
        QTRY_VERIFY_WITH_TIMEOUT(panel->trainingLogView()->hasLog(), 20000);
        FactsBanner* banner = panel->factsBanner();
        QVERIFY(!banner->isHidden());
        QVERIFY2(
            banner->message()->text().contains(QStringLiteral("GPU count")), qPrintable(banner->message()->text()));
        // The log states its model size too ("N=1.294B"): offered as a bare count, since a log names no architecture.
        QCOMPARE(banner->useButton()->text(),
            QStringLiteral("Use 8 GPUs, %1 tokens per step, a 1.29B-parameter model (6N) from the log")
                .arg(QLocale().toString(25165824.0, 'f', 0)));
        const int before = w.undoStack()->count();
        banner->useButton()->click();
        QCOMPARE(w.undoStack()->count(), before + 1);
        QCOMPARE(w.scenarioModel()->scenario().cluster.gpuCount, 8);
        QCOMPARE(w.scenarioModel()->tokensPerStep(), 25165824); // 8,192 x 384 micro-steps x 8 ranks
        // Everything the log states is now the scenario's: its 1.29 B model (as 6N of a bare count) too.
        QVERIFY(w.scenarioModel()->scenario().model.isBare());
        QCOMPARE(*w.scenarioModel()->scenario().model.bareParams, int64_t(1'294'000'000));
        QVERIFY(banner->isHidden());
        w.undoStack()->undo(); // one step: GPU count, batch and model together
        QCOMPARE(w.scenarioModel()->scenario().model.id, std::string("llama-3.1-8b"));
        QCOMPARE(w.scenarioModel()->scenario().cluster.gpuCount, 1);
    }

    // Issue 35: a torchtitan log of a 14.6 GiB device whose TFLOPS / MFU is 306 (the 312 TFLOPS fallback within
    // rounding). The banner states the memory and why no A100 is offered; the button offers no GPU.
    void logMemoryRulesOutTheFallbackPeaksGpu()
    {
        const QString path = m_dir.filePath(QStringLiteral("t4-torchtitan.log"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            for (int step = 1; step <= 4; ++step)
                f.write("[titan] step: " + QByteArray::number(step)
                    + "  loss: 9.1  memory:  9.46GiB(64.99%)  tps: 528  tflops: 30.6  mfu: 10.00%\n");
        }
        app::MainWindow w;
        auto* panel = w.findChild<TracePanel*>();
        QVERIFY(w.openFiles({ path }));
        QTRY_VERIFY_WITH_TIMEOUT(panel->trainingLogView()->hasLog(), 20000);
        FactsBanner* banner = panel->factsBanner();
        QVERIFY(!banner->isHidden());
        const QString text = banner->message()->text();
        QVERIFY2(text.contains(QStringLiteral("device memory: <b>14.6 GiB</b> in the log")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("torchtitan&#39;s fallback peak (312 TFLOPS)"))
                || text.contains(QStringLiteral("torchtitan's fallback peak (312 TFLOPS)")),
            qPrintable(text));
        QVERIFY2(
            !banner->useButton()->text().contains(QStringLiteral("A100")), qPrintable(banner->useButton()->text()));
        QVERIFY(!banner->useButton()->property("adoptsHardware").toBool());
    }

    // A trace without deviceProperties: measured MFU says the GPU is assumed.
    void traceWithoutGpuSaysSo()
    {
        const QString path = QStringLiteral(MFU_SHARED_TRACES_DIR "/hta__trace_filter__sampled_rank-0.json.gz");
        if (!QFileInfo::exists(path))
            QSKIP("real traces not present (../shared/traces)");
        app::MainWindow w;
        auto* panel = w.findChild<TracePanel*>();
        QVERIFY(open(w, panel, path));
        const QString measured = label(*panel, "measuredMfu");
        QVERIFY2(measured.contains(QStringLiteral("the trace records no GPU")), qPrintable(measured));
        // The window's untouched example is no more this recommender trace's model than any other: withheld.
        QVERIFY2(measured.startsWith(QStringLiteral("not shown")) && measured.contains(QStringLiteral("example")),
            qPrintable(measured));
        // Once the user states the run (here only its GPU count) the example no longer withholds it; the work does:
        // the recommender's operators did under a TFLOP a step, Llama 3.1 8B's 65,536 tokens on 8 GPUs 474 TFLOP per
        // GPU. Still said: the GPU is assumed.
        auto* scenario = w.findChild<widgets::ScenarioModel*>();
        QVERIFY(scenario && scenario->isBuiltInExample());
        scenario->setGpuCount(8);
        QVERIFY(!scenario->isBuiltInExample());
        const QString stated = label(*panel, "measuredMfu");
        QVERIFY2(stated.startsWith(QStringLiteral("not shown: the trace's operators did 0."))
                && !stated.contains(QStringLiteral("example")) && stated.contains(QStringLiteral("is assumed")),
            qPrintable(stated));
        // World 128 in distributedInfo against one GPU: the banner names the count.
        QVERIFY2(panel->factsBanner()->message()->text().contains(QStringLiteral("128")),
            qPrintable(panel->factsBanner()->message()->text()));
        // With the trace's 128 GPUs adopted the count no longer differs; the model does, and the banner says so (no
        // value of the file's makes the scenario that model, so the button offers only what is left: eager).
        scenario->setGpuCount(128);
        const QString model = panel->factsBanner()->message()->text();
        QVERIFY2(!panel->factsBanner()->isHidden() && model.contains(QStringLiteral("Model: the trace's operators did"))
                && !model.contains(QStringLiteral("GPU count")),
            qPrintable(model));
    }
};

QTEST_MAIN(TestFactsBanner)
#include "tst_facts_banner.moc"
