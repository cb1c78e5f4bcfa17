#include "widgets/calculator/calculator_panel.h"
#include "widgets/charts/category_palette.h"
#include "widgets/number_text.h"

#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListView>
#include <QLocale>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

#include <cmath>

#include "core/diagnosis/diagnosis.h"
#include "core/diagnosis/scenario_run.h"
#include "core/errors.h"
#include "core/model/flops.h"
#include "core/model/mfu.h"
#include "core/model/param_count.h"
#include "core/number_format.h"
#include "core/scenario/scenario_facts.h"
#include "core/units.h"
#include "widgets/calculator/calculator_tables.h"
#include "widgets/charts/chart_view.h"
#include "widgets/qt_text.h"
#include "widgets/scenario/scenario_model.h"

namespace mfu::widgets {

namespace {

QString roundedGrouped(double n)
{
    return QLocale().toString(static_cast<qlonglong>(std::llround(n)));
}
QTableView* tableFor(QStandardItemModel* model, const QString& accessibleName)
{
    auto* view = new QTableView;
    view->setModel(model);
    view->setAccessibleName(accessibleName);
    view->verticalHeader()->setVisible(false);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setWordWrap(false);
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    view->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    return view;
}

} // namespace

CalculatorPanel::CalculatorPanel(ScenarioModel* model, const PresetLibrary& presets, QWidget* parent)
    : QWidget(parent)
    , m_model(model)
    , m_presets(presets)
    , m_formulas(new QStandardItemModel(this))
    , m_components(new QStandardItemModel(this))
    , m_findings(new QStandardItemModel(this))
{
    m_error = new QLabel;
    m_error->setObjectName(QStringLiteral("error"));
    m_error->setWordWrap(true);
    m_error->setVisible(false);

    auto* terms = new QGroupBox(tr("Terms"));
    auto* termsForm = new QFormLayout(terms);
    m_params = addValue(termsForm, tr("N, parameters:"), "params");
    m_embedding = addValue(termsForm, tr("N_emb, embedding:"), "embedding");
    m_nonEmbedding = addValue(termsForm, tr("N - N_emb:"), "nonEmbedding");
    m_active = addValue(termsForm, tr("Active per token:"), "active");
    m_visionEncoder = addValue(termsForm, tr("Vision encoder:"), "visionEncoder");
    m_visionEncoder->setToolTip(tr("The vision encoder's parameters, read from the config's vision_config. N and "
                                   "MFU count the language model; the encoder is counted in the labelled figure."));
    termsForm->setRowVisible(m_visionEncoder, false);
    m_termsForm = termsForm;
    m_shape = addValue(termsForm, tr("L layers, H heads, Q head dim:"), "shape");
    m_seqLen = addValue(termsForm, tr("S, sequence:"), "seqLen");

    auto* results = new QGroupBox(tr("Measured run"));
    auto* resultsForm = new QFormLayout(results);
    // The formula MFU is counted in, beside the headline: one setting for the window, saved with the scenario
    // (mfu_formula), as --flop-formula on the command line.
    m_formulaChoice = new QComboBox;
    m_formulaChoice->setObjectName(QStringLiteral("mfuFormula"));
    for (FlopFormula f : kAllFlopFormulas)
        m_formulaChoice->addItem(formulaShortName(f), static_cast<int>(f));
    m_formulaChoice->setToolTip(tr("The FLOP/token formula MFU, HFU and TFLOPS are counted with, everywhere in the "
                                   "window. PaLM per layer (the default) is PaLM's 6(N-N_emb)+12LHQS layer by layer: "
                                   "each layer's attention over the keys it really attends."));
    resultsForm->addRow(tr("MFU &formula:"), m_formulaChoice);
    m_formulaChoice->setAccessibleName(tr("MFU formula"));
    connect(m_formulaChoice, &QComboBox::currentIndexChanged, this, [this](int index) {
        const auto f = static_cast<FlopFormula>(m_formulaChoice->itemData(index).toInt());
        if (f != m_model->scenario().mfuFormula)
            m_model->setMfuFormula(f);
    });
    m_throughput = addValue(resultsForm, tr("Throughput:"), "throughput");
    m_flopsPerToken = addValue(resultsForm, tr("FLOP per token:"), "flopsPerToken");
    m_tflops = addValue(resultsForm, tr("Observed:"), "tflops");
    m_peak = addValue(resultsForm, tr("Dense peak:"), "peak");
    m_mfu = addValue(resultsForm, tr("MFU:"), "mfu");
    QFont big = m_mfu->font();
    big.setPointSizeF(big.pointSizeF() * 1.5);
    big.setBold(true);
    m_mfu->setFont(big);
    // Why an MFU is impossible, under the figure in the ordinary size: the big figure stays short and the sentence
    // wraps within the column.
    m_mfuReason = new QLabel;
    m_mfuReason->setObjectName(QStringLiteral("mfuReason"));
    m_mfuReason->setWordWrap(true);
    m_mfuReason->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_mfuReason->setStyleSheet(errorStyleSheet());
    resultsForm->addRow(QString(), m_mfuReason);
    m_hfu = addValue(resultsForm, tr("HFU:"), "hfu");
    m_mfuOverPacking = addValue(resultsForm, tr("Over packing length:"), "mfuOverPackingLength");
    m_mfuOverPacking->setToolTip(tr("The MFU a count of attention over the whole packed sequence gives (PaLM's formula "
                                    "as published, S = the packing length). With per-document masking each token "
                                    "attends only within its document, so this over-counts."));
    m_mfuWithVision = addValue(resultsForm, tr("MFU with vision encoder:"), "mfuWithVision");
    m_mfuWithVision->setToolTip(tr("MFU counts the language model, as multimodal references report it; this figure "
                                   "adds the vision encoder's FLOPs for the vision tokens of each sequence."));
    m_resultsForm = resultsForm;
    resultsForm->setRowVisible(m_mfuOverPacking, false);
    resultsForm->setRowVisible(m_mfuWithVision, false);
    m_flopsPerToken->setToolTip(tr("Training FLOP per token (forward and backward) by the formula MFU is reported in"));
    m_mfu->setToolTip(tr("Model FLOPs Utilization: the model's FLOP/s (no recomputation) over the GPU's dense peak"));
    m_hfu->setToolTip(tr("Hardware FLOPs Utilization: like MFU, but counting activation recomputation too"));

    auto* top = new QHBoxLayout;
    top->addWidget(terms, 1);
    top->addWidget(results, 1);

    auto* formulaView = tableFor(m_formulas, tr("FLOP per token by formula"));
    formulaView->setObjectName(QStringLiteral("formulaTable"));
    // The terms column takes the width that is left and wraps: a long term ("as a report using PaLM would count
    // it: ...") pushed the whole page sideways and squeezed the diagnosis to a word per line at 1280x720.
    formulaView->setWordWrap(true);
    // The model is refilled on every edit, which resets the header's sections: set the mode on each refill (the
    // header hears of the new columns first, having connected to the model before this).
    connect(m_formulas, &QAbstractItemModel::columnsInserted, formulaView, [formulaView] {
        if (formulaView->horizontalHeader()->count() > 1)
            formulaView->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    });
    formulaView->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    auto* componentView = tableFor(m_components, tr("Forward FLOP per token by component"));
    componentView->setObjectName(QStringLiteral("componentTable"));
    // The component column takes the width that is left and wraps, as the formula table's terms do: DeepSeek-V4's
    // layer types ("30 compressed attention layers (1 key per 4 tokens, top 1,024)") made the table, laid out as
    // wide as its columns, wider than the page at 1280x720, and the whole page scrolled sideways, its Share and MFU
    // columns cut.
    componentView->setWordWrap(true);
    connect(m_components, &QAbstractItemModel::columnsInserted, componentView, [componentView] {
        if (componentView->horizontalHeader()->count() > 1)
            componentView->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    });
    componentView->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    auto* findingsView = new QListView;
    findingsView->setObjectName(QStringLiteral("findings"));
    findingsView->setAccessibleName(tr("Diagnosis findings"));
    findingsView->setModel(m_findings);
    findingsView->setWordWrap(true);
    findingsView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    // As tall as its findings, within reason: under the headline and across the page, so that the sentence that
    // explains a wrong MFU is read before the tables.
    findingsView->setResizeMode(QListView::Adjust);
    findingsView->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    findingsView->setMinimumHeight(3 * findingsView->fontMetrics().lineSpacing());
    findingsView->setMaximumHeight(12 * findingsView->fontMetrics().lineSpacing());
    auto* findingsBox = new QGroupBox(tr("Diagnosis"));
    auto* findingsLayout = new QVBoxLayout(findingsBox);
    findingsLayout->addWidget(findingsView);

    auto* tables = new QHBoxLayout;
    tables->addWidget(componentView);

    m_chart = new ChartView;
    m_chart->setObjectName(QStringLiteral("flopsBySequenceChart"));
    m_chart->setTitle(tr("Training FLOP per token across sequence length"));
    m_chart->setXAxis(tr("Sequence length"), tr("tokens"));
    m_chart->setYAxis(tr("FLOP per token"), tr("GFLOP/token"));
    m_chart->setLogX(true, 2);

    auto* figures = new QWidget;
    auto* figuresLayout = new QVBoxLayout(figures);
    figuresLayout->addWidget(m_error);
    figuresLayout->addLayout(top);
    figuresLayout->addWidget(findingsBox);
    figuresLayout->addWidget(formulaView);
    figuresLayout->addLayout(tables, 1);
    auto* scroll = new QScrollArea;
    scroll->setWidget(figures);
    scroll->setWidgetResizable(true);
    scroll->setAccessibleName(tr("Calculator figures"));
    scroll->setFrameShape(QFrame::NoFrame);

    auto* splitter = new QSplitter(Qt::Vertical);
    splitter->addWidget(scroll);
    splitter->addWidget(m_chart);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);

