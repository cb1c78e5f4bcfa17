// Calculator panel: shows the figures of Lambda's worked example on the default scenario, follows every edit made in
// the editor, and its tables are well-behaved item models. Expected values other than the paper's come from core
// itself, so the test checks that the panel shows what core computes for the scenario the editor produced.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QFile>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QtTest>

#include "app/preset_store.h"
#include "core/model/flops.h"
#include "core/model/mfu.h"
#include "core/number_format.h"
#include "core/presets/hf_config.h"
#include "core/scenario/scenario_facts.h"
#include "core/units.h"
#include "widgets/calculator/calculator_panel.h"
#include "widgets/charts/category_palette.h"
#include "widgets/charts/chart_view.h"
#include "widgets/scenario/scenario_editor.h"
#include "widgets/scenario/scenario_model.h"

using namespace mfu::widgets;

// The component table's "Total" row (the by-layer-type rows follow it).
static int totalRow(QStandardItemModel* c)
{
    for (int r = 0; r < c->rowCount(); ++r)
        if (c->item(r, 0) && c->item(r, 0)->text() == QStringLiteral("Total"))
            return r;
    return -1;
}

class TestCalculatorPanel : public QObject {
    Q_OBJECT

private:
    struct Fixture {
        ScenarioModel model;
        ScenarioEditor editor;
        CalculatorPanel panel;
        QAbstractItemModelTester formulasTester;
        QAbstractItemModelTester componentsTester;
        QAbstractItemModelTester findingsTester;
        Fixture()
            : editor(&model, mfu::app::presetLibrary())
            , panel(&model, mfu::app::presetLibrary())
            , formulasTester(panel.formulaTable(), QAbstractItemModelTester::FailureReportingMode::QtTest)
            , componentsTester(panel.componentTable(), QAbstractItemModelTester::FailureReportingMode::QtTest)
            , findingsTester(panel.findings(), QAbstractItemModelTester::FailureReportingMode::QtTest)
        {
            model.setScenario(defaultScenario(mfu::app::presetLibrary()));
        }
        QString text(const char* name) const
        {
            auto* label = panel.findChild<QLabel*>(QLatin1String(name));
            return label ? label->text() : QStringLiteral("<no label %1>").arg(QLatin1String(name));
        }
        void chooseGpu(const QString& id) const
        {
            auto* combo = editor.findChild<QComboBox*>(QStringLiteral("hardware"));
            combo->setCurrentIndex(combo->findData(id));
        }
        QStringList findingCodes() const
        {
            QStringList codes;
            for (int r = 0; r < panel.findings()->rowCount(); ++r)
                codes << panel.findings()->item(r)->data(Qt::UserRole).toString();
            return codes;
        }
    };

private slots:
    // A packed scenario: the PaLM row counts attention per document, and a labelled row beside it counts it over the
    // packing length, as core computes both; the MFU label names the over-count.
    void visionLanguageRunShowsMfuWithTheEncoder()
    {
        QFile config(QStringLiteral(MFU_SOURCE_DIR "/../shared/models/Qwen--Qwen3-VL-8B-Instruct.config.json"));
        if (!config.open(QIODevice::ReadOnly))
            QSKIP("../shared/models/ (real Hugging Face configs) is not present next to the source tree");
        Fixture f;
        mfu::Scenario s = f.model.scenario();
        s.model = mfu::modelFromHfConfigText(config.readAll().toStdString(), "Qwen3-VL-8B-Instruct.config.json");
        s.workload.vision = { 2048, 256, true };
        f.model.setScenario(s);
        const auto expected = mfu::scenarioMfuWithVision(f.model.scenario());
        QVERIFY(expected);
        QVERIFY2(f.text("mfuWithVision").startsWith(QString::fromStdString(mfu::formatPercent(*expected))),
            qPrintable(f.text("mfuWithVision")));
        QVERIFY(f.panel.findChild<QLabel*>(QStringLiteral("mfuWithVision"))->isVisibleTo(&f.panel));
        // Beside it, MFU says it is the language model's.
        const auto mfuLabel = [&f] {
            auto* form = qobject_cast<QFormLayout*>(
                f.panel.findChild<QLabel*>(QStringLiteral("mfu"))->parentWidget()->layout());
            return qobject_cast<QLabel*>(form->labelForField(f.panel.findChild<QLabel*>(QStringLiteral("mfu"))))
                ->text();
        };
        QCOMPARE(mfuLabel(), QStringLiteral("MFU, language model only:"));
        s.workload.vision = {};
        f.model.setScenario(s);
        QVERIFY(!f.panel.findChild<QLabel*>(QStringLiteral("mfuWithVision"))->isVisibleTo(&f.panel));
        QCOMPARE(mfuLabel(), QStringLiteral("MFU:"));
    }

