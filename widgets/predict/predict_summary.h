#pragma once
// The Predict panel's headline: predicted MFU, HFU, tokens/s, TFLOPS per GPU, step time and memory per GPU, each with
// the ends of the error band the core computed for it (core/costmodel/error_band.h: capped where the GPU stops), the
// reason when the layout does not fit (the figures greyed), the bottleneck in one sentence, and the MFU PaLM's formula
// would claim over the packing length of a packed run. It shows what it is given and computes nothing.
#include <QWidget>

#include "core/costmodel/error_band.h"
#include "core/costmodel/step_prediction.h"
#include "core/scenario/scenario.h"

class QLabel;

namespace mfu::widgets {

class PredictSummary : public QWidget {
    Q_OBJECT
public:
    explicit PredictSummary(QWidget* parent = nullptr);

    void showPrediction(const Scenario& scenario, const StepPrediction& prediction, const ErrorBand& band);
    // No prediction: a dash for every figure and the reason in the bottleneck's place.
    void showNoPrediction(const QString& reason);
    // The prediction calibrated to a trace (core/calibration/calibration_text.h), under the figures above, which stay
    // uncalibrated; `details` (each term's basis) on hover. An empty sentence hides the row.
    void showCalibrated(const QString& sentence, const QString& details);

signals:
    void forgetCalibration(); // the user dropped the calibration

private:
    QLabel* m_mfu = nullptr;
    QLabel* m_hfu = nullptr;
    QLabel* m_tokens = nullptr;
    QLabel* m_tflops = nullptr;
    QLabel* m_stepTime = nullptr;
    QLabel* m_fits = nullptr;
    QLabel* m_band = nullptr; // where a measurement likely lies, in one sentence
    QLabel* m_misfit = nullptr; // why the figures are greyed: the layout does not fit
    QLabel* m_overPacking = nullptr; // the MFU attention over the packing length would claim, labelled
    QLabel* m_bottleneck = nullptr;
    QLabel* m_ignored = nullptr; // settings stated that do nothing for this run (core/scenario/ignored_settings.h)
    QWidget* m_calibratedRow = nullptr;
    QLabel* m_calibrated = nullptr;
};

} // namespace mfu::widgets
