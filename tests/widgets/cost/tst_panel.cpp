// Cost panel: the VECTOR Labs cost article's figures through the real widgets, the predicted-MFU fallback, remembered
// prices, and the message when there is no MFU to cost the job at.
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>

#include <QUndoStack>

#include <algorithm>

#include <qcustomplot.h>

#include "app/preset_store.h"
#include "app/scenario_history.h"
#include "calibration_test_support.h"
#include "core/costmodel/cost_model.h"
#include "core/number_format.h"
#include "widgets/charts/category_palette.h"
#include "widgets/charts/chart_view.h"
#include "widgets/cost/cost_panel.h"
#include "widgets/scenario/entry_reason.h"
#include "widgets/scenario/scenario_model.h"

using namespace mfu;
using namespace mfu::widgets;

namespace {

QString valueOf(const CostPanel& panel, const char* name)
{
    const auto* label = panel.findChild<QLabel*>(QString::fromLatin1(name));
    return label ? label->text() : QStringLiteral("<no label %1>").arg(QString::fromLatin1(name));
}

// The VECTOR Labs job: 256 H100 (Llama 3.1 70B, TP 8) for 90 days at $2.50, 40% -> 60%.
Scenario vectorLabsJob()
{
    Scenario s;
    s.model = *app::presetLibrary().findModel("llama-3.1-70b");
    s.cluster.hardware = *app::presetLibrary().findHardware("h100-sxm");
    s.cluster.gpuCount = 256;
    s.parallelism.tp = 8;
    s.cost.days = 90;
    return s;
}

void typeInto(QDoubleSpinBox* box, const QString& text)
{
    // QAbstractSpinBox::lineEdit() is protected; the editor is its one QLineEdit child.
    auto* edit = box->findChild<QLineEdit*>();
    QVERIFY(edit);
    edit->selectAll();
    QTest::keyClicks(edit, text);
    QTest::keyClick(edit, Qt::Key_Enter);
}

} // namespace

