#include "widgets/predict/predict_summary.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QVBoxLayout>

#include "core/scenario/ignored_settings.h"
#include "core/scenario/settings.h"
#include "core/units.h"
#include "widgets/charts/category_palette.h"
#include "widgets/number_text.h"
#include "widgets/qt_text.h"

namespace mfu::widgets {

namespace {

QLabel* addMetric(QGridLayout* grid, int column, const QString& caption, const char* name)
{
    auto* title = new QLabel(caption);
    auto* value = new QLabel;
    value->setObjectName(QLatin1String(name));
    value->setAccessibleName(caption);
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont big = value->font();
    big.setPointSizeF(big.pointSizeF() * 1.3);
    big.setBold(true);
    value->setFont(big);
    // A long figure ("77.84% (19.46% of FP4 peak)") wraps rather than widening the panel, which would squeeze the
    // scenario dock beside it until its fields were cut at 1280x720.
    value->setWordWrap(true);
    // Under the figure, where a measurement of it likely lies (the error band); empty for figures it does not scale.
    auto* band = new QLabel;
    band->setObjectName(QLatin1String(name) + QStringLiteral("Band"));
    band->setAccessibleName(QObject::tr("%1, error band").arg(caption));
    band->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Two rows of three, so the panel stays narrow enough for small windows.
    const int row = 3 * (column / 3);
    grid->addWidget(title, row, column % 3);
    grid->addWidget(value, row + 1, column % 3);
    grid->addWidget(band, row + 2, column % 3);
    return value;
}

QLabel* bandLabel(const QLabel* metric)
{
    return metric->parentWidget()->findChild<QLabel*>(metric->objectName() + QStringLiteral("Band"));
}

QLabel* sentence(const char* name)
{
    auto* label = new QLabel;
    label->setObjectName(QLatin1String(name));
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

// The figures of a layout that does not fit are what it would do if it ran: greyed, so they are not read as a
// result.
void setGreyed(QLabel* label, bool greyed)
{
    if (!greyed) {
        label->setPalette(QPalette()); // nothing of its own: it follows the window's palette again
        return;
    }
    QPalette palette; // only the text colour is its own; the rest follows the window's palette
    palette.setColor(QPalette::WindowText, label->palette().color(QPalette::Disabled, QPalette::WindowText));
    label->setPalette(palette);
}

} // namespace

PredictSummary::PredictSummary(QWidget* parent)
    : QWidget(parent)
{
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto* grid = new QGridLayout;
    outer->addLayout(grid);
    m_mfu = addMetric(grid, 0, tr("Predicted MFU"), "predictedMfu");
    m_hfu = addMetric(grid, 1, tr("HFU"), "predictedHfu");
    m_tokens = addMetric(grid, 2, tr("Tokens/s (cluster)"), "tokensPerSec");
    m_tflops = addMetric(grid, 3, tr("TFLOPS per GPU"), "tflopsPerGpu");
    m_stepTime = addMetric(grid, 4, tr("Step time"), "stepTime");
    m_fits = addMetric(grid, 5, tr("Memory per GPU"), "fits");
    m_misfit = sentence("misfitReason");
    m_misfit->setStyleSheet(errorStyleSheet());
    m_misfit->setVisible(false);
    outer->addWidget(m_misfit);
    m_band = sentence("predictedBand");
    m_band->setToolTip(tr("Where a measurement of this configuration likely lies: the 10th to 90th percentile of the "
                          "cost model's error on published runs of the same GPU generation and architecture "
                          "(mfu-explorer validate)"));
    outer->addWidget(m_band);
    m_overPacking = sentence("predictedMfuOverPackingLength");
    m_overPacking->setToolTip(
        tr("PaLM's formula as published counts attention over the whole packed sequence; with "
           "documents masked apart each token attends only within its own document, so that "
           "count inflates FLOP/token and MFU. Predicted MFU above counts attention per document."));
    m_overPacking->setVisible(false);
    outer->addWidget(m_overPacking);
    m_bottleneck = sentence("bottleneck");
    outer->addWidget(m_bottleneck);
    m_ignored = sentence("ignoredSettings");
    m_ignored->setToolTip(tr("Settings this scenario states that the run does not use: the figures above are the "
                             "same with or without them"));
    m_ignored->setVisible(false);
    outer->addWidget(m_ignored);
    m_calibratedRow = new QWidget;
    auto* row = new QHBoxLayout(m_calibratedRow);
    row->setContentsMargins(0, 0, 0, 0);
    m_calibrated = sentence("calibratedPrediction");
    row->addWidget(m_calibrated, 1);
    auto* forget = new QPushButton(tr("Forget calibration"));
    forget->setObjectName(QStringLiteral("forgetCalibration"));
    forget->setToolTip(tr("Drop the trace calibration; the figures above are the model's as validated"));
    connect(forget, &QPushButton::clicked, this, &PredictSummary::forgetCalibration);
    row->addWidget(forget, 0, Qt::AlignTop);
    m_calibratedRow->setVisible(false);
    outer->addWidget(m_calibratedRow);
}

void PredictSummary::showCalibrated(const QString& sentenceText, const QString& details)
{
    m_calibrated->setText(sentenceText);
    m_calibrated->setToolTip(details);
    m_calibratedRow->setVisible(!sentenceText.isEmpty());
}

void PredictSummary::showNoPrediction(const QString& reason)
{
    for (QLabel* l : { m_mfu, m_hfu, m_tokens, m_tflops, m_stepTime, m_fits }) {
        bandLabel(l)->clear();
        l->setText(QStringLiteral("\u2014"));
        setGreyed(l, false);
    }
    m_band->setText(QStringLiteral("\u2014"));
    m_misfit->setVisible(false);
    m_overPacking->setVisible(false);
    m_bottleneck->setText(reason);
    m_bottleneck->setVisible(true);
    m_ignored->setVisible(false);
}

void PredictSummary::showPrediction(const Scenario& s, const StepPrediction& p, const ErrorBand& band)
{
    const QLocale locale;
    for (QLabel* l : { m_mfu, m_hfu, m_tokens, m_tflops, m_stepTime, m_fits })
        bandLabel(l)->clear();
    m_mfu->setText(percentText(p.mfu)
        + (p.mfuVsFp8Peak ? tr(" (%1 of FP8 peak)").arg(percentText(*p.mfuVsFp8Peak)) : QString())
        + (p.mfuVsFp4Peak ? tr(" (%1 of FP4 peak)").arg(percentText(*p.mfuVsFp4Peak)) : QString()));
    m_hfu->setText(percentText(p.hfu));
    m_tokens->setText(locale.toString(p.tokensPerSec, 'f', 0));
    m_tokens->setToolTip(tr("%1 tokens/s per GPU").arg(locale.toString(p.tokensPerSecPerGpu, 'f', 0)));
    // How far to trust the figures: the error of published runs like this one (validation table). Where the run fits
    // each figure carries its own range below it, so this line gives only where the ranges come from (and the per-GPU
    // throughput, which no figure shows); where it does not fit, the figures are greyed and this line has the ranges.
    const QString basis = QString::fromStdString(band.basis);
    if (p.fits) {
        const QString perGpu = s.cluster.gpuCount > 1 ? tr(" (per GPU %1\u2013%2 tokens/s)")
                                                            .arg(locale.toString(band.tokensPerSecPerGpuLow, 'f', 0),
                                                                locale.toString(band.tokensPerSecPerGpuHigh, 'f', 0))
                                                      : QString();
        m_band->setText(tr("Likely ranges%1: the error band from %2").arg(perGpu, basis));
    } else {
        m_band->setText(tr("Likely: MFU %1\u2013%2, %3\u2013%4 tokens/s per GPU (error band from %5)")
                            .arg(percentText(band.mfuLow), percentText(band.mfuHigh),
                                locale.toString(band.tokensPerSecPerGpuLow, 'f', 0),
                                locale.toString(band.tokensPerSecPerGpuHigh, 'f', 0), basis));
    }
    m_tflops->setText(tflopsText(p.tflopsPerGpu * 1e12)); // the one TFLOPS rule (core/number_format.h)
    m_stepTime->setText(tr("%1 s").arg(p.stepTimeSeconds, 0, 'f', 3));
    m_fits->setText((p.fits ? tr("fits: %1 of %2 GiB") : tr("does not fit: %1 of %2 GiB"))
                        .arg(p.memory.total() / kGiB, 0, 'f', 1)
                        .arg(p.memoryCapacityBytes / kGiB, 0, 'f', 1));
    m_fits->setStyleSheet(p.fits ? QString() : errorStyleSheet());
    // The band on each figure it scales, every end as the core computed it (capped where the GPU stops): a faster
    // measured run has a higher MFU and a shorter step.
    if (p.fits) {
        const QString likely = tr("likely %1\u2013%2");
        bandLabel(m_mfu)->setText(likely.arg(percentText(band.mfuLow), percentText(band.mfuHigh)));
        bandLabel(m_hfu)->setText(likely.arg(percentText(band.hfuLow), percentText(band.hfuHigh)));
        bandLabel(m_tokens)->setText(
            likely.arg(locale.toString(band.tokensPerSecLow, 'f', 0), locale.toString(band.tokensPerSecHigh, 'f', 0)));
        bandLabel(m_tflops)->setText(
            likely.arg(tflopsText(band.tflopsPerGpuLow * 1e12), tflopsText(band.tflopsPerGpuHigh * 1e12)));
        bandLabel(m_stepTime)
            ->setText(likely.arg(
                QString::number(band.stepTimeSecondsLow, 'f', 3), tr("%1 s").arg(band.stepTimeSecondsHigh, 0, 'f', 3)));
    }
    for (QLabel* l : { m_mfu, m_hfu, m_tokens, m_tflops, m_stepTime })
        setGreyed(l, !p.fits);
    m_misfit->setVisible(!p.fits);
    m_misfit->setText(p.fits ? QString()
                             : tr("This layout does not fit: it needs %1 GiB per GPU and the GPU has %2 GiB, so the "
                                  "greyed figures are what it would do if it ran, not what it can reach. Shard more "
                                  "(FSDP, TP, PP), checkpoint activations or use a smaller micro-batch; the Planner "
                                  "tab searches for layouts that fit.")
                                   .arg(p.memory.total() / kGiB, 0, 'f', 1)
                                   .arg(p.memoryCapacityBytes / kGiB, 0, 'f', 1));
    m_band->setVisible(p.fits);
    // A layout that does not fit: the sentence above says so with what to change; the core's bottleneck sentence
    // would repeat it.
    const std::string pace = pacingRankSentence(p, s.parallelism.pp);
    m_bottleneck->setText(QString::fromStdString(bottleneckSentence(p) + (pace.empty() ? "" : " " + pace)));
    m_bottleneck->setVisible(p.fits);
    // Named by their fields' labels, with why (the same list `predict` prints with the flags).
    QStringList ignored;
    for (const IgnoredSetting& i : ignoredSettings(s)) {
        const Setting* setting = findSetting(i.key);
        QString label = setting && !setting->label.empty() ? qs(setting->label) : qs(i.flag);
        label.remove(QLatin1Char('&'));
        ignored << tr("%1 (%2)").arg(label, qs(i.why));
    }
    m_ignored->setText(tr("Without effect here: %1.").arg(ignored.join(QStringLiteral("; "))));
    m_ignored->setVisible(!ignored.isEmpty());
    m_overPacking->setVisible(p.mfuPalmOverPackingLength.has_value());
    if (p.mfuPalmOverPackingLength)
        m_overPacking->setText(tr("PaLM as published, attention over the packing length (%1 tokens): %2 MFU, an "
                                  "over-count; per document (above): %3")
                                   .arg(locale.toString(static_cast<qlonglong>(s.workload.seqLen)),
                                       percentText(*p.mfuPalmOverPackingLength), percentText(p.mfu)));
}

} // namespace mfu::widgets