    connect(m_model, &ScenarioModel::changed, this, &CalculatorPanel::recompute);
    recompute();
}

bool CalculatorPanel::figuresCurrent() const
{
    return true; // recompute() runs on every change, before the change returns
}

QLabel* CalculatorPanel::addValue(QFormLayout* form, const QString& label, const char* objectName)
{
    auto* value = new QLabel;
    value->setObjectName(QLatin1String(objectName));
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    value->setWordWrap(true);
    form->addRow(label, value);
    if (auto* name = qobject_cast<QLabel*>(form->labelForField(value)))
        value->setAccessibleName(name->text().remove(QLatin1Char(':')));
    return value;
}

void CalculatorPanel::recompute()
{
    m_error->clear();
    using Step = void (CalculatorPanel::*)();
    const Step steps[] = { &CalculatorPanel::updateTerms, &CalculatorPanel::updateResults,
        &CalculatorPanel::updateChart, &CalculatorPanel::updateFindings };
    for (Step step : steps) {
        try {
            (this->*step)();
        } catch (const InputError& e) {
            // One bad input (a GPU without a peak, an imported model that fails validation) must not blank the
            // whole panel: each part shows what it can, the reason is shown once on top.
            if (m_error->text().isEmpty())
                m_error->setText(tr("Cannot compute everything: %1").arg(QString::fromUtf8(e.what())));
        }
    }
    m_error->setVisible(!m_error->text().isEmpty());
}