    void packedSequenceShowsBothPalmFigures()
    {
        Fixture f;
        mfu::Scenario s = f.model.scenario();
        s.workload.seqLen = 8192;
        s.workload.packing.documents = { { 1024, 2 }, { 2048, 1 }, { 4096, 1 } };
        f.model.setScenario(s);
        const mfu::FlopsPerToken flops = mfu::countFlopsPerToken(s.model, 8192, s.workload.packing);
        QVERIFY(flops.palmOverPackingLength);
        const QStandardItemModel* table = f.panel.formulaTable();
        QString naiveRow, palmRow;
        for (int r = 0; r < table->rowCount(); ++r) {
            const QString name = table->item(r, 0)->text();
            if (name.startsWith(QLatin1String("PaLM, S = packing length")))
                naiveRow = table->item(r, 2)->text();
            else if (table->item(r, 1)->text().contains(QLatin1String("2,816")))
                palmRow = table->item(r, 2)->text();
        }
        QCOMPARE(naiveRow, QLocale().toString(*flops.palmOverPackingLength / 1e9, 'f', 2));
        QCOMPARE(palmRow, QLocale().toString(*flops.palm / 1e9, 'f', 2));
        QVERIFY2(f.text("seqLen").contains(QLatin1String("attention per document")), qPrintable(f.text("seqLen")));
        if (s.measuredThroughput)
            QVERIFY2(f.text("mfuOverPackingLength").contains(QLatin1String("over-count")),
                qPrintable(f.text("mfuOverPackingLength")));
    }
    // What an imported model's counts leave out (Kimi-K3's vision encoder, weights the import does not read) is
    // said where `calc` says it: the window showed none of it. The notes lead the findings; the check still runs.
    void modelNotesLeadTheFindings()
    {
        Fixture f;
        mfu::ModelSpec m = *mfu::app::presetLibrary().findModel("llama-3.1-8b");
        m.notes = { "the vision encoder is not counted: vision_config.qkv_hidden_size differs from vt_hidden_size" };
        f.model.setModel(m);
        QCOMPARE(f.findingCodes().value(0), QStringLiteral("model_note"));
        QVERIFY(f.panel.findings()->item(0)->text().startsWith(QStringLiteral("[note] the vision encoder is not")));
        QVERIFY(f.findingCodes().size() > 1); // the default scenario's measured throughput is still checked
    }

    void showsTheWorkedExampleFigures()
    {
        Fixture f;
        QVERIFY2(f.text("flopsPerToken").startsWith(QStringLiteral("57.9 GFLOP/token (PaLM per layer)")),
            qPrintable(f.text("flopsPerToken")));
        QVERIFY2(f.text("tflops").startsWith(QStringLiteral("1,222.6 TFLOPS per GPU")), qPrintable(f.text("tflops")));
        QCOMPARE(f.text("mfu"), QStringLiteral("54.34%"));
        QVERIFY(f.text("params").startsWith(QStringLiteral("8,030,261,248")));
        QCOMPARE(f.text("embedding"), QStringLiteral("525,336,576"));
        QCOMPARE(f.text("shape"), QStringLiteral("L = 32, H = 32, Q = 128"));
        QVERIFY(f.panel.findChild<QLabel*>(QStringLiteral("error"))->isHidden());
    }

    void formulaTableHasEveryFormula()
    {
        Fixture f;
        QStandardItemModel* t = f.panel.formulaTable();
        QCOMPARE(t->rowCount(), 5);
        QCOMPARE(t->item(0, 0)->text(), QStringLiteral("6N"));
        QCOMPARE(t->item(1, 0)->text(), QStringLiteral("PaLM"));
        QCOMPARE(t->item(1, 2)->text(), QStringLiteral("57.91"));
        QVERIFY(t->item(1, 1)->text().contains(QStringLiteral("12 x 32 x 32 x 128 x 8,192")));
        // PaLM per layer is what MFU is reported in by default; on Llama 3.1 8B every layer attends the whole
        // sequence, so it is PaLM's figure: Lambda's 57.91 GFLOP, 1,223 TFLOPS (1,222.6 under the one TFLOPS rule of
        // core/number_format.h), 54.34%.
        QCOMPARE(t->item(2, 0)->text(), QStringLiteral("PaLM per layer (reported)"));
        QCOMPARE(t->item(2, 2)->text(), QStringLiteral("57.91"));
        QCOMPARE(t->item(2, 3)->text(), QStringLiteral("1,222.6"));
        QCOMPARE(t->item(2, 4)->text(), QStringLiteral("54.34%"));
        QVERIFY(t->item(2, 1)->text().contains(QStringLiteral("as PaLM")));
        // Components add up to the per-component formula (x3 for training).
        QStandardItemModel* c = f.panel.componentTable();
        const int total = totalRow(c);
        QVERIFY(total > 0);
        QCOMPARE(c->item(total, 2)->text(), t->item(3, 2)->text());
    }

