// Predict panel: the summary follows every edit of the parallelism controls (synchronously), invalid layouts are
// explained next to their field, the sweeps and the planner arrive from the background with the not-fitting points
// marked and measured points overlaid, only the newest scenario's results are drawn, Apply hands a planned
// configuration to the scenario, and calibration moves the predictions. Expected numbers come from core for the
// scenario the panel ended up with, so the test checks that the panel shows what core computes.
#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSet>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QtTest>

#include "app/main_window.h"
#include "app/preset_store.h"
#include "app/validation_store.h"
#include "calibration_test_support.h"
#include "core/calibration/calibrated_sweep.h"
#include "core/costmodel/cost_model.h"
#include "core/costmodel/error_band.h"
#include "core/costmodel/levers.h"
#include "core/model/hardware_spec.h"
#include "core/number_format.h"
#include "core/scenario/settings.h"
#include "core/units.h"
#include "widgets/charts/chart_view.h"
#include "widgets/charts/meaning_palette.h"
#include "widgets/jobs/activity.h"
#include "widgets/jobs/background_job.h"
#include "widgets/predict/calibration_box.h"
#include "widgets/predict/lever_table.h"
#include "widgets/predict/parallelism_editor.h"
#include "widgets/predict/planner_page.h"
#include "widgets/predict/planner_table.h"
#include "widgets/predict/predict_charts.h"
#include "widgets/predict/predict_panel.h"
#include "widgets/scenario/reason_label.h"
#include "widgets/scenario/scenario_model.h"
#include <qcustomplot.h>

using namespace mfu;
using namespace mfu::widgets;

namespace {
constexpr int kBackgroundTimeoutMs = 120'000; // Debug and sanitizer builds on a shared machine

Scenario scenarioOn(const char* model, const char* gpu, int gpus, int64_t seq)
{
    const PresetLibrary& presets = app::presetLibrary();
    Scenario s;
    s.model = *presets.findModel(model);
    s.cluster.hardware = *presets.findHardware(gpu);
    s.cluster.gpuCount = gpus;
    s.workload.seqLen = seq;
    s.workload.microBatch = 1;
    return s;
}

QString percent(double fraction)
{
    return QString::fromStdString(formatPercent(fraction)); // the one percent format of every surface
}

const ChartSeries* seriesNamed(const ChartView* chart, const char* name)
{
    for (const ChartSeries& s : chart->data().series)
        if (s.name == QLatin1String(name))
            return &s;
    return nullptr;
}

double yAt(const ChartSeries& s, double x)
{
    const auto i = s.x.indexOf(x);
    return i < 0 ? -1 : s.y[i];
}
} // namespace

class TestPredictPanel : public QObject {
    Q_OBJECT

private:
    struct Fixture {
        ScenarioModel model;
        PredictPanel panel;
        QAbstractItemModelTester plannerTester;
        QAbstractItemModelTester sortedTester;
        explicit Fixture(const Scenario& s)
            : panel(&model)
            , plannerTester(panel.plannerModel(), QAbstractItemModelTester::FailureReportingMode::QtTest)
            , sortedTester(panel.plannerView(), QAbstractItemModelTester::FailureReportingMode::QtTest)
        {
            // Small GPU sweep: the full 1..16,384 range is the core sweep test's job, and slow in Debug builds.
            panel.setSweepValues(SweepAxis::GpuCount, { 1, 2, 4, 8, 16 });
            model.setScenario(s);
        }
        QString text(const char* name) const
        {
            auto* label = panel.findChild<QLabel*>(QLatin1String(name));
            return label ? label->text() : QStringLiteral("<no label %1>").arg(QLatin1String(name));
        }
        template <class W> W* field(const char* name) const
        {
            return panel.editor()->findChild<W*>(QLatin1String(name));
        }
        StepPrediction predicted() const { return evaluate(model.scenario()); }
        bool settled() const { return !panel.isComputing(); }
    };

private slots:
    void initTestCase()
    {
        QVERIFY(app::presetLibrary().findModel("llama-3.1-70b"));
        QVERIFY(app::presetLibrary().findHardware("b200"));
    }

    // A BF16+FP4 run: the headline MFU against the BF16 peak, and beside it against the FP4 peak, both from the core's
    // prediction.
    void fp4PredictionShowsTheFp4Peak()
    {
        Scenario s = scenarioOn("llama-3.1-8b", "b200", 8, 8192);
        s.precision = TrainingPrecision::BF16_FP4;
        Fixture f(s);
        QVERIFY(f.predicted().mfuVsFp4Peak);
        QCOMPARE(f.text("predictedMfu"),
            percent(f.predicted().mfu) + QStringLiteral(" (%1 of FP4 peak)").arg(percent(*f.predicted().mfuVsFp4Peak)));
    }

    // 70B on 16 B200 at 8k: every step of the TP spin box (as while dragging) updates the summary at once.
    void tpStepUpdatesSummarySynchronously()
    {
        Fixture f(scenarioOn("llama-3.1-70b", "b200", 16, 8192));
        const QString before = f.text("predictedMfu");
        QCOMPARE(before, percent(f.predicted().mfu));
        auto* tp = f.field<QSpinBox>("tp");
        QVERIFY(tp);
        QCOMPARE(tp->accessibleName(), QString::fromUtf8(findSetting("tp")->help.data()));
        tp->setFocus();
        QTest::keyClick(tp, Qt::Key_Up); // TP 2
        QCOMPARE(f.model.scenario().parallelism.tp, 2);
        QCOMPARE(f.text("predictedMfu"), percent(f.predicted().mfu));
        QVERIFY(f.text("predictedMfu") != before);
        QCOMPARE(f.text("bottleneck"), QString::fromStdString(bottleneckSentence(f.predicted())));
        QVERIFY(f.text("fits").contains(QLatin1String("GiB")));
    }

    // An uneven layout (the embedding and the loss counted as layers of PP 2) names the rank that sets its pace beside
    // the bottleneck, the sentence the core writes; an even one does not.
    void unevenLayoutNamesThePacingRank()
    {
        Scenario s = scenarioOn("llama-3.1-70b", "b200", 16, 8192);
        s.parallelism.pp = 2;
        s.parallelism.embeddingStage = true;
        s.parallelism.lossStage = true;
        Fixture f(s);
        const StepPrediction p = f.predicted();
        QVERIFY(p.pacingRank);
        const std::string pace = pacingRankSentence(p, 2);
        QCOMPARE(f.text("bottleneck"), QString::fromStdString(bottleneckSentence(p) + " " + pace));
        QVERIFY2(pace.find("The pace is set by pipeline rank ") == 0, pace.c_str());
        s.parallelism.embeddingStage = s.parallelism.lossStage = false;
        f.model.setScenario(s);
        QCOMPARE(f.text("bottleneck"), QString::fromStdString(bottleneckSentence(f.predicted())));
    }

    // A price edit changes nothing the sweeps or the planner read: they are not restarted. A sequence edit does.
    void priceEditDoesNotRestartBackgroundWork()
    {
        Fixture f(scenarioOn("llama-3.1-8b", "b200", 8, 8192));
        QTRY_VERIFY_WITH_TIMEOUT(f.settled(), kBackgroundTimeoutMs);
        bool sawBusy = false;
        connect(
            f.panel.activity(), &Activity::changed, this, [&] { sawBusy = sawBusy || f.panel.activity()->isBusy(); });
        f.model.setPricePerGpuHour(7.25);
        CostInputs cost = f.model.scenario().cost;
        cost.days = 30;
        f.model.setCostInputs(cost);
        f.model.setThroughput(ThroughputInput::TokensPerSecPerGpu, 12000);
        QTest::qWait(50); // the queued restart runs
        QVERIFY(!sawBusy);
        QVERIFY(f.settled());
        f.model.setSeqLen(4096);
        QTest::qWait(50);
        QVERIFY(sawBusy || !f.settled());
        QTRY_VERIFY_WITH_TIMEOUT(f.settled(), kBackgroundTimeoutMs);
    }