void CalculatorPanel::updateTerms()
{
    const Scenario& s = m_model->scenario();
    const ParameterCounts p = countParameters(s.model);
    const QLocale locale;
    m_params->setText(
        QStringLiteral("%1 (%2 B)").arg(roundedGrouped(p.total), locale.toString(p.total / kGiga, 'f', 2)));
    m_embedding->setText(roundedGrouped(p.embedding));
    m_nonEmbedding->setText(roundedGrouped(p.nonEmbedding));
    m_active->setText(s.model.isMoe() ? roundedGrouped(p.active) : tr("all (dense model)"));
    m_termsForm->setRowVisible(m_visionEncoder, s.model.vision.has_value());
    if (s.model.vision)
        m_visionEncoder->setText(tr("%1 parameters, not in N (%2 blocks, width %3)")
                                     .arg(roundedGrouped(static_cast<double>(visionParameters(*s.model.vision))))
                                     .arg(s.model.vision->depth)
                                     .arg(s.model.vision->hidden));
    m_shape->setText(s.model.isBare()
            ? tr("unknown (bare parameter count)")
            : QStringLiteral("L = %1, H = %2, Q = %3").arg(s.model.layers).arg(s.model.heads).arg(s.model.qkHeadDim()));
    const FlopsPerToken flops = scenarioFlopCounts(s);
    const SequencePacking& packing = s.workload.packing;
    QString seqText = tr("%1 tokens").arg(roundedGrouped(static_cast<double>(s.workload.seqLen)));
    if (packing.packed())
        seqText += packing.attention == PackedAttention::PerDocument
            ? tr(" packed; attention per document over %1 tokens (sum d%2/sum d%3)")
                  .arg(roundedGrouped(std::round(flops.effectiveAttentionLength)), QChar(0x00B2),
                      packing.meanOnly ? tr(", documents of the mean taken as equal") : QString())
            : tr(" packed; attention spans the packed sequence");
    if (packing.padded())
        seqText += tr("; %1 of processed tokens are padding (MFU counts the rest)")
                       .arg(QString::fromStdString(formatPercent(packing.paddingFraction)));
    m_seqLen->setText(seqText);

    fillFormulaTable(m_formulas, s, p, flops);
    if (const auto why = componentsUnknownReason(s.model))
        fillUnsplitComponentTable(m_components, *why, flops.sixN); // never a "Total 0.00" of a split not made
    else
        fillComponentTable(
            m_components, flops.forward, forwardFlopsByLayerType(s.model, s.workload.seqLen, s.workload.packing));
}