    // A hybrid model (Qwen3.5 27B: 48 Gated DeltaNet layers) lists its recurrences as a component of their own, so
    // the components still add up to the per-component total.
    void hybridComponentsAddUp()
    {
        Fixture f;
        f.model.setModel(*mfu::app::presetLibrary().findModel("qwen3.5-27b"));
        QStandardItemModel* c = f.panel.componentTable();
        double sum = 0;
        bool recurrence = false;
        const int totalAt = totalRow(c);
        QVERIFY(totalAt > 0);
        for (int r = 0; r < totalAt; ++r) {
            sum += QLocale().toDouble(c->item(r, 1)->text());
            recurrence = recurrence || c->item(r, 0)->text().startsWith(QStringLiteral("Linear-attention"));
        }
        QVERIFY(recurrence);
        // The projections row names the recurrent layers' input projections it holds too.
        QCOMPARE(c->item(0, 0)->text(), QStringLiteral("Q/K/V and recurrent-layer input projections"));
        const double total = QLocale().toDouble(c->item(totalAt, 1)->text());
        QVERIFY2(std::abs(sum - total) <= 0.05 * totalAt,
            qPrintable(QString::number(sum) + " vs " + QString::number(total)));
        // Below the total, the same forward FLOPs by layer type: 48 linear-attention layers, 16 full-attention
        // layers, the MLPs and the LM head, adding up to the same total.
        QStringList labels;
        double byType = 0;
        for (int r = totalAt + 2; r < c->rowCount(); ++r) {
            labels << c->item(r, 0)->text().trimmed();
            byType += QLocale().toDouble(c->item(r, 1)->text());
        }
        QCOMPARE(c->item(totalAt + 1, 0)->text(), QStringLiteral("By layer type"));
        QVERIFY2(labels.contains(QStringLiteral("48 linear-attention layers")), qPrintable(labels.join('|')));
        QVERIFY2(labels.contains(QStringLiteral("16 full-attention layers")), qPrintable(labels.join('|')));
        QVERIFY2(labels.contains(QStringLiteral("LM head")), qPrintable(labels.join('|')));
        QVERIFY2(std::abs(byType - total) <= 0.05 * labels.size(),
            qPrintable(QString::number(byType) + " vs " + QString::number(total)));
    }

    // The window's example measured Llama 3.1 8B on a B200 (21,111 tokens/s): a model imported or chosen while the
    // scenario is still that example starts without a measurement (it read 1,028% MFU for a 70B on 16 H100), and so
    // does another GPU; Undo would bring it back. A measurement the user gave stays through either change.
    void theExamplesMeasurementGoesWithItsRun()
    {
        Fixture f;
        f.model.setScenario(defaultScenario(mfu::app::presetLibrary()), true);
        QVERIFY(f.model.isBuiltInExample());
        QCOMPARE(f.text("mfu"), QStringLiteral("54.34%"));
        f.model.setModel(*mfu::app::presetLibrary().findModel("llama-3.1-70b"));
        QVERIFY(!f.model.scenario().measuredThroughput);
        QCOMPARE(f.text("mfu"), QStringLiteral("no measurement"));

        f.model.setScenario(defaultScenario(mfu::app::presetLibrary()), true);
        f.chooseGpu(QStringLiteral("h100-sxm"));
        QVERIFY(!f.model.scenario().measuredThroughput);

        // Adopting what a file states that measured no throughput (HTA's traces: 128 GPUs, no tokens) ends the
        // example with its measurement.
        f.model.setScenario(defaultScenario(mfu::app::presetLibrary()), true);
        f.model.adoptFileFacts(nullptr, 128, std::nullopt, std::nullopt);
        QVERIFY(!f.model.isBuiltInExample());
        QVERIFY(!f.model.scenario().measuredThroughput);

        f.model.setScenario(defaultScenario(mfu::app::presetLibrary()), true);
        f.model.setThroughput(ThroughputInput::TokensPerSecPerGpu, 5000); // the user's own figure
        QVERIFY(!f.model.isBuiltInExample());
        f.model.setModel(*mfu::app::presetLibrary().findModel("llama-3.1-70b"));
        f.chooseGpu(QStringLiteral("h100-sxm"));
        QVERIFY(f.model.scenario().measuredThroughput);
        QCOMPARE(f.model.scenario().measuredThroughput->tokensPerSec, 5000.0);
        f.model.adoptFileFacts(nullptr, 128, std::nullopt, std::nullopt);
        QVERIFY(f.model.scenario().measuredThroughput);
        QCOMPARE(f.model.scenario().measuredThroughput->tokensPerSec, 5000.0);
    }