    void checkpointingComboChangesPrediction()
    {
        Fixture f(scenarioOn("llama-3.1-8b", "b200", 8, 8192));
        const QString mfuBefore = f.text("predictedMfu");
        auto* ac = f.field<QComboBox>("activationCheckpointing");
        QVERIFY(ac);
        ac->setCurrentIndex(ac->findData(int(ActivationCheckpointing::Full)));
        QCOMPARE(f.model.scenario().activationCheckpointing, ActivationCheckpointing::Full);
        const StepPrediction p = f.predicted();
        QVERIFY(p.hfu > p.mfu); // full recompute: hardware does more than the model needs
        QCOMPARE(f.text("predictedMfu"), percent(p.mfu));
        QCOMPARE(f.text("predictedHfu"), percent(p.hfu));
        QVERIFY(f.text("predictedMfu") != mfuBefore);
        // The global batch in tokens is kept when the data-parallel degree changes.
        const int64_t batch = f.model.scenario().workload.globalBatchTokens;
        f.field<QSpinBox>("tp")->setValue(2);
        QCOMPARE(f.model.scenario().workload.globalBatchTokens, batch);
    }

    // Packing inputs: a mean document length packs the sequence and the prediction follows core; a document longer
    // than the packed sequence is explained and not applied; padding and the fused cross-entropy are levers.
    void packingInputsChangeThePrediction()
    {
        Fixture f(scenarioOn("llama-3.1-8b", "b200", 8, 32768));
        const QString before = f.text("predictedMfu");
        auto* documents = f.field<QSpinBox>("documentLength");
        QVERIFY(documents);
        documents->setValue(2048);
        const SequencePacking& p = f.model.scenario().workload.packing;
        QCOMPARE(p.documents.size(), size_t(1));
        QCOMPARE(p.documents[0].length, int64_t(2048));
        QVERIFY(p.meanOnly);
        QCOMPARE(f.text("predictedMfu"), percent(f.predicted().mfu));
        QVERIFY(f.text("predictedMfu") != before); // attention over 2,048-token documents, not 32,768
        documents->setValue(65536);
        QCOMPARE(f.model.scenario().workload.packing.documents[0].length, int64_t(2048));
        QVERIFY(f.panel.editor()
                    ->validationReason(QStringLiteral("documentLength"))
                    .contains(QLatin1String("longer than the sequence")));
        QVERIFY2(f.panel.editor()
                     ->validationReason(QStringLiteral("documentLength"))
                     .contains(QLatin1String("(65,536 tokens, sequence 32,768)")),
            qPrintable(f.panel.editor()->validationReason(QStringLiteral("documentLength"))));
        f.field<QSpinBox>("paddingPercent")->setValue(25);
        QCOMPARE(f.model.scenario().workload.packing.paddingFraction, 0.25);
        QCOMPARE(f.text("predictedMfu"), percent(f.predicted().mfu));
        auto* mask = f.field<QComboBox>("attentionMask");
        mask->setCurrentIndex(mask->findData(int(PackedAttention::WholeSequence)));
        QCOMPARE(f.model.scenario().workload.packing.attention, PackedAttention::WholeSequence);
        auto* fused = f.field<QCheckBox>("fusedLinearCrossEntropy");
        QVERIFY(fused);
        const double memoryBefore = f.predicted().memory.total();
        fused->setChecked(true);
        QVERIFY(f.model.scenario().flags.fusedLinearCrossEntropy);
        QVERIFY(f.predicted().memory.total() < memoryBefore); // the logits are no longer held whole
        documents->setValue(0);
        QVERIFY(!f.model.scenario().workload.packing.packed());
    }

    // A MoE without EP: the lever row names the EP core picks, in the words `predict` prints (leverName), with the
    // same figures.
    void expertParallelismLeverRow()
    {
        Fixture f(scenarioOn("deepseek-v3", "gb300", 256, 4096));
        const std::vector<LeverEffect> levers = leverEffects(f.model.scenario());
        QVERIFY(!levers.empty());
        QCOMPARE(levers.back().lever, Lever::ExpertParallelism);
        auto* table = f.panel.leverTable();
        const int last = table->rowCount() - 1;
        QCOMPARE(table->rowCount(), int(levers.size()));
        QCOMPARE(table->item(last, 0)->text(), QString::fromStdString(leverName(levers.back())));
        QCOMPARE(table->item(last, 0)->text(), QStringLiteral("Expert parallelism (EP 64)"));
        QCOMPARE(table->item(last, 1)->text(), QStringLiteral("off"));
        QVERIFY(levers.back().with.mfu);
        QVERIFY2(table->item(last, 3)->text().startsWith(percent(*levers.back().with.mfu)),
            qPrintable(table->item(last, 3)->text()));
    }

    // The levers of a packed, padded run, each with and without, as core computes them; and PaLM's count over the
    // packing length beside the predicted MFU, labelled as the over-count it is.
    void leversAndThePackingLengthCount()
    {
        Fixture f(scenarioOn("llama-3.1-8b", "b200", 8, 32768));
        QVERIFY(!f.panel.findChild<QLabel*>(QStringLiteral("predictedMfuOverPackingLength"))->isVisibleTo(&f.panel));
        f.field<QSpinBox>("documentLength")->setValue(2048);
        f.field<QSpinBox>("paddingPercent")->setValue(10);
        auto* table = f.panel.leverTable();
        QVERIFY(table);
        const std::vector<LeverEffect> levers = leverEffects(f.model.scenario());
        QCOMPARE(table->rowCount(), int(levers.size()));
        QCOMPARE(table->rowCount(), 3); // compiled: torch.compile fuses the norms already, no row for that lever
        QCOMPARE(table->item(0, 0)->text(), QStringLiteral("Remove padding"));
        QCOMPARE(table->item(0, 1)->text(), QStringLiteral("off"));
        QVERIFY(levers[0].with.mfu);
        QVERIFY2(
            table->item(0, 3)->text().startsWith(percent(*levers[0].with.mfu)), qPrintable(table->item(0, 3)->text()));
        QVERIFY2(
            table->item(0, 2)->text().startsWith(QLocale().toString(levers[0].with.usefulTokensPerSecPerGpu, 'f', 0)),
            qPrintable(table->item(0, 2)->text()));
        QCOMPARE(table->item(1, 0)->text(), QStringLiteral("Attention per document"));
        QCOMPARE(table->item(1, 1)->text(), QStringLiteral("on"));
        f.field<QCheckBox>("compiled")->setChecked(false); // eager: the fused kernels are a lever
        QCOMPARE(f.panel.leverTable()->rowCount(), 4);
        QCOMPARE(f.panel.leverTable()->item(3, 1)->text(), QStringLiteral("off"));
        f.field<QCheckBox>("fusedNormActivation")->setChecked(true);
        QVERIFY(f.model.scenario().flags.fusedNormActivation);
        QCOMPARE(f.panel.leverTable()->item(3, 1)->text(), QStringLiteral("on"));

        auto* naive = f.panel.findChild<QLabel*>(QStringLiteral("predictedMfuOverPackingLength"));
        QVERIFY(naive->isVisibleTo(&f.panel));
        QVERIFY(f.predicted().mfuPalmOverPackingLength);
        QVERIFY2(naive->text().contains(percent(*f.predicted().mfuPalmOverPackingLength))
                && naive->text().contains(QStringLiteral("over-count")),
            qPrintable(naive->text()));
        QVERIFY(*f.predicted().mfuPalmOverPackingLength > f.predicted().mfu);
    }

