// The Start here page: each one-click demo sets the shared scenario to a source's worked example and shows the panel
// that answers it; the figures those panels then display are computed by core (checked here through core).
#include <QPushButton>
#include <QSignalSpy>
#include <QtTest>

#include <QSettings>
#include <QStandardPaths>

#include "core/scenario/scenario_facts.h"
#include "shipped_presets.h"
#include "widgets/calculator/calculator_panel.h"
#include "widgets/cost/price_memory.h"
#include "widgets/scenario/scenario_model.h"
#include "widgets/start/start_panel.h"

using namespace mfu;
using namespace mfu::widgets;

namespace {
const PresetLibrary& presets()
{
    return test::shippedPresets();
}

double mfuOf(const Scenario& s)
{
    return scenarioMeasuredMfu(s).value().mfu; // what every panel shows (core/scenario/scenario_facts.h)
}

QPushButton* button(StartPanel& panel, const QString& accessibleName)
{
    for (auto* b : panel.findChildren<QPushButton*>())
        if (b->accessibleName() == accessibleName)
            return b;
    return nullptr;
}
} // namespace

class TestStartPanel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("mfu-explorer-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_start_panel"));
        QSettings().clear();
    }
    void cleanupTestCase() { QSettings().clear(); }

    void sevenBOnH100Demo()
    {
        ScenarioModel model;
        StartPanel panel(model, presets());
        QSignalSpy shown(&panel, &StartPanel::showPanel);
        QPushButton* demo = button(panel, QStringLiteral("Demo: 7B model on 8 H100"));
        QVERIFY(demo);
        QTest::mouseClick(demo, Qt::LeftButton);
        const Scenario& s = model.scenario();
        QVERIFY(s.model.isBare());
        QCOMPARE(s.cluster.gpuCount, 8);
        QCOMPARE(QString::fromStdString(s.cluster.hardware.id), QStringLiteral("h100-sxm"));
        QVERIFY(s.measuredThroughput.has_value());
        QCOMPARE(qRound(mfuOf(s) * 1000), 145); // the MFU tutorial: 14.5%
        QCOMPARE(shown.count(), 1);
        QCOMPARE(shown.first().first().value<StartPanel::Panel>(), StartPanel::Panel::Calculator);
    }

    // The demo's GPU is priced at its own remembered (else typical) price, not at the price remembered for the
    // default scenario's B200.
    void sevenBOnH100DemoIsPricedAsAnH100()
    {
        rememberPrice("b200", 9.75);
        ScenarioModel model;
        StartPanel panel(model, presets());
        QVERIFY(panel.runDemo(StartPanel::Demo::SevenBOnEightH100));
        const Scenario& s = model.scenario();
        QVERIFY2(!s.pricePerGpuHourUsd, qPrintable(QString::number(s.pricePerGpuHourUsd.value_or(0))));
        QCOMPARE(s.effectivePricePerGpuHourUsd(), presets().findHardware("h100-sxm")->pricePerGpuHourUsd);
        rememberPrice("h100-sxm", 2.5);
        QVERIFY(panel.runDemo(StartPanel::Demo::SevenBOnEightH100));
        QCOMPARE(model.scenario().effectivePricePerGpuHourUsd(), 2.5);
        QSettings().remove(QStringLiteral("cost"));
    }

    // The Calculator diagnoses the bare-parameter demo (it used to drop the model and show an error instead).
    void sevenBOnH100DemoIsDiagnosed()
    {
        ScenarioModel model;
        StartPanel panel(model, presets());
        CalculatorPanel calculator(&model, presets());
        QVERIFY(panel.runDemo(StartPanel::Demo::SevenBOnEightH100));
        QStringList codes;
        for (int r = 0; r < calculator.findings()->rowCount(); ++r)
            codes << calculator.findings()->item(r)->data(Qt::UserRole).toString();
        QVERIFY2(codes.contains(QStringLiteral("corrected_mfu")), qPrintable(codes.join(QLatin1Char(','))));
    }

    // The MFU tutorial states a step time: the demo enters it as one (1.2 s), and the Calculator's diagnosis has no
    // error in it.
    void sevenBOnH100DemoUsesTheStepTime()
    {
        ScenarioModel model;
        StartPanel panel(model, presets());
        CalculatorPanel calculator(&model, presets());
        QVERIFY(panel.runDemo(StartPanel::Demo::SevenBOnEightH100));
        QCOMPARE(model.throughputInput(), ThroughputInput::StepTime);
        QCOMPARE(model.throughputValue(), 1.2);
        QCOMPARE(model.tokensPerStep(), int64_t(8 * 4096));
        QCOMPARE(qRound(mfuOf(model.scenario()) * 1000), 145);
        for (int r = 0; r < calculator.findings()->rowCount(); ++r) {
            const QString text = calculator.findings()->item(r)->text();
            QVERIFY2(!text.startsWith(QLatin1String("[error]")), qPrintable(text));
        }
    }

    // A demo resets what it does not set: measured points, the price typed for the GPU before, the throughput
    // input mode, the cost inputs; and it asks the window to close loaded traces (demoStarting) before it applies.
    void demosResetWhatTheyDoNotSet()
    {
        ScenarioModel model;
        StartPanel panel(model, presets());
        QSignalSpy starting(&panel, &StartPanel::demoStarting);
        QVERIFY(panel.runDemo(StartPanel::Demo::SevenBOnEightH100)); // step-time mode
        Scenario edited = model.scenario();
        edited.measuredPoints.push_back({ "mine", 4096, 8, TrainingPrecision::BF16, 0.3 });
        edited.pricePerGpuHourUsd = 11.0;
        edited.cost.tokenBudget = 5e12;
        model.setScenario(edited);
        model.setThroughputInput(ThroughputInput::StepTime);

        QVERIFY(panel.runDemo(StartPanel::Demo::Llama70BTorchTitanDefault));
        const Scenario& s = model.scenario();
        QVERIFY(!s.measuredThroughput);
        QVERIFY(s.measuredPoints.empty());
        QCOMPARE(model.throughputInput(), ThroughputInput::TokensPerSecPerGpu);
        QCOMPARE(s.effectivePricePerGpuHourUsd(), presets().findHardware("b200")->pricePerGpuHourUsd);
        QVERIFY(!s.cost.tokenBudget);
        QCOMPARE(s.cost.days, std::optional<double>(90));

        model.setScenario(edited);
        QVERIFY(panel.runDemo(StartPanel::Demo::Llama8BOnOneB200));
        QVERIFY(model.scenario().measuredPoints.empty());
        QCOMPARE(model.throughputInput(), ThroughputInput::TokensPerSecPerGpu);
        QCOMPARE(model.throughputValue(), 21111.0);
        QCOMPARE(starting.count(), 3);
    }

    void lambdaDemo()
    {
        ScenarioModel model;
        StartPanel panel(model, presets());
        model.setGpuCount(64); // the user had changed something
        QVERIFY(panel.runDemo(StartPanel::Demo::Llama8BOnOneB200));
        QCOMPARE(model.scenario().cluster.gpuCount, 1);
        QCOMPARE(qRound(mfuOf(model.scenario()) * 10000), 5434); // 54.34%
    }

    void llama70BDemoOpensPredict()
    {
        ScenarioModel model;
        StartPanel panel(model, presets());
        QSignalSpy shown(&panel, &StartPanel::showPanel);
        QVERIFY(panel.runDemo(StartPanel::Demo::Llama70BTorchTitanDefault));
        QCOMPARE(model.scenario().parallelism.tp, 8);
        QCOMPARE(model.scenario().activationCheckpointing, ActivationCheckpointing::Full);
        QCOMPARE(model.scenario().cluster.gpuCount, 16);
        QCOMPARE(shown.first().first().value<StartPanel::Panel>(), StartPanel::Panel::Predict);
    }

    // With MFU_SCREENSHOT_DIR set, saves the page to look at (scripts/screenshot.sh's habit); otherwise checks it
    // renders at a typical dock-beside-panel width without growing wider than the window.
    void screenshot()
    {
        ScenarioModel model;
        StartPanel panel(model, presets());
        panel.resize(960, 820);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QVERIFY(panel.minimumSizeHint().width() <= 960);
        const QByteArray dir = qgetenv("MFU_SCREENSHOT_DIR");
        if (!dir.isEmpty())
            QVERIFY(panel.grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/start_panel.png")));
    }

    void missingPresetIsReported()
    {
        ScenarioModel model;
        PresetLibrary empty;
        StartPanel panel(model, empty);
        QSignalSpy failed(&panel, &StartPanel::demoFailed);
        QVERIFY(!panel.runDemo(StartPanel::Demo::SevenBOnEightH100));
        QCOMPARE(failed.count(), 1);
    }
};

QTEST_MAIN(TestStartPanel)
#include "tst_panel.moc"
