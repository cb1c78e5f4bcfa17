#include "widgets/predict/calibration_box.h"

#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>

#include <exception>

#include "core/costmodel/cost_model.h"
#include "core/model/mfu.h"
#include "core/number_format.h"
#include "widgets/scenario/reason_label.h"
#include "widgets/scenario/scenario_editor.h"
#include "widgets/scenario/scenario_model.h"

namespace mfu::widgets {

namespace {
QString pct(double fraction)
{
    return QString::fromStdString(formatPercent(fraction, 1));
}
QString fromTo(double before, double after)
{
    return pct(before) + QStringLiteral(" \u2192 ") + pct(after);
}
} // namespace

CalibrationBox::CalibrationBox(ScenarioModel* model, QWidget* parent)
    : QGroupBox(tr("Calibrate to a measurement"), parent)
    , m_model(model)
{
    auto* grid = new QGridLayout(this);
    auto* caption = new QLabel(tr("Measured &MFU (%):"));
    m_measured = new QLineEdit;
    m_measured->setObjectName(QStringLiteral("calibrationMfu"));
    m_measured->setAccessibleName(tr("Measured MFU in percent, for calibration"));
    m_measured->setPlaceholderText(tr("e.g. 45"));
    caption->setBuddy(m_measured);
    m_fromMfu = new QPushButton(tr("Fit to this MFU"));
    m_fromMfu->setObjectName(QStringLiteral("calibrateMfu"));
    m_fromThroughput = new QPushButton(tr("Fit to the scenario's measured tokens/s"));
    m_fromThroughput->setObjectName(QStringLiteral("calibrateThroughput"));
    m_apply = new QPushButton(tr("Apply calibrated constants"));
    m_apply->setObjectName(QStringLiteral("applyCalibration"));
    m_undoButton = new QPushButton(tr("Undo calibration"));
    m_undoButton->setObjectName(QStringLiteral("undoCalibration"));
    m_reason = new ReasonLabel;
    m_reason->setObjectName(QStringLiteral("calibrationReason"));
    m_reason->setField(m_measured);
    m_resultLabel = new QLabel;
    m_resultLabel->setObjectName(QStringLiteral("calibrationResult"));
    m_resultLabel->setWordWrap(true);
    m_resultLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Three columns, the second fit on its own row: in one row of four the field shrank to "e..." at 1280x720.
    m_measured->setMinimumWidth(m_measured->fontMetrics().horizontalAdvance(QStringLiteral("e.g. 45.55")) + 16);
    grid->addWidget(caption, 0, 0);
    grid->addWidget(m_measured, 0, 1);
    grid->addWidget(m_fromMfu, 0, 2);
    grid->addWidget(m_fromThroughput, 1, 1, 1, 2);
    grid->addWidget(m_reason, 2, 0, 1, 3);
    grid->addWidget(m_resultLabel, 3, 0, 1, 3);
    grid->addWidget(m_apply, 4, 1);
    grid->addWidget(m_undoButton, 4, 2);
    grid->setColumnStretch(1, 1);

    connect(m_fromMfu, &QPushButton::clicked, this, [this] {
        QString typed = m_measured->text().trimmed(); // the field is in percent; "45%" says the same
        if (typed.endsWith(QLatin1Char('%')))
            typed.chop(1);
        const auto value = parseGroupedNumber(typed);
        if (!value || *value <= 0 || *value >= 100) { // core's range message speaks of fractions; this is percent
            refuse(tr("Enter the measured MFU as a percentage above 0 and below 100, e.g. 45."));
            return;
        }
        calibrateToMfu(*value);
    });
    connect(m_measured, &QLineEdit::returnPressed, m_fromMfu, &QPushButton::click);
    connect(m_fromThroughput, &QPushButton::clicked, this, &CalibrationBox::calibrateToMeasuredThroughput);
    connect(m_apply, &QPushButton::clicked, this, &CalibrationBox::applyCalibration);
    connect(m_undoButton, &QPushButton::clicked, this, &CalibrationBox::undoCalibration);
    connect(m_model, &ScenarioModel::changed, this, &CalibrationBox::updateButtons);
    updateButtons();
}

bool CalibrationBox::calibrateToMfu(double measuredMfuPercent)
{
    const Scenario s = m_model->scenario();
    return show([s, measuredMfuPercent] { return mfu::calibrateToMfu(s, measuredMfuPercent / 100.0); });
}

bool CalibrationBox::calibrateToMeasuredThroughput()
{
    const Scenario s = m_model->scenario();
    if (!s.measuredThroughput)
        return refuse(tr("The scenario has no measured throughput: enter one in the scenario editor."));
    const double perGpu = tokensPerSecPerGpu(*s.measuredThroughput, s.cluster.gpuCount);
    return show([s, perGpu] { return mfu::calibrateToTokensPerSecPerGpu(s, perGpu); });
}

bool CalibrationBox::show(const std::function<CalibrationResult()>& calibrate)
{
    try {
        m_result = calibrate();
    } catch (const std::exception& e) {
        return refuse(QString::fromUtf8(e.what()));
    }
    m_reason->showReason({});
    const CalibrationResult& r = *m_result;
    const CostModelConstants before = costModelConstantsFor(m_model->scenario());
    QString text = tr("Efficiencies x %1: GEMM %2, attention forward %3, backward %4, HBM %5.")
                       .arg(r.scale, 0, 'f', 3)
                       .arg(fromTo(before.gemmEfficiency, r.constants.gemmEfficiency))
                       .arg(fromTo(before.attentionForwardEfficiency, r.constants.attentionForwardEfficiency))
                       .arg(fromTo(before.attentionBackwardEfficiency, r.constants.attentionBackwardEfficiency))
                       .arg(fromTo(before.hbmEfficiency, r.constants.hbmEfficiency));
    text += QLatin1Char('\n')
        + tr("This configuration: MFU %1, %2 tokens/s per GPU.")
              .arg(fromTo(r.before.mfu, r.after.mfu))
              .arg(QLocale().toString(r.before.tokensPerSecPerGpu, 'f', 0) + QStringLiteral(" \u2192 ")
                  + QLocale().toString(r.after.tokensPerSecPerGpu, 'f', 0));
    if (m_best) {
        try {
            const Scenario s = withConfig(m_model->scenario(), *m_best);
            const StepPrediction after = CostModel(s.model, s.cluster.hardware, r.constants).evaluate(s);
            text += QLatin1Char('\n')
                + tr("Planner's best (%1): MFU %2.")
                      .arg(QString::fromStdString(describeConfig(*m_best)))
                      .arg(fromTo(m_best->prediction.mfu, after.mfu));
        } catch (const std::exception&) {
            // The best layout belongs to an older scenario that no longer lays out; nothing to show for it.
        }
    }
    m_resultLabel->setText(text);
    updateButtons();
    return true;
}

void CalibrationBox::applyCalibration()
{
    if (!m_result)
        return;
    m_undo = m_model->scenario().costModel;
    m_haveUndo = true;
    const CostModelConstants applied = m_result->constants;
    m_result.reset();
    m_resultLabel->setText(
        m_resultLabel->text() + QLatin1Char('\n') + tr("Applied: every prediction now uses these constants."));
    m_model->setCostModel(applied);
}

void CalibrationBox::undoCalibration()
{
    if (!m_haveUndo)
        return;
    m_haveUndo = false;
    m_resultLabel->setText(tr("Calibration undone: the hardware's own constants are back."));
    m_model->setCostModel(m_undo);
}

QString CalibrationBox::resultText() const
{
    return m_resultLabel->text();
}

QString CalibrationBox::reasonText() const
{
    return m_reason->text();
}

// Not calibrated: the reason in the colour of every refused entry (ReasonLabel), no result beside it.
bool CalibrationBox::refuse(const QString& reason)
{
    m_result.reset();
    m_resultLabel->clear();
    m_reason->showReason(reason);
    updateButtons();
    return false;
}

void CalibrationBox::updateButtons()
{
    m_apply->setEnabled(m_result.has_value());
    m_undoButton->setEnabled(m_haveUndo);
    m_fromThroughput->setEnabled(m_model->scenario().measuredThroughput.has_value());
}

} // namespace mfu::widgets