class TestCostPanel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().remove(QStringLiteral("cost"));
    }
    void cleanupTestCase() { QSettings().remove(QStringLiteral("cost")); }

    // Applying or undoing a calibration changes the scenario's cost-model constants: the price stays. Another GPU
    // starts at its own price.
    void calibrationKeepsThePrice()
    {
        ScenarioModel model;
        model.setScenario(defaultScenario(mfu::app::presetLibrary()));
        model.setPricePerGpuHour(3.5);
        CostModelConstants constants;
        constants.gemmEfficiency = 0.6;
        model.setCostModel(constants); // apply
        QCOMPARE(model.scenario().pricePerGpuHourUsd.value_or(0), 3.5);
        model.setCostModel(std::nullopt); // undo
        QCOMPARE(model.scenario().pricePerGpuHourUsd.value_or(0), 3.5);
        model.setHardware(model.scenario().cluster.hardware, constants); // the same GPU chosen again
        QCOMPARE(model.scenario().pricePerGpuHourUsd.value_or(0), 3.5);
        model.setHardware(*mfu::app::presetLibrary().findHardware("h100-sxm"));
        QVERIFY(!model.scenario().pricePerGpuHourUsd); // nothing remembered for the H100: its typical price
    }

    void vectorLabsFigures()
    {
        ScenarioModel model;
        model.setScenario(vectorLabsJob());
        CostPanel panel(&model, app::presetLibrary());
        QCOMPARE(panel.pricePerGpuHour()->value(), 2.5); // the H100 preset's typical price
        // Narrow enough to sit beside the scenario dock in a 1000-pixel window.
        QVERIFY2(panel.minimumSizeHint().width() <= 520, qPrintable(QString::number(panel.minimumSizeHint().width())));
        QCOMPARE(panel.jobKind()->currentIndex(), 1); // days of the cluster
        typeInto(panel.days(), QStringLiteral("90"));
        typeInto(panel.baselineMfuPercent(), QStringLiteral("40"));
        typeInto(panel.targetMfuPercent(), QStringLiteral("60"));
        QVERIFY2(panel.errorText().isEmpty(), qPrintable(panel.errorText()));
        QCOMPARE(valueOf(panel, "costMfu"), QStringLiteral("40.00% (given)"));
        QCOMPARE(valueOf(panel, "costGpuHours"), QStringLiteral("552,960"));
        QCOMPARE(valueOf(panel, "costDollars"), QStringLiteral("$1,382,400"));
        QCOMPARE(valueOf(panel, "costEnergy"), QStringLiteral("387,072 kWh"));
        QCOMPARE(valueOf(panel, "costGpuEquivalents"), QStringLiteral("102.4 -> 153.6"));
        QCOMPARE(valueOf(panel, "costRecovered"), QStringLiteral("51.2 GPU-equivalents, worth $276,480"));
        QCOMPARE(valueOf(panel, "costTimeSaved"), QStringLiteral("33.33% (60.0 days instead of 90.0)"));
        QCOMPARE(valueOf(panel, "costSaved"), QStringLiteral("$460,800"));

        // Charts: the cost curve with baseline and target marked; the savings bars; every GPU that fits.
        const ChartData& cost = panel.costChart()->data();
        QCOMPARE(cost.series.size(), 3);
        QCOMPARE(cost.series[1].name, QStringLiteral("Baseline"));
        QCOMPARE(cost.series[1].y.value(0), 1382.4);
        QCOMPARE(cost.series[2].y.value(0), 921.6);
        QCOMPARE(panel.daysChart()->data().series[2].y.value(0), 60.0);
        const QVector<double> savings = panel.savingsChart()->data().series.value(0).y;
        QCOMPARE(savings.size(), 4);
        QCOMPARE(savings[0], 1382.4); // cost at baseline, k$
        QCOMPARE(savings[1], 921.6); // at target
        QCOMPARE(savings[2], 460.8); // saved, same tokens
        QCOMPARE(savings[3], 276.48); // recovered, same GPU-hours
        QTRY_VERIFY(panel.hardwareCurrent()); // every GPU is predicted in the background
        QVERIFY(panel.hardwareComparison());
        QVERIFY(panel.hardwareComparison()->rows.size() >= 2);
        QCOMPARE(panel.hardwareChart()->data().categories.size(), int(panel.hardwareComparison()->rows.size()));

        // MFU_SCREENSHOT_DIR=folder saves what the panel looks like (scripts/screenshot.sh sets it).
        const QString shots = qEnvironmentVariable("MFU_SCREENSHOT_DIR");
        if (!shots.isEmpty()) {
            panel.resize(1100, 700);
            panel.show();
            QVERIFY(QTest::qWaitForWindowExposed(&panel));
            QVERIFY(panel.grab().save(shots + QStringLiteral("/cost_panel.png")));
        }
    }

    // 40% -> 30% MFU on the VECTOR Labs article's cluster for 90 days: the same job costs 40/30 as much, $460,800 more.
    // A loss, said with positive amounts in the error colour, not "saved -$460,800".
    void targetBelowBaselineIsALoss()
    {
        ScenarioModel model;
        model.setScenario(vectorLabsJob());
        CostPanel panel(&model, app::presetLibrary());
        typeInto(panel.days(), QStringLiteral("90"));
        typeInto(panel.baselineMfuPercent(), QStringLiteral("40"));
        typeInto(panel.targetMfuPercent(), QStringLiteral("30"));
        const QString saved = valueOf(panel, "costSaved");
        QVERIFY2(saved.startsWith(QStringLiteral("$460,800 more")), qPrintable(saved));
        QCOMPARE(valueOf(panel, "costRecovered"), QStringLiteral("25.6 GPU-equivalents, worth $138,240"));
        auto* savedLabel = panel.findChild<QLabel*>(QStringLiteral("costSaved"));
        auto* form = qobject_cast<QFormLayout*>(savedLabel->parentWidget()->layout());
        QCOMPARE(qobject_cast<QLabel*>(form->labelForField(savedLabel))->text(), QStringLiteral("Loss (same tokens):"));
        QVERIFY(savedLabel->styleSheet().contains(QStringLiteral("color")));
        QVERIFY(panel.savingsChart()->data().title.startsWith(QStringLiteral("Loss from 40% down to 30%")));
        for (double y : panel.savingsChart()->data().series.value(0).y)
            QVERIFY(y > 0);
        // Back above the baseline: savings again.
        typeInto(panel.targetMfuPercent(), QStringLiteral("60"));
        QCOMPARE(
            qobject_cast<QLabel*>(form->labelForField(savedLabel))->text(), QStringLiteral("Saved (same tokens):"));
    }

    // "150" typed as a target MFU: every character stays in the field, nothing is applied, and the reason says why
    // (it became 15% without a word before).
    void mfuAbove100IsExplainedNotTruncated()
    {
        ScenarioModel model;
        model.setScenario(vectorLabsJob());
        CostPanel panel(&model, app::presetLibrary());
        typeInto(panel.targetMfuPercent(), QStringLiteral("60"));
        const std::optional<double> before = model.scenario().cost.targetMfu;
        auto* edit = panel.targetMfuPercent()->findChild<QLineEdit*>();
        edit->selectAll();
        QTest::keyClicks(edit, QStringLiteral("150"));
        QVERIFY2(edit->text().startsWith(QStringLiteral("150")), qPrintable(edit->text()));
        auto* reason = panel.findChild<QLabel*>(QStringLiteral("targetMfuReason"));
        QVERIFY(reason && reason->isVisibleTo(&panel));
        QVERIFY(reason->text().contains(QStringLiteral("100%")));
        const QString typing = reason->text();
        QTest::keyClick(edit, Qt::Key_Enter);
        QCOMPARE(model.scenario().cost.targetMfu, before); // not 15%, not 150%
        QVERIFY(reason->isVisibleTo(&panel)); // the field went back to 60%: still said why, naming what it refused
        QCOMPARE(reason->text(), mfu::widgets::notAppliedReason(QStringLiteral("150"), typing));
        typeInto(panel.targetMfuPercent(), QStringLiteral("70"));
        QVERIFY(!reason->isVisibleTo(&panel));
        QVERIFY(model.scenario().cost.targetMfu && qAbs(*model.scenario().cost.targetMfu - 0.7) < 1e-12);
    }

    // Every input says why what is typed is not applied: beyond its range, or a decimal more than it keeps ("45.55"
    // in a one-decimal MFU field was kept in the field, unapplied, without a word). A figure it takes hides the reason.
    void everyInputExplainsWhatItDoesNotApply_data()
    {
        QTest::addColumn<int>("jobKind");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("reasonName");
        QTest::addColumn<QString>("refused");
        QTest::addColumn<QString>("mentions");
        QTest::addColumn<QString>("taken");
        QTest::newRow("baseline, two decimals") << 1 << "baseline"
                                                << "baselineMfuReason"
                                                << "45.55"
                                                << "one decimal"
                                                << "45.5";
        QTest::newRow("target, beyond 100%") << 1 << "target"
                                             << "targetMfuReason"
                                             << "150"
                                             << "100%"
                                             << "70";
        QTest::newRow("target, two decimals") << 1 << "target"
                                              << "targetMfuReason"
                                              << "60.25"
                                              << "one decimal"
                                              << "60.2";
        QTest::newRow("tokens, beyond range") << 0 << "tokens"
                                              << "tokensReason"
                                              << "2000000"
                                              << "1,000,000"
                                              << "2000";
        QTest::newRow("days, two decimals") << 1 << "days"
                                            << "daysReason"
                                            << "30.25"
                                            << "one decimal"
                                            << "30";
        QTest::newRow("price, three decimals") << 1 << "price"
                                               << "priceReason"
                                               << "2.505"
                                               << "two decimals"
                                               << "2.5";
        // A letter stays in the field rather than vanishing, and E notation is a figure like any other.
        QTest::newRow("days, a letter") << 1 << "days"
                                        << "daysReason"
                                        << "9x"
                                        << "100,000"
                                        << "45";
        QTest::newRow("tokens, E notation") << 0 << "tokens"
                                            << "tokensReason"
                                            << "2e7"
                                            << "1,000,000"
                                            << "2e3";
    }
    void everyInputExplainsWhatItDoesNotApply()
    {
        QFETCH(int, jobKind);
        QFETCH(QString, field);
        QFETCH(QString, reasonName);
        QFETCH(QString, refused);
        QFETCH(QString, mentions);
        QFETCH(QString, taken);
        ScenarioModel model;
        model.setScenario(vectorLabsJob());
        CostPanel panel(&model, app::presetLibrary());
        panel.jobKind()->setCurrentIndex(jobKind);
        QDoubleSpinBox* box = field == "baseline" ? panel.baselineMfuPercent()
            : field == "target"                   ? panel.targetMfuPercent()
            : field == "tokens"                   ? panel.tokensBillions()
            : field == "days"                     ? panel.days()
                                                  : panel.pricePerGpuHour();
        QVERIFY(box->isEnabled());
        const double before = box->value();
        auto* reason = panel.findChild<QLabel*>(reasonName);
        QVERIFY(reason);
        QVERIFY(!reason->isVisibleTo(&panel));
        auto* edit = box->findChild<QLineEdit*>();
        edit->selectAll();
        QTest::keyClicks(edit, refused);
        QVERIFY2(edit->text().startsWith(refused), qPrintable(edit->text())); // every keystroke kept
        QVERIFY(reason->isVisibleTo(&panel));
        QVERIFY2(reason->text().contains(mentions), qPrintable(reason->text()));
        QCOMPARE(box->accessibleDescription(), reason->text());
        const QString typing = reason->text();
        QTest::keyClick(edit, Qt::Key_Enter);
        QCOMPARE(box->value(), before); // not applied, not rounded
        QVERIFY(reason->isVisibleTo(&panel)); // the kept figure came back: still said why
        QCOMPARE(reason->text(), mfu::widgets::notAppliedReason(refused, typing));
        QCOMPARE(box->accessibleDescription(), reason->text());
        typeInto(box, taken);
        QVERIFY(!reason->isVisibleTo(&panel));
        QVERIFY(!reason->isVisibleTo(&panel));
        QVERIFY(box->accessibleDescription().isEmpty());
        QCOMPARE(box->value(), taken.toDouble()); // "2e3" reads 2,000
    }

    // "By GPU" says which MFU each GPU is costed at (the cost model's prediction there, not the baseline on the
    // left), accounts for every GPU preset (a bar, or left out with the reason), and explains an empty chart.
    void byGpuExplainsItself()
    {
        ScenarioModel model;
        model.setScenario(vectorLabsJob());
        CostPanel panel(&model, app::presetLibrary());
        typeInto(panel.baselineMfuPercent(), QStringLiteral("40"));
        QTRY_VERIFY(panel.hardwareCurrent());
        const QString note = panel.hardwareNote();
        QVERIFY2(note.contains(QLatin1String("at the MFU the cost model predicts")), qPrintable(note));
        QVERIFY(note.contains(QLatin1String("40.00%")));
        auto* label = panel.findChild<QLabel*>(QStringLiteral("hardwareNote"));
        QVERIFY(label);
        const HardwareComparison* cmp = panel.hardwareComparison();
        QVERIFY(cmp && !cmp->rows.empty());
        for (const auto& row : cmp->rows)
            QVERIFY(label->toolTip().contains(
                QStringLiteral("%1: %2 MFU")
                    .arg(QString::fromStdString(row.hardwareId), QString::fromStdString(formatPercent(row.mfu)))));
        for (const HardwareSpec& h : app::presetLibrary().hardware()) {
            const bool charted = std::any_of(
                cmp->rows.begin(), cmp->rows.end(), [&h](const auto& row) { return row.hardwareId == h.id; });
            QVERIFY2(charted || note.contains(QString::fromStdString(h.id)), h.id.c_str());
        }

        // A bare model: no GPU can be predicted, so the chart is empty and says so.
        Scenario bare = vectorLabsJob();
        bare.model = bareModel(7'000'000'000, "a 7B model");
        bare.cost.baselineMfu = 0.45;
        model.setScenario(bare);
        QTRY_VERIFY(panel.hardwareCurrent());
        QVERIFY(panel.hardwareChart()->data().series.isEmpty());
        QVERIFY2(panel.hardwareNote().contains(QLatin1String("No GPU can run it")), qPrintable(panel.hardwareNote()));
        QVERIFY(panel.hardwareNote().contains(QLatin1String("Left out")));

        // No job to cost.
        typeInto(panel.days(), QStringLiteral("0"));
        QVERIFY2(
            panel.hardwareNote().startsWith(QLatin1String("No GPUs to compare")), qPrintable(panel.hardwareNote()));
    }

    void tokenBudgetAndPredictedMfu()
    {
        ScenarioModel model;
        model.setScenario(vectorLabsJob());
        CostPanel panel(&model, app::presetLibrary());
        panel.jobKind()->setCurrentIndex(0);
        typeInto(panel.tokensBillions(), QStringLiteral("1000"));
        typeInto(panel.baselineMfuPercent(), QStringLiteral("0")); // measured or predicted: no throughput, so predicted
        QVERIFY2(panel.errorText().isEmpty(), qPrintable(panel.errorText()));
        QVERIFY(panel.cost());
        QCOMPARE(panel.cost()->baselineOrigin, MfuOrigin::Predicted);
        QVERIFY(valueOf(panel, "costMfu").endsWith(QStringLiteral("(predicted by the cost model)")));
        QCOMPARE(*panel.cost()->job.tokens, 1e12);
        QCOMPARE(valueOf(panel, "costTokens"), QStringLiteral("1,000.0 B"));
    }

    // A calibration from the Trace panel prices the job at the calibrated MFU Predict shows beside the
    // uncalibrated one (reportFigures' call), and taking it away prices it at the uncalibrated prediction again.
    void calibratedPredictionPricesTheJob()
    {
        ScenarioModel model;
        model.setScenario(vectorLabsJob());
        CostPanel panel(&model, app::presetLibrary());
        typeInto(panel.baselineMfuPercent(), QStringLiteral("0")); // no MFU given, no throughput: predicted
        QVERIFY(panel.cost());
        const double uncalibrated = panel.cost()->baselineMfu;
        QCOMPARE(panel.cost()->baselineOrigin, MfuOrigin::Predicted);

        const TraceCalibration calibration = test::matmulsFasterThanPredicted(model.scenario());
        model.setTraceCalibration(calibration, QStringLiteral("rank0.json"));
        QVERIFY(panel.cost());
        QCOMPARE(panel.cost()->baselineOrigin, MfuOrigin::Calibrated);
        const StepPrediction p = evaluate(model.scenario());
        const double expected = calibratedPrediction(model.scenario(), calibration, p, 0.1).calibrated.mfu;
        QCOMPARE(panel.cost()->baselineMfu, expected);
        QVERIFY(expected > uncalibrated); // matmuls 20% faster than modelled
        QCOMPARE(valueOf(panel, "costMfu"),
            QString::fromStdString(formatPercent(expected))
                + QStringLiteral(" (predicted by the cost model, calibrated to a trace)"));

        model.setTraceCalibration(std::nullopt, {});
        QCOMPARE(panel.cost()->baselineOrigin, MfuOrigin::Predicted);
        QCOMPARE(panel.cost()->baselineMfu, uncalibrated);
    }

    void priceRemembered()
    {
        ScenarioModel model;
        model.setScenario(vectorLabsJob());
        {
            CostPanel panel(&model, app::presetLibrary());
            typeInto(panel.pricePerGpuHour(), QStringLiteral("3.10"));
            QCOMPARE(panel.cost()->rate.pricePerGpuHourUsd, 3.1);
        }
        CostPanel again(&model, app::presetLibrary());
        QCOMPARE(again.pricePerGpuHour()->value(), 3.1);
        // Another GPU has its own price: the preset's until edited.
        model.setHardware(*app::presetLibrary().findHardware("b200"));
        QCOMPARE(again.pricePerGpuHour()->value(), app::presetLibrary().findHardware("b200")->pricePerGpuHourUsd);
        model.setHardware(*app::presetLibrary().findHardware("h100-sxm"));
        QCOMPARE(again.pricePerGpuHour()->value(), 3.1);
    }

    // A GPU whose preset states no price (MI350X) shows "none", not the previous GPU's price beside the "no price"
    // error; a typed price then costs the job, and is that GPU's next time.
    void gpuWithoutAPriceShowsNone()
    {
        ScenarioModel model;
        model.setScenario(vectorLabsJob());
        CostPanel panel(&model, app::presetLibrary());
        typeInto(panel.baselineMfuPercent(), QStringLiteral("40"));
        QCOMPARE(panel.pricePerGpuHour()->value(), 2.5);
        model.setHardware(*app::presetLibrary().findHardware("mi350x"));
        QCOMPARE(panel.pricePerGpuHour()->value(), 0.0);
        QCOMPARE(panel.pricePerGpuHour()->text(), panel.pricePerGpuHour()->specialValueText());
        QVERIFY(!panel.cost());
        const auto* error = panel.findChild<QLabel*>(QStringLiteral("costError"));
        QVERIFY(error && error->text().contains(QStringLiteral("no price per GPU-hour")));
        // No axes of a job that cannot be costed: each chart says what is missing instead.
        for (auto* chart : { panel.costChart(), panel.daysChart(), panel.savingsChart() }) {
            QVERIFY(chart->data().series.isEmpty());
            QVERIFY2(chart->emptyReason().startsWith(QStringLiteral("No price per GPU-hour")),
                qPrintable(chart->emptyReason()));
        }
        QVERIFY(panel.hardwareChart()->emptyReason().startsWith(QStringLiteral("No job to compare")));
        QVERIFY(!panel.savingsChart()->data().title.contains(QLatin1Char('%'))); // not the last target's figures
        typeInto(panel.pricePerGpuHour(), QStringLiteral("2.90"));
        QVERIFY(panel.cost());
        QCOMPARE(panel.cost()->rate.pricePerGpuHourUsd, 2.9);
        QVERIFY(!panel.costChart()->data().series.isEmpty());
        QVERIFY(panel.costChart()->emptyReason().isEmpty());
        QVERIFY(panel.costChart()->plot()->xAxis->tickLabels());
        model.setHardware(*app::presetLibrary().findHardware("h100-sxm"));
        model.setHardware(*app::presetLibrary().findHardware("mi350x"));
        QCOMPARE(panel.pricePerGpuHour()->value(), 2.9);
        // "none" again forgets it, also for the next time the GPU is chosen.
        typeInto(panel.pricePerGpuHour(), QStringLiteral("0"));
        QVERIFY(!model.scenario().pricePerGpuHourUsd);
        QVERIFY(!panel.cost());
        model.setHardware(*app::presetLibrary().findHardware("h100-sxm"));
        model.setHardware(*app::presetLibrary().findHardware("mi350x"));
        QCOMPARE(panel.pricePerGpuHour()->value(), 0.0);
    }

    void inputsLiveInTheScenarioAndUndo()
    {
        ScenarioModel model;
        model.setScenario(vectorLabsJob());
        app::ScenarioHistory history(&model);
        CostPanel panel(&model, app::presetLibrary());
        QCOMPARE(panel.days()->value(), 90.0); // shown from the scenario
        typeInto(panel.targetMfuPercent(), QStringLiteral("70"));
        typeInto(panel.baselineMfuPercent(), QStringLiteral("40"));
        typeInto(panel.pricePerGpuHour(), QStringLiteral("2.75"));
        QCOMPARE(*model.scenario().cost.targetMfu, 0.7);
        QCOMPARE(*model.scenario().cost.baselineMfu, 0.4);
        QCOMPARE(*model.scenario().pricePerGpuHourUsd, 2.75);
        QCOMPARE(panel.cost()->job.costUsd, 256 * 90 * 24 * 2.75);
        // The greyed tokens field shows what the 90 days train, not its last typed value.
        QVERIFY(!panel.tokensBillions()->isEnabled());
        QVERIFY(panel.cost()->job.tokens);
        QVERIFY(std::abs(panel.tokensBillions()->value() - *panel.cost()->job.tokens / 1e9) <= 0.05);
        panel.jobKind()->setCurrentIndex(0);
        typeInto(panel.tokensBillions(), QStringLiteral("500"));
        QCOMPARE(*model.scenario().cost.tokenBudget, 500e9);
        QVERIFY(!model.scenario().cost.days);

        history.stack()->undo(); // the token budget
        history.stack()->undo(); // the job kind
        QCOMPARE(panel.jobKind()->currentIndex(), 1);
        QCOMPARE(*model.scenario().cost.days, 90.0);
        history.stack()->undo(); // the price
        QCOMPARE(panel.pricePerGpuHour()->value(), 2.5);
        QVERIFY(!model.scenario().pricePerGpuHourUsd);
        history.stack()->undo(); // the baseline
        history.stack()->undo(); // the target
        QCOMPARE(panel.targetMfuPercent()->value(), 0.0);
        QVERIFY(!model.scenario().cost.targetMfu);
        QCOMPARE(valueOf(panel, "costSaved"), QStringLiteral("-"));
        history.stack()->redo();
        QCOMPARE(panel.targetMfuPercent()->value(), 70.0);
    }

    void editedPriceIsTheNextSessionsDefault()
    {
        // The window starts on defaultScenario (B200): a B200 price typed in one session is its price in the next.
        QSettings().remove(QStringLiteral("cost"));
        QVERIFY(!defaultScenario(app::presetLibrary()).pricePerGpuHourUsd);
        {
            ScenarioModel model;
            model.setScenario(defaultScenario(app::presetLibrary()));
            CostPanel panel(&model, app::presetLibrary());
            typeInto(panel.pricePerGpuHour(), QStringLiteral("4.20"));
        }
        const Scenario next = defaultScenario(app::presetLibrary());
        QCOMPARE(*next.pricePerGpuHourUsd, 4.2);
        ScenarioModel model;
        model.setScenario(next);
        CostPanel panel(&model, app::presetLibrary());
        QCOMPARE(panel.pricePerGpuHour()->value(), 4.2);
        QCOMPARE(panel.cost()->rate.pricePerGpuHourUsd, 4.2);
    }

    // A measured throughput no H100 can reach (a B200's 21,111 tokens/s per GPU for Llama 3.1 8B is 124% of the
    // H100's peak): the job is costed at the prediction, and the reason stands in the error colour.
    void impossibleMeasuredMfuIsSetAside()
    {
        ScenarioModel model;
        Scenario s = vectorLabsJob();
        s.model = *app::presetLibrary().findModel("llama-3.1-8b");
        s.cluster.gpuCount = 8;
        s.parallelism.tp = 1;
        model.setScenario(s);
        model.setThroughput(ThroughputInput::TokensPerSecPerGpu, 21111);
        CostPanel panel(&model, app::presetLibrary());
        QVERIFY(panel.cost());
        QCOMPARE(panel.cost()->baselineOrigin, MfuOrigin::Predicted);
        QVERIFY(valueOf(panel, "costMfu").endsWith(QStringLiteral("(predicted by the cost model)")));
        QVERIFY2(panel.errorText().contains(QStringLiteral("above 100%")), qPrintable(panel.errorText()));
        const auto* error = panel.findChild<QLabel*>(QStringLiteral("costError"));
        QVERIFY(error && error->styleSheet() == errorStyleSheet());
    }

    // Llama 3.1 8B on one H100 does not fit (the By GPU tab leaves the H100 out for it): its predicted MFU prices
    // nothing, and the panel says why instead of costing the job at "57.10% (predicted by the cost model)". A given
    // baseline still prices the job.
    void predictionThatDoesNotFitIsNotPriced()
    {
        ScenarioModel model;
        Scenario s = vectorLabsJob();
        s.model = *app::presetLibrary().findModel("llama-3.1-8b");
        s.cluster.gpuCount = 1;
        s.parallelism = Parallelism {};
        model.setScenario(s);
        QVERIFY(!evaluate(model.scenario()).fits);
        CostPanel panel(&model, app::presetLibrary());
        QVERIFY(!panel.cost());
        QVERIFY2(panel.errorText().contains(QStringLiteral("does not fit in memory")), qPrintable(panel.errorText()));
        QVERIFY2(panel.errorText().contains(QStringLiteral(" GiB, ")), qPrintable(panel.errorText())); // its figures
        QCOMPARE(valueOf(panel, "costMfu"), QStringLiteral("-"));
        QCOMPARE(valueOf(panel, "costDollars"), QStringLiteral("-"));
        typeInto(panel.baselineMfuPercent(), QStringLiteral("40"));
        QVERIFY(panel.cost());
        QCOMPARE(panel.cost()->baselineOrigin, MfuOrigin::Given);
    }

    // One GPU from 57.1% to 58.1% for 90 days: 0.01 GPU-equivalents worth $43, never "0.0 GPU-equivalents, worth $43".
    void smallRecoveryReadsAsWhatItIsWorth()
    {
        ScenarioModel model;
        Scenario s = vectorLabsJob();
        s.cluster.gpuCount = 1;
        s.pricePerGpuHourUsd = 2.0;
        model.setScenario(s);
        CostPanel panel(&model, app::presetLibrary());
        typeInto(panel.baselineMfuPercent(), QStringLiteral("57.1"));
        typeInto(panel.targetMfuPercent(), QStringLiteral("58.1"));
        QCOMPARE(valueOf(panel, "costRecovered"), QStringLiteral("0.010 GPU-equivalents, worth $43"));
    }

    void noMfuSaysWhy()
    {
        // A bare model with no measurement: the cost model cannot predict and no MFU was given.
        ScenarioModel model;
        Scenario s = vectorLabsJob();
        s.model = bareModel(7'000'000'000, "a 7B model");
        model.setScenario(s);
        CostPanel panel(&model, app::presetLibrary());
        QVERIFY(!panel.cost());
        QVERIFY2(panel.errorText().contains(QStringLiteral("no MFU")), qPrintable(panel.errorText()));
        QCOMPARE(valueOf(panel, "costDollars"), QStringLiteral("-"));
        typeInto(panel.baselineMfuPercent(), QStringLiteral("45"));
        QVERIFY(panel.cost());
        QVERIFY(panel.errorText().isEmpty());
    }
};

QTEST_MAIN(TestCostPanel)
#include "tst_panel.moc"