    // TP 3 cannot divide 8 GPUs or the heads: the reason appears next to TP and the scenario keeps TP 1.
    void invalidLayoutIsExplainedAndNotApplied()
    {
        Fixture f(scenarioOn("llama-3.1-8b", "b200", 8, 8192));
        f.field<QSpinBox>("tp")->setValue(3);
        QCOMPARE(f.model.scenario().parallelism.tp, 1);
        QVERIFY(!f.panel.editor()->validationReason(QStringLiteral("tp")).isEmpty());
        QVERIFY(f.panel.editor()->findChild<QLabel*>(QStringLiteral("tpReason"))->isVisibleTo(f.panel.editor()));
        QCOMPARE(f.field<QSpinBox>("tp")->accessibleDescription(), f.panel.editor()->validationReason("tp"));
        f.field<QSpinBox>("tp")->setValue(2);
        QCOMPARE(f.model.scenario().parallelism.tp, 2);
        QVERIFY(f.panel.editor()->validationReason(QStringLiteral("tp")).isEmpty());
        // A global batch that is not a whole number of micro-steps.
        f.field<QSpinBox>("globalBatchTokens")->setValue(8192 * 4 + 1);
        QVERIFY(!f.panel.editor()->validationReason(QStringLiteral("globalBatchTokens")).isEmpty());
    }

    // A setting stated without effect on the run is said under the figures, by its field's label, with why.
    void ignoredSettingsAreSaid()
    {
        Scenario s = scenarioOn("llama-3.1-8b", "b200", 8, 8192);
        Fixture f(s);
        auto* ignored = f.panel.findChild<QLabel*>(QStringLiteral("ignoredSettings"));
        QVERIFY(ignored);
        QVERIFY(ignored->isHidden());
        s.flags.fusedExpertMlp = true;
        f.model.setScenario(s);
        QVERIFY(!ignored->isHidden());
        QCOMPARE(ignored->text(), QStringLiteral("Without effect here: Fused expert MLP (the model has no experts)."));
    }

    // A layout broken outside the editor (fewer GPUs than PP x CP, set in the scenario dock or a file) does not
    // block the edits that mend it in steps, nor unrelated ones; from a valid layout a breaking edit is refused.
    void aLayoutBrokenElsewhereDoesNotBlockEdits()
    {
        Scenario s = scenarioOn("llama-3.1-8b", "b200", 16, 8192);
        s.parallelism.pp = 4;
        s.parallelism.cp = 4;
        Fixture f(s);
        QVERIFY(scenarioProblem(f.model.scenario()).isEmpty());
        s.cluster.gpuCount = 8;
        f.model.setScenario(s);
        QVERIFY(!scenarioProblem(f.model.scenario()).isEmpty());
        f.field<QSpinBox>("microBatch")->setValue(2);
        QCOMPARE(f.model.scenario().workload.microBatch, int64_t(2));
        QVERIFY(f.panel.editor()->validationReason(QStringLiteral("microBatch")).isEmpty());
        f.field<QSpinBox>("pp")->setValue(2);
        QCOMPARE(f.model.scenario().parallelism.pp, 2);
        QVERIFY(scenarioProblem(f.model.scenario()).isEmpty());
        f.field<QSpinBox>("tp")->setValue(3);
        QCOMPARE(f.model.scenario().parallelism.tp, 1);
        QVERIFY(!f.panel.editor()->validationReason(QStringLiteral("tp")).isEmpty());
    }

    // Issue 35. The global batch reads in tokens, the same after every edit: one micro-step of 8 ranks x 8,192
    // before any batch is given (not "1"), and what is given after.
    void globalBatchReadsInTokens()
    {
        Fixture f(scenarioOn("llama-3.1-8b", "b200", 8, 8192));
        QCOMPARE(f.model.scenario().workload.globalBatchTokens, int64_t(0));
        auto* batch = f.field<QSpinBox>("globalBatchTokens");
        QCOMPARE(batch->suffix(), QStringLiteral(" tokens"));
        QCOMPARE(batch->value(), 8 * 8192);
        QVERIFY2(batch->text().endsWith(QStringLiteral(" tokens")), qPrintable(batch->text()));
        // Another edit keeps the batch (ScenarioModel::setConfiguration): the tokens the field showed are the ones
        // now given, so it reads the same.
        f.field<QSpinBox>("tp")->setValue(2);
        QCOMPARE(f.model.scenario().parallelism.tp, 2);
        QCOMPARE(f.model.scenario().workload.globalBatchTokens, int64_t(8 * 8192));
        QCOMPARE(batch->value(), 8 * 8192);
        batch->setValue(4 * 4 * 8192); // 4 micro-steps of the 4 data-parallel ranks
        QCOMPARE(f.model.scenario().workload.globalBatchTokens, int64_t(4 * 4 * 8192));
        QCOMPARE(batch->value(), 4 * 4 * 8192);
    }

    // A refusal keeps the user's number on screen with its reason and figures; Escape puts the scenario's value back
    // and clears the reason; a number beyond the field's range is refused aloud, not dropped.
    void refusalsCarryFiguresAndEscapeRestores()
    {
        Fixture f(scenarioOn("kimi-k2.5", "h100-sxm", 1024, 4096));
        auto* ep = f.field<QSpinBox>("ep");
        const int before = f.model.scenario().parallelism.ep;
        ep->setValue(256);
        QCOMPARE(f.model.scenario().parallelism.ep, before);
        QCOMPARE(f.panel.editor()->validationReason(QStringLiteral("ep")),
            QStringLiteral("ep must divide the number of experts (ep 256, 384 experts)"));
        QTest::keyClick(ep, Qt::Key_Escape);
        QCOMPARE(ep->value(), before);
        QVERIFY(f.panel.editor()->validationReason(QStringLiteral("ep")).isEmpty());
        QVERIFY(!f.panel.editor()->findChild<QLabel*>(QStringLiteral("epReason"))->isVisibleTo(f.panel.editor()));

        auto* padding = f.field<QSpinBox>("paddingPercent");
        padding->setFocus();
        QLineEdit* line = padding->findChild<QLineEdit*>();
        line->selectAll();
        QTest::keyClicks(line, QStringLiteral("150"));
        const QString reason = f.panel.editor()->validationReason(QStringLiteral("paddingPercent"));
        QCOMPARE(reason, QStringLiteral("Enter a whole number from 0 % to 99 %; until then the scenario keeps 0 %."));
        // Qt puts 0 back; the refusal stays said, naming what was not applied (the dock's and Cost panel's rule).
        QTest::keyClick(padding, Qt::Key_Return);
        QCOMPARE(f.model.scenario().workload.packing.paddingFraction, 0.0);
        QCOMPARE(f.panel.editor()->validationReason(QStringLiteral("paddingPercent")),
            QStringLiteral("Not applied: \u201C150\u201D. ") + reason);
        // Text that is no number is refused too, where it had been dropped without a word.
        line->selectAll();
        QTest::keyClicks(line, QStringLiteral("abc"));
        QCOMPARE(f.panel.editor()->validationReason(QStringLiteral("paddingPercent")), reason);
        // A number in range clears it as it is typed, and applies on Enter.
        line->selectAll();
        QTest::keyClicks(line, QStringLiteral("20"));
        QVERIFY(f.panel.editor()->validationReason(QStringLiteral("paddingPercent")).isEmpty());
        QTest::keyClick(padding, Qt::Key_Return);
        QCOMPARE(f.model.scenario().workload.packing.paddingFraction, 0.2);
        // Escape after a refused number also clears.
        line->selectAll();
        QTest::keyClicks(line, QStringLiteral("150"));
        QVERIFY(!f.panel.editor()->validationReason(QStringLiteral("paddingPercent")).isEmpty());
        QTest::keyClick(padding, Qt::Key_Escape);
        QVERIFY(f.panel.editor()->validationReason(QStringLiteral("paddingPercent")).isEmpty());
        QCOMPARE(padding->value(), 20);
    }