void CalculatorPanel::updateResults()
{
    const Scenario& s = m_model->scenario();
    const HardwareSpec& gpu = s.cluster.hardware;
    const auto bf16Peak = gpu.mfuPeak(); // FP16 on a device without BF16 (V100), labelled so
    m_peak->setText(bf16Peak
            ? tr("%1 TFLOPS %2 per GPU (%3)")
                  .arg(tflopsText(*bf16Peak), qs(std::string(numberFormatLabel(gpu.mfuPeakFormat()))), qs(gpu.name))
            : tr("%1 has no BF16 dense peak").arg(qs(gpu.name)));
    const FlopFormula formula = scenarioFlopFormula(s);
    {
        const QSignalBlocker block(m_formulaChoice);
        m_formulaChoice->setCurrentIndex(m_formulaChoice->findData(static_cast<int>(formula)));
        m_formulaChoice->setEnabled(!s.model.isBare()); // a bare parameter count answers 6N only
    }
    const double perToken = scenarioFlopsPerToken(s);
    m_flopsPerToken->setText(
        tr("%1 GFLOP/token (%2)").arg(QLocale().toString(perToken / kGiga, 'f', 1), formulaShortName(formula)));
    // On a vision-language run MFU says what it counts: the language model, as multimodal references report it (the
    // encoder's figure is the labelled row beside it).
    if (auto* mfuLabel = qobject_cast<QLabel*>(m_resultsForm->labelForField(m_mfu)))
        mfuLabel->setText(
            s.model.vision && s.workload.vision.tokensPerSequence > 0 ? tr("MFU, language model only:") : tr("MFU:"));
    if (!s.measuredThroughput) {
        const QString none = tr("no measurement");
        for (QLabel* l : { m_throughput, m_tflops, m_mfu, m_hfu })
            l->setText(none);
        m_resultsForm->setRowVisible(m_mfuOverPacking, false);
        m_resultsForm->setRowVisible(m_mfuWithVision, false);
        m_resultsForm->setRowVisible(m_mfuReason, false);
        m_mfu->setStyleSheet(QString());
        m_hfu->setStyleSheet(QString());
        return;
    }
    const MfuResult r = *scenarioMeasuredMfu(s);
    const double recompute = r.hardwareFlopsPerToken - r.flopsPerToken;
    m_throughput->setText(tr("%1 tokens/s per GPU, %2 tokens/s cluster of %3 %4")
                              .arg(roundedGrouped(r.tokensPerSecPerGpu), roundedGrouped(r.tokensPerSecCluster))
                              .arg(s.cluster.gpuCount)
                              .arg(s.cluster.gpuCount == 1 ? tr("GPU") : tr("GPUs")));
    // Above what the GPU can compute no figure is the run's: not shown, with the reason under it (core's formatting,
    // as calc and the report print it).
    const bool impossible = impossibleMfu(r);
    if (impossible)
        m_tflops->setText(qs(formatMeasuredTflops(r)));
    else
        m_tflops->setText(
            tr("%1 TFLOPS per GPU, %2 PFLOPS cluster")
                .arg(tflopsText(r.achievedFlopsPerGpu), QLocale().toString(r.achievedFlopsCluster / kPeta, 'f', 2)));
    if (impossible) {
        m_mfu->setText(qs(formatMeasuredMfu(r.mfu, r.mfuCeiling)));
    } else if (r.mfuVsFp8Peak && r.fp8PeakFlopsPerGpu) {
        // BF16+FP8: one number would mislead; both readings, labelled (Lambda's MFU paper gives TFLOPS for this
        // reason).
        m_mfu->setText(tr("%1 vs BF16 peak, %2 vs FP8 peak").arg(percentText(r.mfu), percentText(*r.mfuVsFp8Peak)));
        m_peak->setText(tr("%1 TFLOPS BF16, %2 TFLOPS FP8 per GPU (%3)")
                            .arg(tflopsText(r.peakFlopsPerGpu), tflopsText(*r.fp8PeakFlopsPerGpu), qs(gpu.name)));
    } else if (r.mfuVsFp4Peak && r.fp4PeakFlopsPerGpu) {
        m_mfu->setText(tr("%1 vs BF16 peak, %2 vs FP4 peak").arg(percentText(r.mfu), percentText(*r.mfuVsFp4Peak)));
        m_peak->setText(tr("%1 TFLOPS BF16, %2 TFLOPS FP4 per GPU (%3)")
                            .arg(tflopsText(r.peakFlopsPerGpu), tflopsText(*r.fp4PeakFlopsPerGpu), qs(gpu.name)));
    } else {
        m_mfu->setText(percentText(r.mfu));
    }
    // Above 100% no GPU can be: the inputs describe no single run. Said in the error colour, with the reason.
    m_mfuReason->setText(impossible ? tr("Above 100%: no GPU computes above its dense peak, so the measured "
                                         "throughput, the GPU count or the model do not describe one run.")
                                    : QString());
    m_resultsForm->setRowVisible(m_mfuReason, impossible);
    // Documents masked apart: the MFU that counting attention over the packing length would claim, labelled.
    const auto naive = scenarioFlopCounts(s).palmOverPackingLength;
    m_resultsForm->setRowVisible(m_mfuOverPacking, naive.has_value() && !impossible);
    if (naive) {
        const double naiveMfu = mfuAtFlopsPerToken(r, *naive);
        m_mfuOverPacking->setText(tr("%1 MFU if attention is counted over the packed sequence: an over-count%2")
                                      .arg(percentText(naiveMfu), naiveMfu > 1 ? tr(", above 100%") : QString()));
        m_mfuOverPacking->setStyleSheet(naiveMfu > 1 ? errorStyleSheet() : QString());
    }
    const auto withVision = scenarioMfuWithVision(s);
    m_resultsForm->setRowVisible(m_mfuWithVision, withVision.has_value() && !impossible);
    if (withVision)
        m_mfuWithVision->setText(
            tr("%1 MFU including the vision encoder (%2 GFLOP per sequence token for %3 vision "
               "tokens)")
                .arg(percentText(*withVision), QLocale().toString(*scenarioVisionFlopsPerToken(s) / kGiga, 'f', 2),
                    roundedGrouped(static_cast<double>(s.workload.vision.tokensPerSequence))));
    m_mfu->setStyleSheet(impossible ? errorStyleSheet() : QString());
    if (withVision && *withVision > 1) {
        m_mfuWithVision->setText(m_mfuWithVision->text() + tr(": above 100%, impossible"));
        m_mfuWithVision->setStyleSheet(errorStyleSheet());
    } else {
        m_mfuWithVision->setStyleSheet(QString());
    }
    m_hfu->setText(recompute > 0 ? tr("%1 (with %2 GFLOP/token of activation recompute)")
                                       .arg(percentText(r.hfu), QLocale().toString(recompute / kGiga, 'f', 1))
                                 : tr("%1 (no activation recompute: HFU = MFU)").arg(percentText(r.hfu)));
    if (r.hfu > r.mfuCeiling) // the hardware cannot do more than its peak either
        m_hfu->setText(qs(formatMeasuredMfu(r.hfu, r.mfuCeiling)));
    m_hfu->setStyleSheet(r.hfu > r.mfuCeiling ? errorStyleSheet() : QString());
}