    void followsTheGpu_data()
    {
        QTest::addColumn<QString>("gpu");
        QTest::newRow("H100 SXM") << "h100-sxm";
        QTest::newRow("MI300X") << "mi300x";
        QTest::newRow("GB300") << "gb300";
    }

    void followsTheGpu()
    {
        QFETCH(QString, gpu);
        Fixture f;
        const QString before = f.text("mfu");
        f.chooseGpu(gpu);
        const auto& s = f.model.scenario();
        QCOMPARE(QString::fromStdString(s.cluster.hardware.id), gpu);
        const double perToken = *mfu::countFlopsPerToken(s.model, s.workload.seqLen).palm;
        const auto r = mfu::computeMfu(perToken, 0, 21111, 1, s.cluster.hardware, s.precision);
        const QString expected = QString::fromStdString(mfu::formatMeasuredMfu(r.mfu, r.mfuCeiling));
        QCOMPARE(f.text("mfu"), expected);
        if (r.mfu > 1) // above any peak: the reason under the figure (in the error colour)
            QVERIFY2(f.text("mfuReason").startsWith(QStringLiteral("Above 100%")), qPrintable(f.text("mfuReason")));
        QVERIFY(f.text("mfu") != before);
        QVERIFY(f.text("peak").contains(QString::fromStdString(s.cluster.hardware.name)));
    }