    void breakdownCharts()
    {
        Fixture f(scenarioOn("llama-3.1-8b", "b200", 8, 8192));
        const StepPrediction p = f.predicted();
        const ChartData& w = f.panel.waterfallChart()->data();
        QCOMPARE(w.categories.front(), QStringLiteral("BF16 dense peak"));
        QCOMPARE(w.categories.back(), QStringLiteral("Achieved MFU"));
        QCOMPARE(w.series.size(), 2);
        QCOMPARE(w.series[0].y.front(), 100.0);
        QVERIFY(std::abs(w.series[0].y.back() - 100.0 * p.mfu) < 1e-9);
        QCOMPARE(w.series[1].stackedOn, 0);
        const ChartData& m = f.panel.memoryChart()->data();
        QCOMPARE(m.yAxis.unit, QStringLiteral("GiB"));
        const ChartSeries* capacity = seriesNamed(f.panel.memoryChart(), series::kCapacity);
        QVERIFY(capacity);
        QVERIFY(std::abs(capacity->y.front() - p.memoryCapacityBytes / kGiB) < 1e-9);
        double stacked = 0;
        for (const ChartSeries& s : m.series)
            if (s.kind == SeriesKind::Bars)
                stacked += s.y.front();
        QVERIFY(std::abs(stacked - p.memory.total() / kGiB) < 1e-6);

        // FP4 matmuls beat the BF16 peak: their bar is a gain, drawn in its own series, not as a loss.
        Scenario fp4 = scenarioOn("llama-3.1-8b", "b200", 8, 8192);
        fp4.precision = TrainingPrecision::BF16_FP4;
        f.model.setScenario(fp4);
        const ChartData& g = f.panel.waterfallChart()->data();
        QCOMPARE(g.series.size(), 3);
        QCOMPARE(g.series[2].name, QStringLiteral("Gained here"));
        for (qsizetype i = 0; i < g.categories.size(); ++i) {
            const bool gain = g.categories[i].endsWith(QStringLiteral("(gain)"));
            QCOMPARE(g.series[2].y[i] > 0, gain);
            if (gain)
                QCOMPARE(g.series[1].y[i], 0.0);
        }
    }

    // 8B on 8 B200 without checkpointing: 128k does not fit (marked, not dropped); the planner's best is drawn for
    // every point; a measured point at 8k is overlaid; TP 2 cannot be laid out on one GPU (marked at 0).
    void sweepChartsMarkMisfitsAndMeasuredPoints()
    {
        Scenario s = scenarioOn("llama-3.1-8b", "b200", 8, 8192);
        s.measuredPoints.push_back({ "my run", 8192, 8, TrainingPrecision::BF16, 0.52 });
        s.parallelism.tp = 2;
        Fixture f(s);
        QTRY_VERIFY_WITH_TIMEOUT(f.settled() && !f.panel.seqChart()->data().series.isEmpty(), kBackgroundTimeoutMs);
        const ChartView* seq = f.panel.seqChart();
        QCOMPARE(seq->data().xAxis.unit, QStringLiteral("tokens"));
        QVERIFY(seq->data().logX);
        QVERIFY(seriesNamed(seq, series::kCurrent));
        QVERIFY(seriesNamed(seq, series::kBest));
        const ChartSeries* misfit = seriesNamed(seq, series::kCurrentMisfit);
        QVERIFY(misfit);
        QCOMPARE(misfit->kind, SeriesKind::Misfit);
        QVERIFY(misfit->x.contains(131072.0));
        // No MFU for a layout that does not fit (the headline has none either): marked at 0, read out as none.
        QVERIFY(misfit->withoutValue);
        for (double mfu : misfit->y)
            QCOMPARE(mfu, 0.0);
        QCOMPARE(seriesNamed(seq, series::kBest)->x.size(), 7);
        const ChartSeries* measured = seriesNamed(seq, series::kMeasured);
        QVERIFY(measured);
        QCOMPARE(yAt(*measured, 8192), 52.0);
        // The chart shows the current scenario's own prediction at its sequence length.
        QVERIFY(std::abs(yAt(*seriesNamed(seq, series::kCurrent), 8192) - 100.0 * f.predicted().mfu) < 1e-9);

        // The scenario's own point where it does not fit stands at 0 with no value, as the configuration's misfit
        // points do; it had been drawn at its predicted MFU beside the misfit mark at 0.
        {
            Scenario longer = scenarioOn("llama-3.1-8b", "b200", 8, 131072);
            Fixture g(longer);
            QTRY_VERIFY_WITH_TIMEOUT(g.settled() && !g.panel.seqChart()->data().series.isEmpty(), kBackgroundTimeoutMs);
            QVERIFY(!g.predicted().fits);
            const ChartSeries* own = nullptr;
            for (const ChartSeries& c : g.panel.seqChart()->data().series)
                if (c.name.startsWith(QStringLiteral("This scenario")))
                    own = &c;
            QVERIFY(own);
            QVERIFY2(own->name.contains(QStringLiteral("does not fit")), qPrintable(own->name));
            QCOMPARE(own->y.value(0), 0.0);
            QVERIFY(own->withoutValue);
        }

        const ChartView* gpus = f.panel.gpuChart();
        const ChartSeries* invalid = seriesNamed(gpus, series::kCurrentInvalid);
        QVERIFY(invalid);
        QVERIFY(invalid->x.contains(1.0));
        QVERIFY(seriesNamed(gpus, series::kCurrent)->x.contains(16.0));

        const ChartView* tflops = f.panel.precisionTflopsChart();
        // A B200 trains in NVFP4 too: its point stands beside FP8's.
        QCOMPARE(tflops->data().categories, QStringList({ "BF16", "BF16+FP8", "BF16+FP4" }));
        QCOMPARE(tflops->data().series.front().x.size(), 3);
        const ChartView* mfuChart = f.panel.precisionMfuChart();
        QCOMPARE(mfuChart->data().categories.size(), 5);
        // BF16; FP8 vs the BF16 and the FP8 peak; FP4 vs the BF16 and the FP4 peak
        QCOMPARE(seriesNamed(mfuChart, series::kCurrent)->x.size(), 5);
    }