void CalculatorPanel::updateChart()
{
    const Scenario& s = m_model->scenario();
    m_chart->clearSeries();
    // Four points per doubling from 1k to 128k (and out to the scenario's S when it lies outside).
    QVector<double> seqs;
    const double lastSeq = std::max<double>(131072, static_cast<double>(s.workload.seqLen));
    const double firstSeq = std::min<double>(1024, static_cast<double>(s.workload.seqLen));
    for (double x = firstSeq; x <= lastSeq * 1.0001; x *= std::pow(2.0, 0.25))
        seqs << std::round(x);
    // One count per length gives every formula at it (a count per formula and length was five times the work).
    std::vector<FlopsPerToken> counts;
    counts.reserve(static_cast<size_t>(seqs.size()));
    for (double seq : seqs)
        counts.push_back(countFlopsPerToken(s.model, static_cast<int64_t>(seq)));
    for (FlopFormula f : kAllFlopFormulas) {
        QVector<double> xs, ys;
        for (qsizetype i = 0; i < seqs.size(); ++i) {
            if (const auto v = counts[static_cast<size_t>(i)].get(f)) {
                xs << seqs[i];
                ys << *v / kGiga;
            }
        }
        if (!xs.isEmpty())
            m_chart->addLine(formulaShortName(f), xs, ys);
    }
    // A packed run sits at the length its attention really spans (sum d^2 / sum d), where the curves give its count.
    const double attentionLength = scenarioFlopCounts(s).effectiveAttentionLength;
    m_chart->addScatter(attentionLength != static_cast<double>(s.workload.seqLen)
            ? tr("This scenario (%1, packed to %2: attention over %3)")
                  .arg(formulaShortName(scenarioFlopFormula(s)), roundedGrouped(static_cast<double>(s.workload.seqLen)),
                      roundedGrouped(std::round(attentionLength)))
            : tr("This scenario (%1, S = %2)")
                  .arg(
                      formulaShortName(scenarioFlopFormula(s)), roundedGrouped(static_cast<double>(s.workload.seqLen))),
        { attentionLength }, { scenarioFlopsPerToken(s) / kGiga });
    m_chart->rescale();
}