    // DeepSeek-V4-Pro's layer types are the longest component names ("30 compressed sparse attention layers (1 key
    // per 4 tokens, top 1,024)"): laid out as wide as its columns, the component table made the page wider than the
    // 850 px a 1280-pixel window leaves the panel, and the whole page scrolled sideways with its MFU column cut.
    void longComponentNamesWrapInsteadOfWideningThePage()
    {
        Fixture f;
        mfu::Scenario s = f.model.scenario();
        const mfu::ModelSpec* model = mfu::app::presetLibrary().findModel("deepseek-v4-pro");
        QVERIFY(model);
        s.model = *model;
        f.model.setScenario(s);
        f.panel.resize(850, 500);
        f.panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&f.panel));
        QCoreApplication::processEvents();
        auto* scroll = f.panel.findChild<QScrollArea*>();
        QVERIFY(scroll);
        QTRY_VERIFY2(scroll->widget()->minimumSizeHint().width() <= scroll->viewport()->width(),
            qPrintable(QStringLiteral("figures need %1 px of %2")
                           .arg(scroll->widget()->minimumSizeHint().width())
                           .arg(scroll->viewport()->width())));
        QVERIFY(!scroll->horizontalScrollBar()->isVisible());
    }

    void impossibleThroughputIsDiagnosed()
    {
        Fixture f;
        f.chooseGpu(QStringLiteral("a100-sxm-80gb")); // 21,111 tok/s of an 8B model is ~4x an A100's peak
        QVERIFY2(f.findingCodes().contains(QStringLiteral("impossible_throughput")),
            qPrintable(f.findingCodes().join(QLatin1Char(','))));
        // The MFU above 100% is not shown: in its place how far past the peak the inputs go, in the error colour with
        // the reason, in the figure and in the formula table; no TFLOPS above the peak either.
        QVERIFY2(f.text("mfu").startsWith(QStringLiteral("not shown: ")), qPrintable(f.text("mfu")));
        QVERIFY2(f.text("tflops").startsWith(QStringLiteral("not shown: ")), qPrintable(f.text("tflops")));
        QVERIFY2(f.text("mfuReason").contains(QStringLiteral("Above 100%")), qPrintable(f.text("mfuReason")));
        QVERIFY(f.panel.findChild<QLabel*>(QStringLiteral("mfu"))->styleSheet().contains(QStringLiteral("color")));
        QVERIFY(
            f.panel.findChild<QLabel*>(QStringLiteral("mfuReason"))->styleSheet().contains(QStringLiteral("color")));
        QVERIFY(!f.panel.findChild<QLabel*>(QStringLiteral("mfuReason"))->isHidden());
        bool coloured = false;
        const QStandardItemModel* table = f.panel.formulaTable();
        for (int r = 0; r < table->rowCount(); ++r) {
            const QModelIndex cell = table->index(r, table->columnCount() - 1);
            if (cell.data().toString().startsWith(QStringLiteral("not shown"))) {
                coloured = cell.data(Qt::ForegroundRole).value<QBrush>().color() == errorColour();
                // Its TFLOPS beside it are withheld too: no figure above the A100's 312 TFLOPS.
                const QString tflops = table->index(r, 3).data().toString();
                QVERIFY2(tflops.startsWith(QStringLiteral("not shown")), qPrintable(tflops));
            }
        }
        QVERIFY(coloured);
        // Back on the B200 (about 60%): plain again.
        f.chooseGpu(QStringLiteral("b200"));
        QVERIFY(!f.text("mfu").contains(QStringLiteral("not shown")));
        QVERIFY(f.panel.findChild<QLabel*>(QStringLiteral("mfu"))->styleSheet().isEmpty());
        QVERIFY(f.panel.findChild<QLabel*>(QStringLiteral("mfuReason"))->isHidden());
    }

    void fp8ShowsBothPeaksLabelled()
    {
        Fixture f;
        auto* precision = f.editor.findChild<QComboBox*>(QStringLiteral("precision"));
        precision->setCurrentIndex(precision->findData(static_cast<int>(mfu::TrainingPrecision::BF16_FP8)));
        QVERIFY2(f.text("mfu").contains(QStringLiteral("54.34% vs BF16 peak")), qPrintable(f.text("mfu")));
        QVERIFY(f.text("mfu").contains(QStringLiteral("vs FP8 peak")));
        QVERIFY(f.text("peak").contains(QStringLiteral("FP8")));
    }

    // BF16+FP4 on a GPU with FP4 tensor cores: both readings, as for FP8, from the core's MfuResult.
    void fp4ShowsBothPeaksLabelled()
    {
        Fixture f;
        f.chooseGpu(QStringLiteral("b200"));
        auto* precision = f.editor.findChild<QComboBox*>(QStringLiteral("precision"));
        precision->setCurrentIndex(precision->findData(static_cast<int>(mfu::TrainingPrecision::BF16_FP4)));
        const mfu::MfuResult r = *mfu::scenarioMeasuredMfu(f.model.scenario());
        QVERIFY(r.mfuVsFp4Peak);
        QCOMPARE(f.text("mfu"),
            QStringLiteral("%1 vs BF16 peak, %2 vs FP4 peak")
                .arg(QString::fromStdString(mfu::formatPercent(r.mfu)),
                    QString::fromStdString(mfu::formatPercent(*r.mfuVsFp4Peak))));
        QVERIFY(f.text("peak").contains(QStringLiteral("TFLOPS FP4")));
    }

    void clusterThroughputIsDividedByGpus()
    {
        Fixture f;
        f.editor.findChild<QSpinBox*>(QStringLiteral("gpuCount"))->setValue(8);
        auto* mode = f.editor.findChild<QComboBox*>(QStringLiteral("throughputMode"));
        mode->setCurrentIndex(mode->findData(static_cast<int>(ThroughputInput::TokensPerSecCluster)));
        auto* value = f.editor.findChild<QLineEdit*>(QStringLiteral("throughputValue"));
        value->selectAll();
        QTest::keyClicks(value, QStringLiteral("168888"));
        QVERIFY2(
            f.text("throughput").startsWith(QStringLiteral("21,111 tokens/s per GPU, 168,888 tokens/s cluster of 8")),
            qPrintable(f.text("throughput")));
        QCOMPARE(f.text("mfu"), QStringLiteral("54.34%"));
    }

    void bareModelUsesSixNOnly()
    {
        Fixture f;
        auto* model = f.editor.findChild<QComboBox*>(QStringLiteral("model"));
        model->setCurrentIndex(model->findData(QStringLiteral("generic-7b")));
        QVERIFY(f.model.scenario().model.isBare());
        QVERIFY2(f.text("flopsPerToken").contains(QStringLiteral("(6N)")), qPrintable(f.text("flopsPerToken")));
        QCOMPARE(f.panel.formulaTable()->item(1, 2)->text(), QStringLiteral("-"));
        QCOMPARE(f.panel.chart()->data().series.size(), 2); // 6N line + this scenario
        // Its components are unknown (Start here's 7B demo showed one row, "Total 0.00"): one row says so and holds
        // the whole model's 2N forward, 6N training.
        QStandardItemModel* c = f.panel.componentTable();
        QCOMPARE(c->rowCount(), 1);
        QVERIFY2(
            c->item(0, 0)->text().contains(QStringLiteral("bare parameter count")), qPrintable(c->item(0, 0)->text()));
        const double n = static_cast<double>(*f.model.scenario().model.bareParams);
        QCOMPARE(c->item(0, 2)->text(), QLocale().toString(6 * n / 1e9, 'f', 2));
        for (int column = 1; column < c->columnCount(); ++column)
            QVERIFY2(c->item(0, column)->text() != QStringLiteral("0.00"), qPrintable(c->item(0, column)->text()));
    }

    // One setting chooses MFU's formula for the window: beside the headline, saved in the scenario. On gpt-oss-120b
    // at 128k PaLM charges its 18 sliding-window layers full attention (262.7 GFLOP/token against 146.9 per layer).
    void formulaChoiceSetsTheScenariosFormula()
    {
        Fixture f;
        mfu::Scenario s = f.model.scenario();
        s.model = *mfu::app::presetLibrary().findModel("gpt-oss-120b");
        s.workload.seqLen = 131072;
        f.model.setScenario(s);
        auto* choice = f.panel.findChild<QComboBox*>(QStringLiteral("mfuFormula"));
        QVERIFY(choice);
        QCOMPARE(choice->currentData().toInt(), static_cast<int>(mfu::FlopFormula::PerLayer));
        QVERIFY2(f.text("flopsPerToken").startsWith(QStringLiteral("146.9 GFLOP/token")),
            qPrintable(f.text("flopsPerToken")));
        choice->setCurrentIndex(choice->findData(static_cast<int>(mfu::FlopFormula::PaLM)));
        QCOMPARE(f.model.scenario().mfuFormula, mfu::FlopFormula::PaLM);
        QVERIFY2(f.text("flopsPerToken").startsWith(QStringLiteral("262.7 GFLOP/token")),
            qPrintable(f.text("flopsPerToken")));
        // PaLM's row says it counts as a report using PaLM would, over-counting the sliding-window layers.
        QVERIFY(f.panel.formulaTable()->item(1, 1)->text().contains(QStringLiteral("as a report using PaLM")));
        // A bare parameter count answers 6N only: the choice is shown but cannot be changed.
        s.model = mfu::bareModel(7'000'000'000);
        f.model.setScenario(s);
        QVERIFY(!choice->isEnabled());
        QCOMPARE(choice->currentData().toInt(), static_cast<int>(mfu::FlopFormula::SixN));
    }

    void chartComparesFormulasAcrossSequenceLength()
    {
        Fixture f;
        const ChartData& d = f.panel.chart()->data();
        QVERIFY(d.logX);
        QCOMPARE(d.xAxis.unit, QStringLiteral("tokens"));
        QCOMPARE(d.yAxis.unit, QStringLiteral("GFLOP/token"));
        QCOMPARE(d.series.size(), 6); // five formulas + this scenario
        const ChartSeries& palm = d.series[1];
        QCOMPARE(palm.name, QStringLiteral("PaLM"));
        QCOMPARE(palm.x.first(), 1024.0);
        QCOMPARE(palm.x.last(), 131072.0);
        const int at8k = static_cast<int>(palm.x.indexOf(8192.0));
        QVERIFY(at8k >= 0);
        QCOMPARE(palm.y[at8k], *mfu::countFlopsPerToken(f.model.scenario().model, 8192).palm / mfu::kGiga);
        QCOMPARE(d.series[5].kind, SeriesKind::Scatter);

        f.editor.findChild<QLineEdit*>(QStringLiteral("seqLen"))->selectAll();
        QTest::keyClicks(f.editor.findChild<QLineEdit*>(QStringLiteral("seqLen")), QStringLiteral("262144"));
        QTest::keyClick(f.editor.findChild<QLineEdit*>(QStringLiteral("seqLen")), Qt::Key_Return); // commits
        QCOMPARE(f.panel.chart()->data().series[1].x.last(), 262144.0); // range grows to include S
    }
};

QTEST_MAIN(TestCalculatorPanel)
#include "tst_panel.moc"
