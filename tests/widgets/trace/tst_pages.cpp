// The Trace panel's pages for what recorded shapes and the critical path give (roofline, critical path, the trace's
// own MFU), and what the panel says instead of misleading: ranks of different jobs held back until the user insists,
// the step time's source named for a trace without annotations, no predicted MFU for a layout that does not fit.
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <QProcess>

#include <nlohmann/json.hpp>

#include "app/preset_store.h"
#include "core/number_format.h"
#include "core/presets/hf_config.h"
#include "trace_test_support.h"
#include "widgets/charts/category_palette.h"
#include "widgets/charts/chart_view.h"
#include "widgets/scenario/scenario_editor.h"
#include "widgets/scenario/scenario_model.h"
#include "widgets/trace/critical_path_page.h"
#include "widgets/trace/roofline_page.h"
#include "widgets/trace/trace_panel.h"

using namespace mfu::widgets;
using trace_test::annotation;
using trace_test::kernel;
using trace_test::traceOf;

namespace {

const std::string kGemm = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_cublas";

QString label(const QWidget& w, const char* name)
{
    auto* l = w.findChild<QLabel*>(QLatin1String(name));
    return l ? l->text() : QStringLiteral("<no label %1>").arg(QLatin1String(name));
}

// Two GPU-annotated steps of one GEMM each on the named GPU, rank and world size.
std::string rankTrace(const std::string& gpu, int rank, int world)
{
    return traceOf({ annotation("ProfilerStep#1", "0", "100", true), annotation("ProfilerStep#2", "100", "100", true),
                       kernel(kGemm, "0", "80"), kernel(kGemm, "100", "80") },
        "\"deviceProperties\": [{\"id\": 0, \"name\": \"" + gpu + "\"}], \"distributedInfo\": {\"rank\": "
            + std::to_string(rank) + ", \"world_size\": " + std::to_string(world) + "}");
}

bool imports(TracePanel& panel, const QStringList& paths, bool baseline = false)
{
    QSignalSpy done(&panel, &TracePanel::imported);
    baseline ? panel.openBaseline(paths) : panel.openTraces(paths);
    return done.wait(20000) || done.count() > 0;
}

// The scenario of a one-H200 run of the model `config` describes, at sequence 4,096 and `microBatch`, one
// micro-batch a step (as the recorded H200 traces ran). False when the config cannot be read.
bool setOneH200Run(ScenarioModel& scenario, const QString& config, int microBatch)
{
    mfu::Scenario s = scenario.scenario();
    QFile file(config);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    s.model = mfu::modelFromHfConfigText(file.readAll().toStdString(), "config.json");
    for (const auto& h : mfu::app::presetLibrary().hardware())
        if (h.id == "h200")
            s.cluster.hardware = h;
    s.cluster.gpuCount = 1;
    s.workload.seqLen = 4096;
    s.workload.microBatch = microBatch;
    s.workload.globalBatchTokens = 4096LL * microBatch;
    scenario.setScenario(s);
    return true;
}

// The first of the box's own labels (top to bottom) drawn shorter than its width needs or over the next one, or ""
// when every one is whole.
QString firstClippedLabel(const QWidget& box)
{
    QList<QLabel*> labels = box.findChildren<QLabel*>(Qt::FindDirectChildrenOnly);
    std::sort(labels.begin(), labels.end(), [](const QLabel* a, const QLabel* b) { return a->y() < b->y(); });
    if (labels.size() < 9)
        return QStringLiteral("only %1 labels").arg(labels.size());
    for (qsizetype i = 0; i < labels.size(); ++i) {
        const QLabel* l = labels[i];
        const bool cut = l->height() < l->heightForWidth(l->width());
        const bool covered = i + 1 < labels.size() && labels[i + 1]->y() < l->y() + l->height();
        if (cut || covered)
            return (cut ? QStringLiteral("cut: ") : QStringLiteral("drawn over: ")) + l->objectName()
                + QStringLiteral(": ") + l->text().left(60);
    }
    return {};
}

} // namespace

