// "Calibrate Predict to this trace": the Trace panel fits the cost model to the open run for the scenario as it
// stands, Predict then shows the calibrated prediction beside the uncalibrated one in the words core writes for the
// command line, and "Forget calibration" drops it. A scenario that is not the traced run is told why.
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QtTest>

#include <fstream>
#include <sstream>

#include "app/preset_store.h"
#include "app/validation_store.h"
#include "core/calibration/calibration_text.h"
#include "core/costmodel/cost_model.h"
#include "core/costmodel/error_band.h"
#include "core/number_format.h"
#include "core/presets/hf_config.h"
#include "widgets/predict/predict_panel.h"
#include "widgets/scenario/scenario_model.h"
#include "widgets/trace/trace_panel.h"

using namespace mfu;
using namespace mfu::widgets;

namespace {
const std::string kFolder = MFU_SHARED_TRACES_DIR;
const QString kTrace
    = QString::fromStdString(kFolder + "/pytorch211__h200__qwen3-0.6b-shape_compiled_s4096_mb8.json.gz");

Scenario tracedRun()
{
    std::ifstream in(kFolder + "/pytorch211__h200__qwen3-0.6b-shape.config.json");
    std::stringstream text;
    text << in.rdbuf();
    Scenario s;
    s.model = modelFromHfConfigText(text.str(), "qwen3-0.6b-shape");
    s.cluster.hardware = *app::presetLibrary().findHardware("h200");
    s.workload.seqLen = 4096;
    s.workload.microBatch = 8;
    s.flags.attentionKernel = AttentionKernel::Cudnn;
    s.flags.autocast = true; // FP32 weights cast every step, as the trace shows
    return s;
}
} // namespace

class TestCalibrateButton : public QObject {
    Q_OBJECT
private slots:
    void calibrateShowAndForget()
    {
        if (!QFile::exists(kTrace))
            QSKIP("the PyTorch 2.11 H200 trace is not in ../shared/traces in this checkout");
        ScenarioModel model;
        model.setScenario(tracedRun());
        TracePanel trace(&model);
        PredictPanel predict(&model);
        predict.setErrorBandModel(app::shippedErrorBands()); // as the main window gives it
        auto* button = trace.findChild<QPushButton*>(QStringLiteral("calibrateToTrace"));
        QVERIFY(button);
        QVERIFY(!button->isEnabled()); // nothing open yet
        QSignalSpy imported(&trace, &TracePanel::imported);
        trace.openTraces({ kTrace });
        QVERIFY(imported.wait(30000) || imported.count() > 0);
        QVERIFY(button->isEnabled());
        button->click();
        QVERIFY(model.traceCalibration());

        // The row says what core says: the same figures and basis the command line prints.
        auto* row = predict.findChild<QLabel*>(QStringLiteral("calibratedPrediction"));
        QVERIFY(row && row->isVisibleTo(&predict));
        const StepPrediction p = evaluate(model.scenario());
        const ErrorBand band = errorBandFor(model.scenario(), p, app::shippedErrorBands());
        const CalibratedPrediction expected
            = calibratedPrediction(model.scenario(), *model.traceCalibration(), p, relativeStepBandHalfWidth(band, p));
        QVERIFY2(
            row->text().contains(QString::fromStdString(calibratedFiguresText(expected))), qPrintable(row->text()));
        QVERIFY(row->text().contains(QStringLiteral("measured 100%")));
        // scripts/screenshot.sh's folder: both panels as a 1280x720 window shows them, to look at.
        if (const QByteArray dir = qgetenv("MFU_SCREENSHOT_DIR"); !dir.isEmpty()) {
            for (QWidget* w : { static_cast<QWidget*>(&predict), static_cast<QWidget*>(&trace) }) {
                w->resize(1280, 720);
                w->show();
                QCoreApplication::processEvents();
            }
            predict.grab().save(QString::fromUtf8(dir) + QStringLiteral("/calibrated_predict.png"));
            trace.grab().save(QString::fromUtf8(dir) + QStringLiteral("/calibrate_trace_toolbar.png"));
        }
        // The headline stays the uncalibrated model's.
        QCOMPARE(predict.findChild<QLabel*>(QStringLiteral("predictedMfu"))->text(),
            QString::fromStdString(formatPercent(p.mfu)));

        predict.findChild<QPushButton*>(QStringLiteral("forgetCalibration"))->click();
        QVERIFY(!model.traceCalibration());
        QVERIFY(!row->isVisibleTo(&predict));
    }

    void anotherGpuIsToldWhy()
    {
        if (!QFile::exists(kTrace))
            QSKIP("the PyTorch 2.11 H200 trace is not in ../shared/traces in this checkout");
        ScenarioModel model;
        Scenario s = tracedRun();
        s.cluster.hardware = *app::presetLibrary().findHardware("b200");
        model.setScenario(s);
        TracePanel trace(&model);
        QSignalSpy imported(&trace, &TracePanel::imported);
        trace.openTraces({ kTrace });
        QVERIFY(imported.wait(30000) || imported.count() > 0);
        QSignalSpy status(&trace, &TracePanel::statusMessage);
        trace.findChild<QPushButton*>(QStringLiteral("calibrateToTrace"))->click();
        QVERIFY(!model.traceCalibration());
        QVERIFY(status.count() == 1);
        QVERIFY2(status.takeFirst().at(0).toString().contains(QStringLiteral("the trace ran on 'NVIDIA H200'")),
            "the refusal names the trace's GPU");
    }
};

QTEST_MAIN(TestCalibrateButton)
#include "tst_calibrate_button.moc"