    // The error band: without validation residuals +-5% ("no validation runs"); with residuals of similar runs
    // (Blackwell dense here: errors -10%..+30%) the headline band and the shaded sweep band follow them.
    void errorBandOnHeadlineAndSweeps()
    {
        Fixture f(scenarioOn("llama-3.1-8b", "b200", 8, 8192));
        QVERIFY(f.text("predictedBand").contains(QLatin1String("no validation runs")));
        ErrorBandModel bands;
        for (double e : { -0.10, 0.0, 0.10, 0.20, 0.30 })
            bands.residuals.push_back({ "Blackwell", false, e });
        f.panel.setErrorBandModel(bands);
        const StepPrediction p = f.predicted();
        const ErrorBand band = errorBandFor(f.model.scenario(), p, bands);
        // The line under the figures says where their ranges come from, and the per-GPU range no figure shows; the
        // MFU range is under the MFU, not repeated.
        QVERIFY(f.text("predictedBand").contains(QLatin1String("5 published Blackwell dense runs")));
        QVERIFY(f.text("predictedBand").contains(QLocale().toString(band.tokensPerSecPerGpuHigh, 'f', 0)));
        QVERIFY(!f.text("predictedBand").contains(percent(band.mfuLow)));
        // On the headline figures themselves, under each one the band scales.
        QVERIFY(f.text("predictedMfuBand").contains(percent(band.mfuLow)));
        QVERIFY(f.text("predictedMfuBand").contains(percent(band.mfuHigh)));
        QVERIFY(f.text("tokensPerSecBand").contains(QLocale().toString(p.tokensPerSec * band.highFactor, 'f', 0)));
        QVERIFY(!f.text("stepTimeBand").isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(
            f.settled() && seriesNamed(f.panel.seqChart(), series::kBandHigh), kBackgroundTimeoutMs);
        const ChartView* seq = f.panel.seqChart();
        const ChartSeries* low = seriesNamed(seq, series::kBandLow);
        const ChartSeries* high = seriesNamed(seq, series::kBandHigh);
        QVERIFY(low && high);
        QCOMPARE(high->kind, SeriesKind::Band);
        QCOMPARE(high->stackedOn, int(low - seq->data().series.data())); // shaded down to the low edge
        const double current = yAt(*seriesNamed(seq, series::kCurrent), 8192);
        QVERIFY(std::abs(yAt(*low, 8192) - current * band.lowFactor) < 1e-9);
        QVERIFY(std::abs(yAt(*high, 8192) - current * band.highFactor) < 1e-9);
        auto* fill = qobject_cast<QCPGraph*>(seq->plot()->plottable(high->stackedOn + 1));
        QVERIFY(fill && fill->channelFillGraph());
    }

    // Each kind of point has a symbol and legend entry of its own, and the scenario's own point is a star: 70B with
    // TP 8 on a GPU sweep of 1..16 cannot be laid out below 8 GPUs (grey X at 0), the planner finds nothing that fits
    // on one GPU (triangle at 0), and the scenario (16 GPUs) is drawn where it lies.
    void sweepMarksEachKindOfPointApart()
    {
        Scenario s = scenarioOn("llama-3.1-70b", "b200", 16, 8192);
        s.parallelism.tp = 8;
        s.activationCheckpointing = ActivationCheckpointing::Full;
        Fixture f(s);
        QTRY_VERIFY_WITH_TIMEOUT(f.settled() && !f.panel.gpuChart()->data().series.isEmpty(), kBackgroundTimeoutMs);
        const ChartView* gpus = f.panel.gpuChart();
        const ChartSeries* invalid = seriesNamed(gpus, series::kCurrentInvalid);
        const ChartSeries* nothing = seriesNamed(gpus, series::kBestNone);
        QVERIFY(invalid && nothing);
        QVERIFY(invalid->x.contains(1.0) && invalid->x.contains(4.0));
        QVERIFY(nothing->x.contains(1.0));
        QCOMPARE(invalid->marker, Marker::Cross);
        QCOMPARE(nothing->marker, Marker::TriangleDown);
        QVERIFY(invalid->colour != nothing->colour);
        // Drawn with different symbols, each with its own legend entry.
        QSet<int> shapes;
        for (const ChartSeries* one : { invalid, nothing }) {
            auto* graph = qobject_cast<QCPGraph*>(gpus->plot()->plottable(int(one - gpus->data().series.data())));
            QVERIFY(graph && gpus->plot()->legend->hasItemWithPlottable(graph));
            shapes << int(graph->scatterStyle().shape());
        }
        shapes << int(QCPScatterStyle::ssCrossCircle); // does not fit
        QCOMPARE(shapes.size(), 3);

        const StepPrediction own = f.predicted();
        const QString ownName = ownPointName(f.model.scenario(), SweepAxis::GpuCount, &own);
        const ChartSeries* star = nullptr;
        for (const ChartSeries& one : gpus->data().series)
            if (one.name == ownName)
                star = &one;
        QVERIFY2(star, qPrintable(ownName));
        QCOMPARE(star->marker, Marker::Star);
        QCOMPARE(star->x, QVector<double>({ 16.0 }));
        QVERIFY(std::abs(star->y.front() - 100.0 * own.mfu) < 1e-9);
        QVERIFY(ownName.contains(QLatin1String("16 GPUs")));
    }

    // The network tab: Llama 3.1 8B with FSDP over 8 H100 nodes, each point the scenario with that network per GPU
    // stated (the editor's field and --scale-out-gbps set the same), slower at 25 Gb/s than at 3,200, and the
    // scenario's own star at its preset's 400 Gb/s with the headline's MFU.
    void networkTabShowsWhatAFasterFabricBuys()
    {
        Fixture f(scenarioOn("llama-3.1-8b", "h100-sxm", 64, 8192));
        QTRY_VERIFY_WITH_TIMEOUT(
            f.settled() && seriesNamed(f.panel.networkChart(), series::kCurrent), kBackgroundTimeoutMs);
        const ChartView* network = f.panel.networkChart();
        QCOMPARE(network->data().xAxis.unit, QStringLiteral("Gb/s"));
        QVERIFY(network->data().logX);
        const ChartSeries* current = seriesNamed(network, series::kCurrent);
        QCOMPARE(current->x, QVector<double>({ 25, 50, 100, 200, 400, 800, 1600, 3200 }));
        QVERIFY(yAt(*current, 25) < yAt(*current, 3200));
        Scenario stated = f.model.scenario();
        setStatedScaleOut(stated.cluster.hardware, 100);
        QVERIFY(std::abs(yAt(*current, 100) - 100.0 * evaluate(stated).mfu) < 1e-9);
        QCOMPARE(seriesNamed(network, series::kBest)->x.size(), 8);
        const StepPrediction own = f.predicted();
        const QString ownName = ownPointName(f.model.scenario(), SweepAxis::Network, &own);
        QCOMPARE(ownName, QStringLiteral("This scenario (400 Gb/s)"));
        const ChartSeries* star = seriesNamed(network, ownName.toLatin1().constData());
        QVERIFY2(star, qPrintable(ownName));
        QCOMPARE(star->x, QVector<double>({ 400.0 }));
        QVERIFY(std::abs(star->y.front() - 100.0 * own.mfu) < 1e-9);
        QVERIFY(std::abs(yAt(*current, 400) - 100.0 * own.mfu) < 1e-9); // the preset's network is a point
        QVERIFY(network->emptyReason().isEmpty());

        // Inside one NVLink domain the tab says why the network changes nothing, instead of a flat line. The edit
        // lands while the 8-node sweep still runs: the sentence shows at once, and that older sweep, superseded,
        // never draws over it.
        Fixture node(scenarioOn("llama-3.1-8b", "h100-sxm", 64, 8192));
        QTRY_VERIFY_WITH_TIMEOUT(
            node.panel.networkChart()->emptyReason().startsWith(QLatin1String("Predicting")), kBackgroundTimeoutMs);
        node.model.setScenario(scenarioOn("llama-3.1-8b", "h100-sxm", 8, 8192));
        const QString note = QString::fromStdString(networkSweepNote(node.model.scenario()));
        QVERIFY(note.startsWith(QLatin1String("All 8 GPUs share")));
        // wrapped to the chart
        QTRY_COMPARE_WITH_TIMEOUT(node.panel.networkChart()->emptyReason().simplified(), note, kBackgroundTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(node.settled(), kBackgroundTimeoutMs);
        QCOMPARE(node.panel.networkChart()->emptyReason().simplified(), note);
        QVERIFY(!seriesNamed(node.panel.networkChart(), series::kCurrent));
    }

    // One colour per meaning across every chart of the panel: each series (but the band's edges, shaded in their
    // line's colour) has the colour of what it means or the text's; a colour never names two things, but this
    // configuration's line and the MFU its waterfall keeps; the palette gives no two meanings one colour.
    void oneColourPerMeaning()
    {
        QSet<QRgb> palette;
        for (int m = 0; m <= static_cast<int>(kLastMeaning); ++m)
            palette << meaningColour(static_cast<Meaning>(m)).rgb();
        QCOMPARE(palette.size(), static_cast<int>(kLastMeaning) + 1);

        Scenario s = scenarioOn("llama-3.1-8b", "b200", 8, 8192);
        s.precision = TrainingPrecision::BF16_FP4; // a gain in the waterfall
        s.measuredPoints.push_back({ "my run", 8192, 8, TrainingPrecision::BF16_FP4, 0.52 });
        s.parallelism.tp = 2; // cannot be laid out on one GPU
        Fixture f(s);
        QTRY_VERIFY_WITH_TIMEOUT(f.settled() && !f.panel.gpuChart()->data().series.isEmpty()
                && f.panel.memoryChart()->data().categories.size() == 2,
            kBackgroundTimeoutMs);
        QHash<QRgb, QSet<QString>> namesByColour;
        QHash<QString, QRgb> colourByName;
        for (const ChartView* chart :
            { f.panel.waterfallChart(), f.panel.memoryChart(), f.panel.seqChart(), f.panel.gpuChart(),
                f.panel.networkChart(), f.panel.precisionTflopsChart(), f.panel.precisionMfuChart() }) {
            for (const ChartSeries& one : chart->data().series) {
                if (one.kind == SeriesKind::Band)
                    continue;
                QVERIFY2(one.colour.isValid() || one.inTextColour, qPrintable(one.name));
                if (!one.colour.isValid())
                    continue;
                namesByColour[one.colour.rgb()] << one.name;
                QVERIFY2(!colourByName.contains(one.name) || colourByName[one.name] == one.colour.rgb(),
                    qPrintable(one.name));
                colourByName[one.name] = one.colour.rgb();
            }
        }
        QVERIFY(colourByName.contains(QStringLiteral("Gained here")));
        QVERIFY(colourByName.contains(QLatin1String(series::kCurrentInvalid)));
        for (auto it = namesByColour.begin(); it != namesByColour.end(); ++it) {
            QSet<QString> names = it.value();
            if (names.contains(QLatin1String(series::kCurrent)))
                names.remove(QStringLiteral("MFU left"));
            QVERIFY2(names.size() == 1, qPrintable(QStringList(names.begin(), names.end()).join(QStringLiteral(", "))));
        }
    }

    // A sweep where a single point is valid still shows it: a line of one point gets a marker.
    void singleValidPointIsDrawn()
    {
        Fixture f(scenarioOn("llama-3.1-8b", "b200", 8, 8192));
        f.panel.setSweepValues(SweepAxis::SeqLen, { 8192 });
        QTRY_VERIFY_WITH_TIMEOUT(
            f.settled() && seriesNamed(f.panel.seqChart(), series::kCurrent), kBackgroundTimeoutMs);
        const ChartView* seq = f.panel.seqChart();
        const ChartSeries* current = seriesNamed(seq, series::kCurrent);
        QCOMPARE(current->x.size(), 1);
        auto* graph = qobject_cast<QCPGraph*>(seq->plot()->plottable(int(current - seq->data().series.data())));
        QVERIFY(graph);
        QVERIFY(!graph->scatterStyle().isNone());
    }

    // Per GPU and per node never share an axis: the lines are per GPU, and a right-hand scale reads them per node.
    void precisionChartKeepsPerGpuAndPerNodeApart()
    {
        Fixture f(scenarioOn("llama-3.1-8b", "b200", 16, 8192));
        QTRY_VERIFY_WITH_TIMEOUT(
            f.settled() && !f.panel.precisionTflopsChart()->data().series.isEmpty(), kBackgroundTimeoutMs);
        const ChartData& d = f.panel.precisionTflopsChart()->data();
        QCOMPARE(d.yAxis.label, QStringLiteral("Per GPU"));
        for (const ChartSeries& one : d.series)
            QVERIFY2(!one.name.contains(QLatin1String("node")), qPrintable(one.name));
        const StepPrediction p = f.predicted();
        QCOMPARE(d.y2Factor, double(qRound(p.tflopsPerNode / p.tflopsPerGpu))); // 8 GPUs per node
        QCOMPARE(d.y2Factor, 8.0);
        QVERIFY(d.y2Axis.label.startsWith(QLatin1String("Per node")));
        const QCustomPlot* plot = f.panel.precisionTflopsChart()->plot();
        QVERIFY(plot->yAxis2->visible());
        QVERIFY(std::abs(plot->yAxis2->range().upper - plot->yAxis->range().upper * d.y2Factor) < 1e-6);
    }

    // A layout that does not fit: the headline figures are greyed, no band is offered for them, and a sentence says
    // why in the error colour. Back to a fitting layout, all of it returns.
    void misfitHeadlineIsGreyedAndExplained()
    {
        Fixture f(scenarioOn("llama-3.1-70b", "b200", 1, 8192));
        QVERIFY(!f.predicted().fits);
        auto* mfu = f.panel.findChild<QLabel*>(QStringLiteral("predictedMfu"));
        auto* reason = f.panel.findChild<QLabel*>(QStringLiteral("misfitReason"));
        QVERIFY(mfu && reason);
        QCOMPARE(mfu->text(), percent(f.predicted().mfu)); // still shown, so the user sees what it would be
        QCOMPARE(
            mfu->palette().color(QPalette::WindowText), mfu->palette().color(QPalette::Disabled, QPalette::WindowText));
        QVERIFY(!reason->isHidden());
        QVERIFY(reason->text().contains(QLatin1String("does not fit")));
        QVERIFY(reason->text().contains(QLatin1String("GiB")));
        // The memory figures agree to the tenth of a GiB (B200: 180 GB = 167.6 GiB), and the reason is said once.
        const QString capacity
            = QString::number(f.predicted().memoryCapacityBytes / (1024.0 * 1024.0 * 1024.0), 'f', 1);
        QVERIFY2(reason->text().contains(capacity + QLatin1String(" GiB")), qPrintable(reason->text()));
        QVERIFY2(f.text("fits").contains(capacity + QLatin1String(" GiB")), qPrintable(f.text("fits")));
        auto* bottleneck = f.panel.findChild<QLabel*>(QStringLiteral("bottleneck"));
        QVERIFY(bottleneck && bottleneck->isHidden());
        QVERIFY(f.text("predictedMfuBand").isEmpty());
        f.model.setGpuCount(16);
        f.model.setConfiguration(Parallelism {}, ActivationCheckpointing::Full, f.model.scenario().flags, 1);
        QVERIFY(f.predicted().fits);
        QVERIFY(reason->isHidden());
        QVERIFY(!bottleneck->isHidden());
        QVERIFY(!f.text("predictedMfuBand").isEmpty());
    }

    // Several edits in quick succession: only the newest scenario's sweep is drawn.
    void onlyTheNewestSweepIsShown()
    {
        Fixture f(scenarioOn("llama-3.1-8b", "b200", 8, 8192));
        auto* tp = f.field<QSpinBox>("tp");
        tp->setValue(2);
        QCoreApplication::processEvents(); // the restart is queued: let it start before the next edit
        tp->setValue(4);
        QCoreApplication::processEvents();
        tp->setValue(8);
        QTRY_VERIFY_WITH_TIMEOUT(f.settled(), kBackgroundTimeoutMs);
        const ChartSeries* current = seriesNamed(f.panel.seqChart(), series::kCurrent);
        QVERIFY(current);
        QVERIFY(std::abs(yAt(*current, 8192) - 100.0 * f.predicted().mfu) < 1e-9);
    }

    void plannerApplyChangesScenario()
    {
        Fixture f(scenarioOn("llama-3.1-70b", "b200", 16, 8192));
        f.field<QSpinBox>("tp")->setValue(8);
        f.field<QComboBox>("activationCheckpointing")->setCurrentIndex(2); // torchtitan default: TP 8, full AC
        QTRY_VERIFY_WITH_TIMEOUT(f.settled() && f.panel.plannerModel()->rowCount() > 0, kBackgroundTimeoutMs);
        QTableView* table = f.panel.plannerTable();
        table->sortByColumn(PlannerTableModel::Mfu, Qt::DescendingOrder);
        const QModelIndex top = f.panel.plannerView()->index(0, PlannerTableModel::Mfu);
        const int sourceRow = f.panel.plannerView()->mapToSource(top).row();
        const PlannedConfig config = f.panel.plannerModel()->config(sourceRow);
        QVERIFY(config.prediction.mfu
            >= f.panel.plannerView()->index(1, PlannerTableModel::Mfu).data(PlannerTableModel::SortRole).toDouble());
        QVERIFY(!top.siblingAtColumn(PlannerTableModel::Reason).data().toString().isEmpty());
        table->selectRow(0);
        QVERIFY(f.text("plannerReason").contains(top.siblingAtColumn(PlannerTableModel::Reason).data().toString()));
        auto* apply = f.panel.findChild<QPushButton*>(QStringLiteral("applyPlan"));
        QVERIFY(apply->isEnabled());
        QTest::mouseClick(apply, Qt::LeftButton);
        const Scenario& s = f.model.scenario();
        QCOMPARE(s.parallelism.tp, config.parallelism.tp);
        QCOMPARE(s.parallelism.pp, config.parallelism.pp);
        QCOMPARE(s.parallelism.hsdpReplicas, config.parallelism.hsdpReplicas);
        QCOMPARE(s.activationCheckpointing, config.activationCheckpointing);
        QCOMPARE(s.workload.microBatch, config.microBatch);
        QCOMPARE(f.field<QSpinBox>("tp")->value(), config.parallelism.tp);
        // Lambda's MFU paper: the planner's choice beats the torchtitan default markedly.
        QVERIFY(f.predicted().mfu > 0.4);
        QCOMPARE(f.text("predictedMfu"), percent(f.predicted().mfu));
    }

    // Cancelled while the plan of a new scenario runs, the planner kept the last scenario's rows as if they were this
    // one's, Apply enabled: Llama 3.1 8B layouts offered to a DeepSeek scenario. They stay on screen, named as the
    // scenario before's, and are not applied; the sweeps say they were stopped instead of "Predicting..." for good.
    void cancelledPlanKeepsItsRowsFromBeingApplied()
    {
        Fixture f(scenarioOn("llama-3.1-8b", "b200", 8, 8192));
        QTRY_VERIFY_WITH_TIMEOUT(f.settled() && f.panel.plannerModel()->rowCount() > 0, kBackgroundTimeoutMs);
        f.panel.plannerTable()->selectRow(0);
        auto* apply = f.panel.findChild<QPushButton*>(QStringLiteral("applyPlan"));
        QVERIFY(apply->isEnabled());
        f.model.setScenario(scenarioOn("llama-3.1-70b", "b200", 16, 8192));
        QTRY_VERIFY_WITH_TIMEOUT(!apply->isEnabled(), 5000); // the background restarts on the next turn of the loop
        QTest::mouseClick(f.panel.findChild<QPushButton*>(QStringLiteral("cancelBackground")), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(f.settled(), kBackgroundTimeoutMs);
        if (f.panel.plannerModel()->rowCount() == 0 || !f.text("plannerStatus").startsWith(QStringLiteral("Cancel")))
            QSKIP("the plan finished before Cancel reached it");
        QVERIFY2(f.text("plannerStatus").contains(QStringLiteral("Llama 3.1 8B on 8 x")),
            qPrintable(f.text("plannerStatus")));
        f.panel.plannerTable()->selectRow(0);
        QVERIFY(!apply->isEnabled());
        const Scenario before = f.model.scenario();
        QTest::mouseDClick(f.panel.plannerTable()->viewport(), Qt::LeftButton, {},
            f.panel.plannerTable()->visualRect(f.panel.plannerView()->index(0, 0)).center());
        QCOMPARE(f.model.scenario().parallelism.tp, before.parallelism.tp);
        QCOMPARE(f.model.scenario().workload.microBatch, before.workload.microBatch);
        QVERIFY2(f.panel.seqChart()->emptyReason().startsWith(QStringLiteral("Cancelled"))
                || !f.panel.seqChart()->data().series.isEmpty(),
            qPrintable(f.panel.seqChart()->emptyReason()));
    }

    // The window's planner ranks by the rule `plan` states and prints (planner.h): the same sentence, the same order,
    // the memory as "peak of capacity, headroom free", and the note when the band ties every row.
    void plannerStatesAndObeysTheRule()
    {
        Fixture f(scenarioOn("llama-3.1-70b", "b200", 16, 8192));
        ErrorBandModel bands;
        for (double e : { -0.10, 0.0, 0.10, 0.20, 0.30 })
            bands.residuals.push_back({ "Blackwell", false, e });
        f.panel.setErrorBandModel(bands);
        QTRY_VERIFY_WITH_TIMEOUT(f.settled() && f.panel.plannerModel()->rowCount() > 0, kBackgroundTimeoutMs);
        PlannerOptions o;
        o.tieTolerance = plannerTieTolerance(f.model.scenario(), bands);
        QVERIFY(o.tieTolerance > 0);
        const PlanResult plan = planConfigurations(f.model.scenario(), o);
        const QString status = f.text("plannerStatus");
        QVERIFY2(status.contains(QString::fromStdString(plannerRankingRule(o.tieTolerance))), qPrintable(status));
        const std::string note = planOrderNote(plan, o.tieTolerance);
        if (!note.empty())
            QVERIFY2(status.contains(QString::fromStdString(note)), qPrintable(status));
        QCOMPARE(size_t(f.panel.plannerModel()->rowCount()), plan.configs.size());
        for (int row = 0; row < f.panel.plannerModel()->rowCount(); ++row) {
            const PlannedConfig& shown = f.panel.plannerModel()->config(row);
            QCOMPARE(describeConfig(shown), describeConfig(plan.configs[size_t(row)]));
            QCOMPARE(f.panel.plannerModel()->index(row, PlannerTableModel::Memory).data().toString(),
                QString::fromStdString(memoryUseText(shown.prediction)));
        }
    }

    void calibrationMovesPredictions()
    {
        Fixture f(scenarioOn("llama-3.1-8b", "b200", 8, 8192));
        CalibrationBox* box = f.panel.calibration();
        auto* input = box->findChild<QLineEdit*>(QStringLiteral("calibrationMfu"));
        QTest::keyClicks(input, QStringLiteral("40%")); // the field is in percent: "40" and "40%" alike
        QTest::mouseClick(box->findChild<QPushButton*>(QStringLiteral("calibrateMfu")), Qt::LeftButton);
        QVERIFY2(box->result().has_value(), qPrintable(box->resultText()));
        QVERIFY(box->resultText().contains(QLatin1String("This configuration")));
        QVERIFY(!f.model.scenario().costModel.has_value() || box->result()); // nothing applied yet
        QTest::mouseClick(box->findChild<QPushButton*>(QStringLiteral("applyCalibration")), Qt::LeftButton);
        QVERIFY(f.model.scenario().costModel.has_value());
        QCOMPARE(f.text("predictedMfu"), QStringLiteral("40.00%"));
        QTest::mouseClick(box->findChild<QPushButton*>(QStringLiteral("undoCalibration")), Qt::LeftButton);
        QVERIFY(f.text("predictedMfu") != QStringLiteral("40.00%"));
        // A measurement nothing can reach is explained, not applied.
        QVERIFY(!box->calibrateToMfu(99.5));
        QVERIFY(box->reasonText().contains(QLatin1String("outside")));
        QVERIFY(box->resultText().isEmpty());
    }

    void badCalibrationInputIsExplainedAndNotApplied_data()
    {
        QTest::addColumn<QString>("text");
        for (const char* text : { "", "abc", "nan", "inf", "0", "-5", "100", "1e9" })
            QTest::newRow(text) << QString::fromLatin1(text);
    }

    void badCalibrationInputIsExplainedAndNotApplied()
    {
        QFETCH(QString, text);
        Fixture f(scenarioOn("llama-3.1-8b", "b200", 8, 8192));
        const QString predictedBefore = f.text("predictedMfu");
        CalibrationBox* box = f.panel.calibration();
        QTest::keyClicks(box->findChild<QLineEdit*>(QStringLiteral("calibrationMfu")), text);
        QTest::mouseClick(box->findChild<QPushButton*>(QStringLiteral("calibrateMfu")), Qt::LeftButton);
        QVERIFY(!box->result().has_value());
        // In the box, under the field, as every refused entry is said (ReasonLabel: one colour for it).
        QVERIFY2(box->reasonText().contains(QLatin1String("percentage above 0 and below 100")),
            qPrintable(box->reasonText()));
        QVERIFY(box->findChild<ReasonLabel*>(QStringLiteral("calibrationReason")));
        QVERIFY(!box->findChild<QPushButton*>(QStringLiteral("applyCalibration"))->isEnabled());
        QVERIFY(!f.model.scenario().costModel.has_value());
        QCOMPARE(f.text("predictedMfu"), predictedBefore);
    }

    // A calibration from the Trace panel draws its line on the sequence and GPU-count sweeps, each point the figure
    // `sweep --calibration` gives (calibratedAtPoint); forgetting it takes the line away.
    void calibratedSweepLines()
    {
        const Scenario s = scenarioOn("llama-3.1-8b", "b200", 8, 8192);
        Fixture f(s);
        f.panel.setErrorBandModel(app::shippedErrorBands()); // as the window gives it
        QTRY_VERIFY_WITH_TIMEOUT(f.settled(), kBackgroundTimeoutMs);
        QVERIFY(!seriesNamed(f.panel.seqChart(), series::kCalibrated));
        const TraceCalibration calibration = test::matmulsFasterThanPredicted(f.model.scenario());
        f.model.setTraceCalibration(calibration, QStringLiteral("synthetic.json"));
        QTRY_VERIFY_WITH_TIMEOUT(f.settled() && seriesNamed(f.panel.seqChart(), series::kCalibrated)
                && seriesNamed(f.panel.gpuChart(), series::kCalibrated),
            kBackgroundTimeoutMs);
        const ChartSeries* line = seriesNamed(f.panel.seqChart(), series::kCalibrated);
        QCOMPARE(line->colour, meaningColour(Meaning::CalibratedToTrace));
        const SweepResult r = scenarioSweep(f.model.scenario(), SweepAxis::SeqLen, &app::shippedErrorBands(),
            std::vector<double>(line->x.begin(), line->x.end()), false);
        QCOMPARE(r.points.size(), size_t(line->x.size()));
        for (size_t i = 0; i < r.points.size(); ++i)
            QCOMPARE(line->y[qsizetype(i)],
                100.0
                    * calibratedAtPoint(f.model.scenario(), SweepAxis::SeqLen, r.points[i], calibration)
                          .calibrated.mfu);
        // The planner's rows stay the validated model's, and say so while a calibration is set.
        auto* uncalibrated = f.panel.findChild<QLabel*>(QStringLiteral("plannerUncalibrated"));
        QVERIFY(uncalibrated && !uncalibrated->isHidden());
        f.model.setTraceCalibration(std::nullopt, {});
        QVERIFY(uncalibrated->isHidden());
        QTRY_VERIFY_WITH_TIMEOUT(f.settled() && !seriesNamed(f.panel.seqChart(), series::kCalibrated)
                && seriesNamed(f.panel.seqChart(), series::kCurrent),
            kBackgroundTimeoutMs);
    }

    // The Planner tab at 1280x720 leaves about 500 pixels: sized to its contents, the configuration pushed MFU and
    // tokens/s out of view. Narrow, the figures that rank stay in view beside the configuration, the step time and
    // the reason (shown whole under the table) give way; wide, every column is back.
    void plannerKeepsItsFiguresInViewWhenNarrow()
    {
        ScenarioModel model;
        model.setScenario(scenarioOn("llama-3.1-8b", "b200", 64, 8192));
        QWidget host; // a child's width, unlike a window's, is not held to the offscreen screen's 800 pixels
        auto* page = new PlannerPage(&model, &host);
        page->setGeometry(0, 0, 500, 600); // the width the tab has at 1280x720
        host.show();
        QVERIFY(QTest::qWaitForWindowExposed(&host));
        page->start(model.scenario(), 0.1);
        QTRY_VERIFY_WITH_TIMEOUT(
            !page->job()->isRunning() && page->plannerModel()->rowCount() > 0, kBackgroundTimeoutMs);
        QTableView* table = page->table();
        QVERIFY(table->isColumnHidden(PlannerTableModel::Reason));
        QVERIFY(table->isColumnHidden(PlannerTableModel::StepTime));
        const QHeaderView* header = table->horizontalHeader();
        for (const int column : { PlannerTableModel::Mfu, PlannerTableModel::TokensPerSec })
            QVERIFY2(
                header->sectionViewportPosition(column) + header->sectionSize(column) <= table->viewport()->width(),
                qPrintable(QStringLiteral("column %1 ends at %2 of %3")
                               .arg(column)
                               .arg(header->sectionViewportPosition(column) + header->sectionSize(column))
                               .arg(table->viewport()->width())));
        QVERIFY(header->sectionSize(PlannerTableModel::Layout) >= 100);
        const QModelIndex layout = page->plannerView()->index(0, PlannerTableModel::Layout);
        QCOMPARE(layout.data(Qt::ToolTipRole).toString(), layout.data().toString()); // whole where elided
        page->setGeometry(0, 0, 1400, 600);
        QTRY_VERIFY(!table->isColumnHidden(PlannerTableModel::Reason));
        QVERIFY(!table->isColumnHidden(PlannerTableModel::StepTime));
    }

    // The main window at a typical 1440x900 with the Predict tab and each of its views; saved as PNGs when
    // MFU_SCREENSHOT_DIR is set, to look at (titles, axis units, legends, clipped text).
    void screenshot()
    {
        app::MainWindow w;
        w.resize(1440, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* panel = w.findChild<PredictPanel*>();
        QVERIFY(panel);
        w.panels()->setCurrentWidget(panel);
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isComputing(), kBackgroundTimeoutMs);
        const QString folder = qEnvironmentVariable("MFU_SCREENSHOT_DIR");
        for (int tab = 0; tab < panel->views()->count(); ++tab) {
            panel->views()->setCurrentIndex(tab);
            QTest::qWait(50);
            for (ChartView* chart : panel->views()->currentWidget()->findChildren<ChartView*>())
                chart->plot()->replot();
            if (auto* chart = qobject_cast<ChartView*>(panel->views()->currentWidget()))
                chart->plot()->replot();
            const QImage image = w.grab().toImage();
            QCOMPARE(image.size(), w.size() * w.devicePixelRatio());
            if (!folder.isEmpty())
                QVERIFY(image.save(folder + QStringLiteral("/predict_%1.png").arg(tab)));
        }
    }
};

QTEST_MAIN(TestPredictPanel)
#include "tst_panel.moc"