class TestTracePages : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    QString write(const QString& name, const std::string& bytes)
    {
        QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            return {};
        f.write(bytes.data(), static_cast<qint64>(bytes.size()));
        return path;
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
    }

    // The TraceLens H100 trace records shapes: the roofline, the critical path and the trace's own MFU.
    void shapesOfARealTrace()
    {
        if (!QDir(QStringLiteral(MFU_SHARED_TRACES_DIR)).exists())
            QSKIP("real traces not found at " MFU_SHARED_TRACES_DIR " (shared/traces is absent in this checkout)");
        ScenarioModel scenario;
        TracePanel panel(&scenario);
        panel.setKnownHardware(mfu::app::presetLibrary().hardware());
        QVERIFY(
            imports(panel, { QStringLiteral(MFU_SHARED_TRACES_DIR "/tracelens__h100__qwen1.5-0.5b-chat.json.gz") }));
        QStringList tabs;
        for (int i = 0; i < panel.views()->count(); ++i)
            tabs << panel.views()->tabText(i);
        QVERIFY2(tabs.contains(QStringLiteral("Roofline")) && tabs.contains(QStringLiteral("Critical path")),
            qPrintable(tabs.join(QLatin1Char(','))));

        const RooflinePage* roof = panel.rooflinePage();
        QVERIFY2(roof->summary().contains(QStringLiteral("BF16 roof 989.0 TFLOPS")), qPrintable(roof->summary()));
        QVERIFY(roof->marks()->rowCount() > 10);
        const ChartData& chart = roof->chart()->data();
        QVERIFY(chart.logX && chart.logY);
        QCOMPARE(chart.series.front().name.left(9), QStringLiteral("BF16 roof"));
        bool labelled = false;
        for (const auto& s : chart.series)
            labelled = labelled || (!s.labels.isEmpty() && s.labels.front().contains(QStringLiteral("aten::")));
        QVERIFY(labelled);
        // A roof is not a kernel: drawn in the text's colour, which is none of the kernel categories' (the palette's
        // blue was GEMM's), and follows the palette.
        QVERIFY(chart.series.front().inTextColour);
        const QColor roofColour = roof->chart()->palette().color(QPalette::Text);
        for (const auto& s : chart.series)
            if (!s.name.contains(QStringLiteral("roof")))
                QVERIFY2(s.colour != roofColour, qPrintable(s.name));

        const CriticalPathPage* path = panel.criticalPathPage();
        QVERIFY2(path->summary().contains(QStringLiteral("GPU compute")), qPrintable(path->summary()));
        QVERIFY(path->chain()->rowCount() > 100);
        QCOMPARE(path->chart()->data().categories, QStringList { QStringLiteral("#6") });
        // A kernel's swatch in the chain is its own category's (a flash kernel is not a GEMM though both are GPU
        // compute): GEMM's blue only where the kernel is a GEMM.
        bool sawOtherCompute = false;
        for (int r = 0; r < path->chain()->rowCount(); ++r) {
            const QStandardItem* share = path->chain()->item(r, 2);
            const QString kernel = path->chain()->item(r, 5)->text();
            if (share->text() != QStringLiteral("GPU compute") || kernel.contains(QStringLiteral("gemm"))
                || kernel.contains(QStringLiteral("xmma")) || kernel.contains(QStringLiteral("nvjet")))
                continue;
            sawOtherCompute = true;
            QVERIFY2(
                share->data(Qt::DecorationRole).value<QColor>() != categoryColour(mfu::trace::KernelCategory::Gemm),
                qPrintable(kernel));
        }
        QVERIFY(sawOtherCompute);

        // The trace's own MFU, no model needed: the percent of core's trace MFU.
        const QString own = label(panel, "traceMfu");
        QVERIFY2(own.contains(QStringLiteral("from the operators' recorded shapes")), qPrintable(own));
        QVERIFY2(own.startsWith(QStringLiteral("12.35%")), qPrintable(own)); // over the loop's 47.2 ms step
    }

    // A trace whose only operator's shapes no device could hold (int64's largest dim): it records shapes, so the
    // Roofline tab stands, but no kernel has work; the summary says nothing achieved is measurable instead of
    // "Achieved over their kernels' time: ." over an empty list.
    void rooflineWithNothingMeasurable()
    {
        const std::string mm = "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, "
                               "\"ts\": 10, \"dur\": 50, \"args\": {\"External id\": 1, \"Input Dims\": "
                               "[[9223372036854775807, 64], [64, 64]], \"Input type\": [\"c10::BFloat16\", "
                               "\"c10::BFloat16\"]}}";
        const std::string launch = "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
                                   "\"pid\": 1, \"tid\": 1, \"ts\": 20, \"dur\": 2, \"args\": {\"correlation\": 1, "
                                   "\"External id\": 1}}";
        const QString path = write(QStringLiteral("impossible.json"),
            traceOf(
                { annotation("ProfilerStep#1", "0", "100", false), annotation("ProfilerStep#2", "100", "100", false),
                    mm, launch, kernel(kGemm, "30", "50", 7, 1), kernel(kGemm, "130", "50") },
                "\"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\"}]"));
        ScenarioModel scenario;
        TracePanel panel(&scenario);
        panel.setKnownHardware(mfu::app::presetLibrary().hardware());
        QVERIFY(imports(panel, { path }));
        const QString summary = panel.rooflinePage()->summary();
        QVERIFY2(summary.contains(QStringLiteral("Nothing achieved is measurable")), qPrintable(summary));
        QVERIFY2(!summary.contains(QStringLiteral("time: .")), qPrintable(summary));
    }

    // The trace PyTorch 2.11 wrote on an H200, opened with a scenario that describes it (its config, the H200,
    // 32,768 tokens per step): the window shows the loop's step (CPU ProfilerStep, 381.1 ms), the measured MFU and
    // the trace's own MFU that `trace --json` prints for the same inputs.
    void pytorch211TraceShowsWhatTheCliPrints()
    {
        const QString dir = QStringLiteral(MFU_SHARED_TRACES_DIR "/");
        const QString trace = dir + QStringLiteral("pytorch211__h200__qwen3-0.6b-shape_compiled_s4096_mb8.json.gz");
        const QString config = dir + QStringLiteral("pytorch211__h200__qwen3-0.6b-shape.config.json");
        if (!QFile::exists(trace) || !QFile::exists(config))
            QSKIP("the PyTorch 2.11 trace is not in shared/traces in this checkout");
        QProcess cli;
        cli.start(QStringLiteral(MFU_CLI_BINARY),
            { QStringLiteral("trace"), trace, QStringLiteral("--model"), config, QStringLiteral("--gpu"),
                QStringLiteral("h200"), QStringLiteral("--seq"), QStringLiteral("4096"),
                QStringLiteral("--tokens-per-step"), QStringLiteral("32768"), QStringLiteral("--json") });
        QVERIFY(cli.waitForFinished(60000));
        const nlohmann::json j = nlohmann::json::parse(cli.readAllStandardOutput().toStdString());

        ScenarioModel scenario;
        QVERIFY(setOneH200Run(scenario, config, 8));
        QCOMPARE(scenario.tokensPerStep(), int64_t(32768));
        TracePanel panel(&scenario);
        panel.setKnownHardware(mfu::app::presetLibrary().hardware());
        QVERIFY(imports(panel, { trace }));

        const QString stepTime = label(panel, "stepTime");
        const QString cliStep = QString::fromStdString(mfu::formatMilliseconds(j["mean_step_s"].get<double>()));
        QVERIFY2(stepTime.startsWith(cliStep), qPrintable(stepTime + QStringLiteral(" / ") + cliStep));
        QVERIFY2(stepTime.contains(QStringLiteral("CPU ProfilerStep")), qPrintable(stepTime));
        const QString measured = label(panel, "measuredMfu");
        const QString cliMeasured = QString::fromStdString(mfu::formatPercent(j["measured_mfu"]["mfu"].get<double>()));
        QVERIFY2(measured.startsWith(cliMeasured), qPrintable(measured + QStringLiteral(" / ") + cliMeasured));
        const QString own = label(panel, "traceMfu");
        QCOMPARE(
            own.left(own.indexOf(QLatin1Char(';'))), QString::fromStdString(j["trace_mfu_note"].get<std::string>()));
        const QString hfu = QStringLiteral("HFU ") + QString::fromStdString(j["trace_hfu_note"].get<std::string>());
        QVERIFY2(own.endsWith(hfu), qPrintable(own + QStringLiteral(" / ") + hfu));
        QVERIFY2(label(panel, "steps").contains(QStringLiteral("ProfilerStep#1 to #3, all complete")),
            qPrintable(label(panel, "steps")));

        // The run's attention ran on cuDNN's SDPA (the CLI says which kernel for Predict): the banner offers it,
        // and the button sets it, so Predict models the kernel the run used (`auto` is FlashAttention 3 on Hopper).
        QCOMPARE(j["ranks"][0]["attention_kernel"].get<std::string>(), std::string("cudnn"));
        auto* use = panel.findChild<QPushButton*>(QStringLiteral("useFileFacts"));
        QVERIFY(use && use->isVisibleTo(&panel));
        QVERIFY2(use->text().contains(QStringLiteral("cuDNN SDPA attention")), qPrintable(use->text()));
        use->click();
        QCOMPARE(scenario.scenario().flags.attentionKernel, mfu::AttentionKernel::Cudnn);
        QVERIFY(!use->isVisibleTo(&panel));
    }

    // A long cross-check is drawn whole. On the MoE step PyTorch 2.11 recorded on an H200, read with its own config,
    // the two MFUs disagree for three reasons; a form layout had cut the last of them and drawn the next figure over
    // it. Every label of the MFU box gets the height its width needs, and none overlaps the next.
    void longFiguresAreDrawnWhole()
    {
        const QString trace
            = QStringLiteral(MFU_SOURCE_DIR "/bench/gpu/h200-2026-11-30-moe-qwen3-12l-64e-768-s4096-mb4.json.gz");
        const QString config
            = QStringLiteral(MFU_SOURCE_DIR "/bench/gpu/h200-2026-11-30-moe-qwen3-12l-64e-768.config.json");
        ScenarioModel scenario;
        QVERIFY(setOneH200Run(scenario, config, 4));
        TracePanel panel(&scenario);
        panel.setKnownHardware(mfu::app::presetLibrary().hardware());
        panel.resize(835, 560); // the Trace tab at 1280x720
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QVERIFY(imports(panel, { trace }));
        auto* check = panel.findChild<QLabel*>(QStringLiteral("mfuCheck"));
        QVERIFY(check);
        QVERIFY2(check->text().count(QStringLiteral("\n•")) == 3, qPrintable(check->text()));
        // The layout settles on the event loop (the figures change as the scenario's and the trace's facts arrive):
        // wait for it, up to 5 s. The form layout never got there.
        QString clipped;
        const QWidget* box = check->parentWidget();
        QTRY_VERIFY2_WITH_TIMEOUT((clipped = firstClippedLabel(*box)).isEmpty(), qPrintable(clipped), 5000);
    }

    // Four files of four jobs: said, not analysed as one run; the button analyses them anyway.
    void ranksOfDifferentJobsAreHeldBack()
    {
        ScenarioModel scenario;
        TracePanel panel(&scenario);
        const QStringList files { write(QStringLiteral("a100_16.json"), rankTrace("NVIDIA A100-SXM4-80GB", 0, 16)),
            write(QStringLiteral("v100_1.json"), rankTrace("Tesla V100-SXM2-32GB", 0, 1)),
            write(QStringLiteral("v100_2.json"), rankTrace("Tesla V100-SXM2-32GB", 0, 2)),
            write(QStringLiteral("a100_8.json"), rankTrace("NVIDIA A100-SXM4-80GB", 3, 8)) };
        QSignalSpy failed(&panel, &TracePanel::importFailed);
        panel.openTraces(files);
        QVERIFY(failed.wait(20000) || failed.count() > 0);
        QVERIFY(!panel.run());
        QVERIFY(panel.hasHeldRun());
        const QString error = panel.errorText();
        QVERIFY2(error.contains(QStringLiteral("different jobs")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("world sizes differ")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("rank 0 appears 3 times")), qPrintable(error));
        auto* insist = panel.findChild<QPushButton*>(QStringLiteral("analyseAsOneRun"));
        QVERIFY(insist && !insist->isHidden());
        QSignalSpy shown(&panel, &TracePanel::imported);
        insist->click();
        QCOMPARE(shown.count(), 1);
        QVERIFY(panel.run());
        QCOMPARE(panel.run()->analysis.ranks.size(), size_t { 4 });
        QVERIFY(insist->isHidden());
        QVERIFY(panel.errorText().isEmpty());
    }

    // A trace without ProfilerStep annotations is not said to have them.
    void stepTimeSaysWhereItComesFrom()
    {
        ScenarioModel scenario;
        TracePanel panel(&scenario);
        const QString file = write(QStringLiteral("no_steps.json"), traceOf({ kernel(kGemm, "0", "80") }));
        QVERIFY(imports(panel, { file }));
        const QString stepTime = label(panel, "stepTime");
        QVERIFY2(!stepTime.contains(QStringLiteral("ProfilerStep annotations")), qPrintable(stepTime));
        QVERIFY2(stepTime.contains(QStringLiteral("no ProfilerStep annotation")), qPrintable(stepTime));
    }

    // Llama 3.1 405B on one H100 does not fit: no predicted MFU for it, as the Predict panel says.
    void noPredictionForALayoutThatDoesNotFit()
    {
        ScenarioModel scenario;
        mfu::Scenario s = defaultScenario(mfu::app::presetLibrary());
        s.model = *mfu::app::presetLibrary().findModel("llama-3.1-405b");
        s.cluster.hardware = *mfu::app::presetLibrary().findHardware("h100-sxm");
        s.cluster.gpuCount = 1;
        scenario.setScenario(s);
        TracePanel panel(&scenario);
        const QString predicted = label(panel, "predictedMfu");
        QVERIFY2(predicted.startsWith(QStringLiteral("none: the scenario's layout does not fit in memory")),
            qPrintable(predicted));
        QVERIFY2(!predicted.contains(QLatin1Char('%')), qPrintable(predicted));
    }

    // The comparison says which run is faster and names both GPUs when they differ.
    void comparisonNamesTheFasterRunAndBothGpus()
    {
        ScenarioModel scenario;
        TracePanel panel(&scenario);
        QVERIFY(imports(panel, { write(QStringLiteral("v100.json"), rankTrace("Tesla V100-SXM2-32GB", 0, 1)) }));
        const std::string faster
            = traceOf({ annotation("ProfilerStep#1", "0", "50", true), annotation("ProfilerStep#2", "50", "50", true),
                          kernel(kGemm, "0", "40"), kernel(kGemm, "50", "40") },
                "\"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA A100-SXM4-80GB\"}]");
        QVERIFY(imports(panel, { write(QStringLiteral("a100.json"), faster) }, true));
        const QString verdict = label(panel, "comparisonVerdict");
        QVERIFY2(verdict.startsWith(QStringLiteral("This run is 2.00x slower than the baseline")), qPrintable(verdict));
        QVERIFY2(verdict.contains(QStringLiteral("baseline: NVIDIA A100-SXM4-80GB, this run: Tesla V100-SXM2-32GB")),
            qPrintable(verdict));
        const ChartData& c = panel.comparisonChart()->data();
        QVERIFY2(c.title.contains(QStringLiteral("slower")), qPrintable(c.title));
        QCOMPARE(c.categories,
            QStringList({ QStringLiteral("Baseline (NVIDIA A100-SXM4-80GB)"),
                QStringLiteral("This run (Tesla V100-SXM2-32GB)") }));
    }

    // A V100 trace whose matrix operators ran in FP16, opened over a B200 scenario in BF16+FP8: adopting the trace's
    // facts adopts its GPU and the precision it ran in, and the scenario then names it FP16 as the trace does.
    void adoptingAV100AdoptsFp16()
    {
        const std::string half = "[\"c10::Half\", \"c10::Half\"]";
        const std::string mm = "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, "
                               "\"ts\": 0, \"dur\": 10, \"args\": {\"Input Dims\": [[1024, 1024], [1024, 1024]], "
                               "\"Input type\": "
            + half + "}}";
        const std::string launch = "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
                                   "\"pid\": 1, \"tid\": 1, \"ts\": 2, \"dur\": 2, \"args\": {\"correlation\": 1}}";
        const std::string v100 = traceOf(
            { annotation("ProfilerStep#1", "0", "100", true), annotation("ProfilerStep#2", "100", "100", true), mm,
                launch, kernel("volta_h884gemm_64x64_ldg8_nn", "5", "80", 7, 1),
                kernel("volta_h884gemm_64x64_ldg8_nn", "100", "80") },
            "\"deviceProperties\": [{\"id\": 0, \"name\": \"Tesla V100-SXM2-32GB\"}]");
        ScenarioModel scenario;
        mfu::Scenario s = defaultScenario(mfu::app::presetLibrary());
        s.cluster.hardware = *mfu::app::presetLibrary().findHardware("b200");
        s.precision = mfu::TrainingPrecision::BF16_FP8;
        scenario.setScenario(s);
        TracePanel panel(&scenario);
        panel.setKnownHardware(mfu::app::presetLibrary().hardware());
        QVERIFY(imports(panel, { write(QStringLiteral("v100_fp16.json"), v100) }));
        const QString facts = label(panel, "factsMessage");
        QVERIFY2(
            facts.contains(QStringLiteral("precision")) && facts.contains(QStringLiteral("V100")), qPrintable(facts));
        auto* use = panel.findChild<QPushButton*>(QStringLiteral("useFileFacts"));
        QVERIFY(use && use->text().contains(QStringLiteral("precision")));
        use->click();
        QCOMPARE(scenario.scenario().cluster.hardware.id, std::string("v100-sxm2-32gb"));
        QCOMPARE(scenario.scenario().precision, mfu::TrainingPrecision::BF16);
        QCOMPARE(mfu::trainingPrecisionLabel(scenario.scenario().precision, scenario.scenario().cluster.hardware),
            std::string("FP16"));
        ScenarioEditor editor(&scenario, mfu::app::presetLibrary());
        auto* precision = editor.findChild<QComboBox*>(QStringLiteral("precision"));
        QVERIFY(precision);
        QCOMPARE(precision->currentText(), QStringLiteral("FP16"));
        // The trace's own figures say FP16 too.
        QVERIFY2(
            label(panel, "traceMfu").contains(QStringLiteral("FP16 100.00%")), qPrintable(label(panel, "traceMfu")));
    }
};

QTEST_MAIN(TestTracePages)
#include "tst_pages.moc"