void CalculatorPanel::updateFindings()
{
    m_findings->clear();
    const Scenario& s = m_model->scenario();
    // What the imported model's counts leave out (a vision encoder, weights the import does not read), as `calc`
    // prints it: the window showed none of these notes.
    for (const std::string& note : s.model.notes) {
        auto* item = new QStandardItem(tr("[note] %1").arg(qs(note)));
        item->setData(QStringLiteral("model_note"), Qt::UserRole);
        m_findings->appendRow(item);
    }
    const int notes = m_findings->rowCount();
    if (!s.measuredThroughput) {
        m_findings->appendRow(new QStandardItem(tr("Enter a measured throughput to check the run.")));
        return;
    }
    const ReportedRun run = reportedRunFromScenario(s,
        m_model->throughputInput() == ThroughputInput::StepTime ? std::optional(m_model->throughputValue())
                                                                : std::nullopt);
    const Diagnosis diagnosis = diagnose({ run }, m_presets.hardware());
    for (const RunDiagnosis& rd : diagnosis.runs) {
        for (const Finding& f : rd.findings) {
            auto* item = new QStandardItem(QStringLiteral("[%1] %2").arg(qs(f.severity), qs(f.message)));
            item->setToolTip(qs(f.code));
            item->setData(qs(f.code), Qt::UserRole);
            m_findings->appendRow(item);
        }
    }
    if (m_findings->rowCount() == notes)
        m_findings->appendRow(new QStandardItem(tr("No inconsistencies: the figures agree with each other and with the "
                                                   "GPU's dense peak.")));
}

} // namespace mfu::widgets
