#include "widgets/scenario/scenario_editor.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/errors.h"
#include "core/model/flops.h"
#include "core/model/hardware_spec.h"
#include "core/model/mfu.h"
#include "core/number_format.h"
#include "core/number_parse.h"
#include "core/presets/hf_config.h"
#include "core/scenario/scenario_facts.h"
#include "core/scenario/settings.h"
#include "widgets/charts/chart_data.h"
#include "widgets/qt_text.h"
#include "widgets/scenario/bounded_spin_box.h"
#include "widgets/scenario/eliding_combo_box.h"
#include "widgets/scenario/entry_reason.h"
#include "widgets/scenario/quantity_spin_box.h"
#include "widgets/scenario/reason_label.h"
#include "widgets/scenario/scenario_model.h"

namespace mfu::widgets {

namespace {

const QString kImportedPrefix = QStringLiteral("imported:");

QSpinBox* countSpin(int minimum, int maximum)
{
    auto* spin = new QuantitySpinBox;
    spin->setMinimumWidth(90);
    spin->setRange(minimum, maximum);
    spin->setGroupSeparatorShown(true);
    spin->setAccelerated(true);
    return spin;
}

// A measured throughput or step time as the field shows one the scenario brought (a trace's tokens over its step
// time): six significant digits, never in E notation ("85986.4", "0.381123"), where twelve had shown
// "85986.4309539", more than the measurement supports.
QString measuredValueText(double value)
{
    const int magnitude = value > 0 ? static_cast<int>(std::floor(std::log10(value))) : 0;
    QString text = QLocale::c().toString(value, 'f', std::clamp(5 - magnitude, 0, 9));
    if (text.contains(QLatin1Char('.'))) { // "21111", not "21111.0"
        while (text.endsWith(QLatin1Char('0')))
            text.chop(1);
        if (text.endsWith(QLatin1Char('.')))
            text.chop(1);
    }
    return text;
}

} // namespace

std::optional<double> parseGroupedNumber(const QString& text)
{
    return parseQuantity(text.toStdString(), NumberText::Lenient); // typed: "21,111", "8 192"
}

ScenarioEditor::ScenarioEditor(ScenarioModel* model, const PresetLibrary& presets, QWidget* parent)
    : QWidget(parent)
    , m_model(model)
    , m_presets(presets)
{
    buildUi();
    connect(m_model, &ScenarioModel::changed, this, &ScenarioEditor::syncFromModel);
    syncFromModel();
}

ScenarioEditor::~ScenarioEditor()
{
    // Fields commit on focus-out, and a field being destroyed loses focus: nothing may reach this half-destroyed
    // editor or the model from here on.
    for (QObject* child : findChildren<QObject*>())
        child->blockSignals(true);
}

void ScenarioEditor::buildUi()
{
    auto* form = new QFormLayout(this);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    // Preset names are long ("NVIDIA GB300 (NVL72)"); let combos shrink so the dock can stay narrow.
    auto shrinkable = [](QComboBox* combo) {
        combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        combo->setMinimumContentsLength(14);
    };
    auto reasonLabel = [this](const char* name, QWidget* field) {
        auto* label = new ReasonLabel(this);
        label->setObjectName(QLatin1String(name));
        label->setField(field);
        return label;
    };

    m_modelCombo = new ElidingComboBox;
    shrinkable(m_modelCombo);
    m_modelCombo->setObjectName(QStringLiteral("model"));
    m_modelCombo->setAccessibleName(tr("Model"));
    for (const ModelSpec& m : m_presets.models()) {
        m_modelCombo->addItem(qs(m.name), qs(m.id));
        m_modelCombo->setItemData(m_modelCombo->count() - 1, qs(m.source), Qt::ToolTipRole);
    }
    m_importButton = new QPushButton(tr("Import config.json..."));
    m_importButton->setObjectName(QStringLiteral("importConfig"));
    m_importButton->setAccessibleName(tr("Import a Hugging Face config.json"));
    form->addRow(tr("&Model:"), m_modelCombo);
    form->addRow(QString(), m_importButton);
    m_modelReason = reasonLabel("modelReason", m_modelCombo);
    form->addRow(QString(), m_modelReason);

    m_hardwareCombo = new ElidingComboBox;
    shrinkable(m_hardwareCombo);
    m_hardwareCombo->setObjectName(QStringLiteral("hardware"));
    m_hardwareCombo->setAccessibleName(tr("GPU"));
    for (const HardwareSpec& h : m_presets.hardware())
        m_hardwareCombo->addItem(qs(h.name), qs(h.id));
    form->addRow(tr("&GPU:"), m_hardwareCombo);

    // A count's row: its spin box (objectName `name`, its reason label `name` + "Reason"), label and unit. A spin box
    // silently refuses 0 or an empty field and puts its last value back when it loses focus; the row says why, next
    // to the field, while the typed text is not a count it accepts.
    struct CountRow {
        const char* name;
        QString accessibleName, label, suffix;
        int minimum, maximum;
        QString reason;
    };
    auto addCountRow = [this, form, &reasonLabel](const CountRow& row) -> QSpinBox* {
        auto* spin = static_cast<QuantitySpinBox*>(countSpin(row.minimum, row.maximum));
        spin->setObjectName(QLatin1String(row.name));
        spin->setAccessibleName(row.accessibleName);
        spin->setSuffix(row.suffix);
        form->addRow(row.label, spin);
        ReasonLabel* label = reasonLabel((std::string(row.name) + "Reason").c_str(), spin);
        form->addRow(QString(), label);
        m_entryReasons << attachEntryReason(
            spin, label, [spin] { return spin->typedValue().has_value(); }, [reason = row.reason] { return reason; });
        return spin;
    };

    m_gpuCount = addCountRow({ "gpuCount", tr("GPU count"), tr("GPU &count:"), QString(), 1, kMaxClusterGpus,
        tr("Enter a whole number of GPUs from 1 to %1 (2k = 2,000); until then the scenario keeps its count.")
            .arg(QString::fromStdString(formatNumber(kMaxClusterGpus))) });

    // The preset's network is the typical one ("depends on the cluster"): the cluster's own is typed here, in
    // fractions too, as --scale-out-gbps takes it: a 100 Gb/s NIC shared by 16 GPUs is 6.25 Gb/s each.
    m_network = new BoundedSpinBox;
    m_network->setObjectName(QStringLiteral("scaleOutGbps"));
    m_network->setAccessibleName(tr("Network per GPU"));
    m_network->setMinimumWidth(90);
    m_network->setDecimals(3);
    m_network->setRange(0, kMaxNetworkGbitPerSec);
    m_network->setGroupSeparatorShown(true);
    m_network->setTrimsTrailingZeros(true);
    m_network->setSuffix(tr(" Gb/s"));
    m_network->setSpecialValueText(tr("none stated"));
    form->addRow(tr("Net&work per GPU:"), m_network);
    ReasonLabel* networkReason = reasonLabel("scaleOutGbpsReason", m_network);
    form->addRow(QString(), networkReason);
    m_entryReasons << attachEntryReason(
        m_network, networkReason, [this] { return m_network->typedAcceptable(); },
        [this] {
            return tr("Enter the network per GPU in Gb/s, %1; until then the scenario keeps its network.")
                .arg(m_network->entryRule());
        });

    m_precisionCombo = new QComboBox;
    shrinkable(m_precisionCombo);
    m_precisionCombo->setObjectName(QStringLiteral("precision"));
    // The precision, sequence length and micro-batch as the settings table declares them (core/scenario/settings.h).
    const Setting& precision = *findSetting("precision");
    m_precisionCombo->setAccessibleName(qs(precision.help));
    for (const SettingChoice& c : precision.choices)
        m_precisionCombo->addItem(qs(c.label), c.value);
    form->addRow(qs(precision.label) + QLatin1Char(':'), m_precisionCombo);
    m_precisionReason = reasonLabel("precisionReason", m_precisionCombo);
    form->addRow(QString(), m_precisionReason);

    m_seqLen = new QLineEdit;
    m_seqLen->setObjectName(QStringLiteral("seqLen"));
    const Setting& seqLen = *findSetting("seq_len");
    m_seqLen->setAccessibleName(qs(seqLen.help));
    m_seqLen->setPlaceholderText(tr("tokens, e.g. 8192 or 32k"));
    form->addRow(qs(seqLen.label) + QLatin1Char(':'), m_seqLen);
    m_seqLenReason = reasonLabel("seqLenReason", m_seqLen);
    form->addRow(QString(), m_seqLenReason);

    // Packed sequences (core/model/packing.h): the documents in each sequence as a mean or a file of lengths, whether
    // attention is masked per document, and the padding kept. Defaults: one document per sequence, no padding.
    m_documentLength = countSpin(0, 100'000'000);
    m_documentLength->setObjectName(QStringLiteral("documentLength"));
    static_cast<QuantitySpinBox*>(m_documentLength)->setCountsTokensInSequence(true); // "2k" documents: 2,048
    m_documentLength->setAccessibleName(tr("Mean document length in a packed sequence, tokens"));
    m_documentLength->setToolTip(tr("Mean length of the documents packed into each sequence (taken as all equal: the "
                                    "lowest attention length that mean allows); 0: one document per sequence"));
    m_documentLength->setSpecialValueText(tr("unpacked")); // short enough for the narrowest dock
    m_documentLength->setSuffix(tr(" tokens"));
    m_documentLength->setKeyboardTracking(false);
    m_documentFile = new QPushButton(tr("Lengths..."));
    m_documentFile->setObjectName(QStringLiteral("documentLengthsFile"));
    m_documentFile->setAccessibleName(tr("Read document lengths from a file"));
    m_documentFile->setToolTip(tr("A JSON array of lengths or [length, count] pairs, an object {length: count}, or "
                                  "one 'length[,count]' per line"));
    auto* documentsRow = new QHBoxLayout;
    documentsRow->setContentsMargins(0, 0, 0, 0);
    documentsRow->addWidget(m_documentLength, 1);
    documentsRow->addWidget(m_documentFile);
    // A label given as text to a row holding a layout gets no buddy (its '&' would show): set it here.
    auto* documentsLabel = new QLabel(tr("D&ocuments:"));
    documentsLabel->setBuddy(m_documentLength);
    form->addRow(documentsLabel, documentsRow);
    m_packingSummary = new QLabel;
    m_packingSummary->setObjectName(QStringLiteral("packingSummary"));
    m_packingSummary->setWordWrap(true);
    m_packingSummary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    form->addRow(QString(), m_packingSummary);

    m_attentionMask = new QComboBox;
    shrinkable(m_attentionMask);
    m_attentionMask->setObjectName(QStringLiteral("attentionMask"));
    m_attentionMask->setAccessibleName(tr("Attention in a packed sequence"));
    m_attentionMask->addItem(tr("per document (varlen)"), static_cast<int>(PackedAttention::PerDocument));
    m_attentionMask->addItem(tr("whole packed sequence"), static_cast<int>(PackedAttention::WholeSequence));
    form->addRow(tr("Attention &mask:"), m_attentionMask);

    m_padding = countSpin(0, 99);
    m_padding->setObjectName(QStringLiteral("paddingPercent"));
    m_padding->setAccessibleName(tr("Padding kept, percent of processed tokens"));
    m_padding->setToolTip(tr("Share of the processed tokens that are padding kept in the batch: MFU counts the "
                             "rest, HFU all of them"));
    m_padding->setSuffix(tr(" %"));
    m_padding->setKeyboardTracking(false);
    form->addRow(tr("Pa&dding kept:"), m_padding);
    // Refused text in the padding and document fields is said as in every count field (attachEntryReason): "150 %"
    // had been put back to 0 without a word. The document field's reason shares the packing's label.
    ReasonLabel* paddingReason = reasonLabel("paddingPercentReason", m_padding);
    form->addRow(QString(), paddingReason);
    auto* padding = static_cast<QuantitySpinBox*>(m_padding);
    m_entryReasons << attachEntryReason(
        padding, paddingReason, [padding] { return padding->typedValue().has_value(); },
        [] { return tr("Enter a whole percent of padding from 0 to 99; until then the scenario keeps its padding."); });
    m_packingReason = reasonLabel("packingReason", m_documentLength);
    form->addRow(QString(), m_packingReason);
    auto* documents = static_cast<QuantitySpinBox*>(m_documentLength);
    m_entryReasons << attachEntryReason(
        documents, m_packingReason, [documents] { return documents->typedValue().has_value(); },
        [] {
            return tr("Enter a mean document length in tokens from 0 (unpacked) to 100,000,000 (2k = 2,048); until "
                      "then the scenario keeps its packing.");
        });

    const Setting& microBatch = *findSetting("micro_batch");
    m_microBatch = addCountRow({ "microBatch", tr("Micro-batch size in sequences per GPU"), tr("M&icro-batch:"),
        tr(" seq/GPU"), static_cast<int>(microBatch.minimum), static_cast<int>(microBatch.maximum),
        tr("Enter %1 sequences per GPU; until then the scenario keeps its value.")
            .arg(QString::fromStdString(settingRangeText(microBatch))) });

    m_gradAccum = addCountRow(
        { "gradAccum", tr("Gradient accumulation steps"), tr("Gradient &accumulation:"), QString(), 1, 1'000'000,
            tr("Enter a whole number of accumulation steps from 1 to 1,000,000; until then the scenario keeps its "
               "value.") });

    m_tokensPerStep = new QLabel;
    m_tokensPerStep->setObjectName(QStringLiteral("tokensPerStep"));
    m_tokensPerStep->setWordWrap(true);
    m_tokensPerStep->setTextInteractionFlags(Qt::TextSelectableByMouse);
    form->addRow(tr("Tokens per step:"), m_tokensPerStep);

    m_throughputMode = new QComboBox;
    shrinkable(m_throughputMode);
    m_throughputMode->setObjectName(QStringLiteral("throughputMode"));
    m_throughputMode->setAccessibleName(tr("How the throughput was measured"));
    m_throughputMode->addItem(tr("tokens/s per GPU"), static_cast<int>(ThroughputInput::TokensPerSecPerGpu));
    m_throughputMode->addItem(tr("tokens/s, whole cluster"), static_cast<int>(ThroughputInput::TokensPerSecCluster));
    m_throughputMode->addItem(tr("step time (s/step)"), static_cast<int>(ThroughputInput::StepTime));
    form->addRow(tr("Measured &as:"), m_throughputMode);
    m_throughputValue = new QLineEdit;
    m_throughputValue->setObjectName(QStringLiteral("throughputValue"));
    m_throughputValue->setAccessibleName(tr("Measured throughput"));
    form->addRow(tr("Measured &value:"), m_throughputValue);
    m_throughputReason = reasonLabel("throughputReason", m_throughputValue);
    form->addRow(QString(), m_throughputReason);

    setTabOrder(m_modelCombo, m_importButton);
    setTabOrder(m_importButton, m_hardwareCombo);
    setTabOrder(m_hardwareCombo, m_gpuCount);
    setTabOrder(m_gpuCount, m_network);
    setTabOrder(m_network, m_precisionCombo);
    setTabOrder(m_precisionCombo, m_seqLen);
    setTabOrder(m_seqLen, m_documentLength);
    setTabOrder(m_documentLength, m_documentFile);
    setTabOrder(m_documentFile, m_attentionMask);
    setTabOrder(m_attentionMask, m_padding);
    setTabOrder(m_padding, m_microBatch);
    setTabOrder(m_microBatch, m_gradAccum);
    setTabOrder(m_gradAccum, m_throughputMode);
    setTabOrder(m_throughputMode, m_throughputValue);

    connect(m_modelCombo, &QComboBox::currentIndexChanged, this, &ScenarioEditor::onModelChosen);
    connect(m_importButton, &QPushButton::clicked, this, &ScenarioEditor::importFromDialog);
    connect(m_hardwareCombo, &QComboBox::currentIndexChanged, this, &ScenarioEditor::onHardwareChosen);
    connect(m_gpuCount, &QSpinBox::valueChanged, m_model, &ScenarioModel::setGpuCount);
    connect(m_network, &QDoubleSpinBox::valueChanged, this, [this](double gbitPerSec) {
        if (gbitPerSec >= 1) // 0 is "none stated": a GPU without a preset network until one is typed
            m_model->setNetworkGbitPerSec(gbitPerSec);
    });
    connect(m_precisionCombo, &QComboBox::currentIndexChanged, this,
        [this] { m_model->setPrecision(static_cast<TrainingPrecision>(m_precisionCombo->currentData().toInt())); });
    connect(m_seqLen, &QLineEdit::textEdited, this, &ScenarioEditor::checkSeqLen);
    connect(m_seqLen, &QLineEdit::editingFinished, this, &ScenarioEditor::commitSeqLen);
    connect(m_documentLength, &QSpinBox::valueChanged, this, [this](int v) {
        SequencePacking p = m_model->scenario().workload.packing;
        p.documents.clear();
        p.meanOnly = false;
        if (v > 0) {
            p.documents = { { v, 1.0 } };
            p.meanOnly = true;
        }
        commitPacking(p);
    });
    connect(m_documentFile, &QPushButton::clicked, this, &ScenarioEditor::loadDocumentLengthsFromDialog);
    connect(m_attentionMask, &QComboBox::currentIndexChanged, this, [this] {
        SequencePacking p = m_model->scenario().workload.packing;
        p.attention = static_cast<PackedAttention>(m_attentionMask->currentData().toInt());
        commitPacking(p);
    });
    connect(m_padding, &QSpinBox::valueChanged, this, [this](int v) {
        SequencePacking p = m_model->scenario().workload.packing;
        p.paddingFraction = v / 100.0;
        commitPacking(p);
    });
    connect(m_microBatch, &QSpinBox::valueChanged, this, [this](int v) { m_model->setMicroBatch(v); });
    connect(m_gradAccum, &QSpinBox::valueChanged, this, [this](int v) { m_model->setGradAccum(v); });
    connect(m_throughputMode, &QComboBox::currentIndexChanged, this, &ScenarioEditor::onThroughputModeChosen);
    connect(m_throughputValue, &QLineEdit::textEdited, this, &ScenarioEditor::checkThroughput);
    connect(m_throughputValue, &QLineEdit::editingFinished, this, &ScenarioEditor::commitThroughput);
}

void ScenarioEditor::onModelChosen(int index)
{
    const QString id = m_modelCombo->itemData(index).toString();
    if (id.startsWith(kImportedPrefix)) {
        m_model->setModel(m_imported.at(id.mid(kImportedPrefix.size()).toULongLong()));
    } else if (const ModelSpec* spec = m_presets.findModel(id.toStdString())) {
        m_model->setModel(*spec);
    }
}

void ScenarioEditor::onHardwareChosen(int index)
{
    const QString id = m_hardwareCombo->itemData(index).toString();
    if (id.startsWith(kImportedPrefix)) {
        const size_t i = id.mid(kImportedPrefix.size()).toULongLong();
        m_model->setHardware(m_importedHardware.at(i), m_importedCostModels.at(i));
    } else if (const HardwareSpec* spec = m_presets.findHardware(id.toStdString()))
        m_model->setHardware(*spec, m_presets.costModelFor(spec->id));
}

std::optional<int64_t> ScenarioEditor::checkSeqLen()
{
    const auto value
        = parseSequenceLength(m_seqLen->text().toStdString(), NumberText::Lenient); // a 32k context: 32,768 tokens
    const Setting& seq = *findSetting("seq_len");
    if (!value || *value != std::floor(*value) || *value < static_cast<double>(seq.minimum)
        || *value > static_cast<double>(seq.maximum)) {
        m_seqLenReason->showReason(
            tr("Enter %1. Until then the scenario keeps %2.")
                .arg(QString::fromStdString(settingRangeText(seq)),
                    QLocale().toString(static_cast<qlonglong>(m_model->scenario().workload.seqLen))));
        return std::nullopt;
    }
    // A packed sequence holds its documents: it cannot be shorter than the longest of them.
    try {
        validatePacking(m_model->scenario().workload.packing, static_cast<int64_t>(*value));
        validateVisionWorkload(m_model->scenario().workload.vision, static_cast<int64_t>(*value));
    } catch (const InputError& e) {
        m_seqLenReason->showReason(
            tr("%1. Shorten the documents or the vision tokens (Predict panel) first; until then the scenario keeps "
               "%2.")
                .arg(QString::fromStdString(e.what()))
                .arg(QLocale().toString(static_cast<qlonglong>(m_model->scenario().workload.seqLen))));
        return std::nullopt;
    }
    m_seqLenReason->showReason({});
    return static_cast<int64_t>(*value);
}

void ScenarioEditor::commitSeqLen()
{
    if (const auto value = checkSeqLen(); value && *value != m_model->scenario().workload.seqLen)
        m_model->setSeqLen(*value);
}

std::optional<double> ScenarioEditor::checkThroughput()
{
    const auto input = static_cast<ThroughputInput>(m_throughputMode->currentData().toInt());
    const QString text = m_throughputValue->text().trimmed();
    if (text.isEmpty()) {
        m_throughputReason->showReason(tr("No measurement: enter one to get TFLOPS and MFU."));
        return 0.0;
    }
    const auto value = parseGroupedNumber(text);
    if (!value || *value <= 0) {
        m_throughputReason->showReason(input == ThroughputInput::StepTime
                ? tr("Enter the step time as a positive number of seconds.")
                : tr("Enter the throughput as a positive number of tokens per second."));
        return std::nullopt;
    }
    // Physically possible: no GPU computes more than its dense peak. The scenario's FLOP/token turns the value into
    // an MFU (core/model/mfu.h); above 100% the value is refused and the largest possible one named.
    const Scenario& s = m_model->scenario();
    const int gpus = std::max(1, s.cluster.gpuCount);
    double perGpu = *value;
    if (input == ThroughputInput::TokensPerSecCluster)
        perGpu = *value / gpus;
    else if (input == ThroughputInput::StepTime)
        perGpu = static_cast<double>(m_model->tokensPerStep()) / *value / gpus;
    try {
        // Counted as the Calculator counts it: attention per packed document, padding left out.
        const auto fpt = countFlopsPerToken(s.model, s.workload.seqLen, s.workload.packing).get(s.mfuFormula);
        if (fpt && *fpt > 0 && perGpu > 0) {
            const MfuResult m = computeMfu(
                *fpt, 0, perGpu, gpus, s.cluster.hardware, s.precision, usefulTokenFraction(s.workload.packing));
            if (m.mfu > 1) {
                const double maxPerGpu = perGpu / m.mfu;
                const QLocale locale;
                const QString limit = input == ThroughputInput::StepTime
                    ? tr("at least %1 s per step").arg(locale.toString(*value * m.mfu, 'g', 4))
                    : input == ThroughputInput::TokensPerSecCluster
                    ? tr("at most %1 tokens/s for the cluster").arg(locale.toString(maxPerGpu * gpus, 'f', 0))
                    : tr("at most %1 tokens/s per GPU").arg(locale.toString(maxPerGpu, 'f', 0));
                m_throughputReason->showReason(
                    tr("Not possible: that is %1% MFU, more than %2 can compute. At 100% of its dense peak this "
                       "model needs %3. The scenario keeps its last value.")
                        .arg(locale.toString(m.mfu * 100, 'g', 3), qs(s.cluster.hardware.name), limit));
                return std::nullopt;
            }
        }
    } catch (const std::exception&) {
        // No FLOP/token or no peak for this scenario: nothing to bound against; the panels say why.
    }
    m_throughputReason->showReason({});
    return *value;
}

void ScenarioEditor::commitThroughput()
{
    const auto input = static_cast<ThroughputInput>(m_throughputMode->currentData().toInt());
    // The field still shows the scenario's figure, rounded: leaving it changes nothing.
    if (input == m_model->throughputInput() && m_model->throughputValue() > 0
        && m_throughputValue->text() == measuredValueText(m_model->throughputValue()))
        return;
    if (const auto value = checkThroughput();
        value && (*value != m_model->throughputValue() || input != m_model->throughputInput()))
        m_model->setThroughput(input, *value);
}

void ScenarioEditor::onThroughputModeChosen()
{
    // The same measurement in the new unit: 21,111 tokens/s per GPU on 8 GPUs becomes 168,888 for the cluster.
    m_model->setThroughputInput(static_cast<ThroughputInput>(m_throughputMode->currentData().toInt()));
}

QString ScenarioEditor::validationReason(const QString& fieldName) const
{
    if (auto* label = findChild<QLabel*>(fieldName + QStringLiteral("Reason")))
        return label->isHidden() ? QString() : label->text();
    return {};
}

void ScenarioEditor::commitPacking(const SequencePacking& candidate)
{
    try {
        validatePacking(candidate, m_model->scenario().workload.seqLen);
    } catch (const InputError& e) {
        m_packingReason->showReason(tr("%1; the scenario keeps its packing.").arg(QString::fromStdString(e.what())));
        syncFromModel(); // the fields show what the scenario holds
        m_packingReason->setVisible(true);
        return;
    }
    m_packingReason->showReason({});
    m_model->setPacking(candidate);
}

bool ScenarioEditor::loadDocumentLengths(const QString& path, QString* error)
{
    SequencePacking p = m_model->scenario().workload.packing;
    try {
        p.documents = documentLengthsFromFile(QFile::encodeName(path).toStdString());
        p.meanOnly = false;
        validatePacking(p, m_model->scenario().workload.seqLen);
    } catch (const InputError& e) {
        *error = QString::fromStdString(e.what());
        return false;
    }
    m_packingReason->showReason({});
    m_model->setPacking(p);
    return true;
}

void ScenarioEditor::loadDocumentLengthsFromDialog()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Read document lengths"), QString(), tr("Document lengths (*.json *.csv *.txt);;All files (*)"));
    if (path.isEmpty())
        return;
    QString error;
    if (loadDocumentLengths(path, &error)) {
        emit statusMessage(tr("Read document lengths from %1").arg(QDir::toNativeSeparators(path)));
    } else {
        m_packingReason->showReason(error);
        emit statusMessage(error);
    }
}

bool ScenarioEditor::importModelConfig(const QString& path, QString* error)
{
    try {
        const ModelSpec spec = modelFromHfConfigFile(QFile::encodeName(path).toStdString());
        m_imported.push_back(spec);
        const QString id = kImportedPrefix + QString::number(m_imported.size() - 1);
        m_modelCombo->addItem(tr("%1 (imported)").arg(qs(spec.name)), id);
        m_modelCombo->setItemData(m_modelCombo->count() - 1, QDir::toNativeSeparators(path), Qt::ToolTipRole);
        m_modelCombo->setCurrentIndex(m_modelCombo->count() - 1); // emits -> model updated
        m_modelReason->showReason({});
        return true;
    } catch (const InputError& e) {
        *error = tr("Cannot import %1 as a Hugging Face config.json: %2")
                     .arg(QDir::toNativeSeparators(path), QString::fromUtf8(e.what()));
        return false;
    }
}

void ScenarioEditor::importFromDialog()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Import a Hugging Face config.json"), QString(), tr("Model config (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    QString error;
    if (importModelConfig(path, &error)) {
        emit statusMessage(tr("Imported %1").arg(m_modelCombo->currentText()));
    } else {
        m_modelReason->showReason(error);
        emit statusMessage(error);
    }
}

void ScenarioEditor::selectModelById(const QString& id)
{
    const int index = m_modelCombo->findData(id);
    if (index >= 0) {
        m_modelCombo->setCurrentIndex(index);
        return;
    }
    // A scenario whose model is not in the list (loaded from a file): add it as imported.
    m_imported.push_back(m_model->scenario().model);
    m_modelCombo->addItem(tr("%1 (imported)").arg(qs(m_model->scenario().model.name)),
        kImportedPrefix + QString::number(m_imported.size() - 1));
    m_modelCombo->setCurrentIndex(m_modelCombo->count() - 1);
}

void ScenarioEditor::syncHardware(const HardwareSpec& hardware)
{
    const QString current = m_hardwareCombo->currentData().toString();
    const bool matches = current.startsWith(kImportedPrefix)
        ? m_importedHardware.at(current.mid(kImportedPrefix.size()).toULongLong()).id == hardware.id
        : current == qs(hardware.id);
    if (matches)
        return;
    const int index = m_hardwareCombo->findData(qs(hardware.id));
    if (index >= 0) {
        m_hardwareCombo->setCurrentIndex(index);
        return;
    }
    // A GPU from a scenario file that the presets do not have: list it so the field tells the truth.
    m_importedHardware.push_back(hardware);
    m_importedCostModels.push_back(m_model->scenario().costModel);
    m_hardwareCombo->addItem(
        tr("%1 (from file)").arg(qs(hardware.name)), kImportedPrefix + QString::number(m_importedHardware.size() - 1));
    m_hardwareCombo->setCurrentIndex(m_hardwareCombo->count() - 1);
}

// Brings the fields in line with the model after any change; signals are blocked so this never writes back.
void ScenarioEditor::syncFromModel()
{
    const Scenario& s = m_model->scenario();
    {
        const QSignalBlocker b1(m_modelCombo), b2(m_hardwareCombo), b3(m_gpuCount), b4(m_precisionCombo),
            b5(m_microBatch), b6(m_gradAccum), b7(m_throughputMode), b8(m_documentLength), b9(m_attentionMask),
            b10(m_padding), b11(m_network);
        const QString currentId = m_modelCombo->currentData().toString();
        const bool currentMatches = currentId.startsWith(kImportedPrefix)
            ? m_imported.at(currentId.mid(kImportedPrefix.size()).toULongLong()).id == s.model.id
            : currentId == qs(s.model.id);
        if (!currentMatches)
            selectModelById(qs(s.model.id));
        syncHardware(s.cluster.hardware);
        m_gpuCount->setValue(s.cluster.gpuCount);
        // "none stated" only for a GPU without a preset network, until one is typed.
        const double network = scaleOutGbitPerSec(s.cluster.hardware);
        m_network->setMinimum(network > 0 ? 1 : 0);
        m_network->setValue(network);
        const std::string source = scaleOutSource(s.cluster.hardware);
        m_network->setToolTip(!source.empty()
                ? qs(source)
                : tr("No network stated for this GPU: a run across several of its scale-up domains needs one"));
        // The 16-bit mode is named as it runs on the GPU: FP16 on one without BF16 (V100), as the Calculator's
        // peak and the trace's operators say.
        const QString sixteen
            = QString::fromStdString(trainingPrecisionLabel(TrainingPrecision::BF16, s.cluster.hardware));
        m_precisionCombo->setItemText(m_precisionCombo->findData(static_cast<int>(TrainingPrecision::BF16)), sixteen);
        m_precisionCombo->setItemText(m_precisionCombo->findData(static_cast<int>(TrainingPrecision::BF16_FP8)),
            tr("%1 + FP8 linear layers").arg(sixteen));
        m_precisionCombo->setItemText(m_precisionCombo->findData(static_cast<int>(TrainingPrecision::BF16_FP4)),
            tr("%1 + FP4 linear layers").arg(sixteen));
        m_precisionCombo->setCurrentIndex(m_precisionCombo->findData(static_cast<int>(s.precision)));
        m_microBatch->setValue(static_cast<int>(s.workload.microBatch));
        m_gradAccum->setValue(static_cast<int>(m_model->gradAccum()));
        m_throughputMode->setCurrentIndex(m_throughputMode->findData(static_cast<int>(m_model->throughputInput())));
        const SequencePacking& packing = s.workload.packing;
        m_documentLength->setValue(packing.packed()
                ? static_cast<int>(std::min<double>(
                    std::llround(meanDocumentLength(packing, s.workload.seqLen)), m_documentLength->maximum()))
                : 0);
        m_attentionMask->setCurrentIndex(m_attentionMask->findData(static_cast<int>(packing.attention)));
        m_padding->setValue(static_cast<int>(std::lround(packing.paddingFraction * 100.0)));
    }
    for (EntryReason* entry : std::as_const(m_entryReasons)) // a new figure ends a refusal said beside it
        entry->fieldSet();
    m_packingReason->setVisible(false);
    const auto seq
        = parseSequenceLength(m_seqLen->text().toStdString(), NumberText::Lenient); // a typed "32k" stays as typed
    if (!seq || *seq != static_cast<double>(s.workload.seqLen))
        m_seqLen->setText(QString::number(s.workload.seqLen));
    const auto tput = parseGroupedNumber(m_throughputValue->text());
    if (m_model->throughputValue() > 0 && (!tput || *tput != m_model->throughputValue())
        && !m_throughputValue->hasFocus())
        m_throughputValue->setText(measuredValueText(m_model->throughputValue()));
    else if (m_model->throughputValue() <= 0 && tput && !m_throughputValue->hasFocus())
        m_throughputValue->clear();
    updateDerivedTexts();
}

void ScenarioEditor::updateDerivedTexts()
{
    const Scenario& s = m_model->scenario();
    const QLocale locale;
    if (const QString layout = m_model->layoutError(); !layout.isEmpty())
        m_tokensPerStep->setText(tr("none: %1").arg(layout));
    else
        m_tokensPerStep->setText(tr("%1\n= %2 seq %6 %3 tokens %6 %4 accum. %6 %5 DP rank(s)")
                                     .arg(locale.toString(static_cast<qlonglong>(m_model->tokensPerStep())))
                                     .arg(s.workload.microBatch)
                                     .arg(locale.toString(static_cast<qlonglong>(s.workload.seqLen)))
                                     .arg(m_model->gradAccum())
                                     .arg(m_model->dataParallelRanks())
                                     .arg(QChar(0x00D7))
            // A stated batch that is not whole micro-steps runs rounded up, as on the command line: say so.
            + (globalBatchRoundingNote(s) ? QStringLiteral("\n") + QString::fromStdString(*globalBatchRoundingNote(s))
                                          : QString()));
    m_throughputValue->setPlaceholderText(
        m_model->throughputInput() == ThroughputInput::StepTime ? tr("seconds per step") : tr("tokens per second"));

    // A packed sequence: how many documents, and the length attention really spans (what the FLOP counts use).
    const SequencePacking& packing = s.workload.packing;
    m_packingSummary->setVisible(packing.packed());
    if (packing.packed()) {
        const double perSequence
            = static_cast<double>(s.workload.seqLen) / std::max(1.0, meanDocumentLength(packing, s.workload.seqLen));
        const QString documents = locale.toString(perSequence, 'f', 1);
        // A mean has no histogram to count: its sentence takes one argument (a second .arg() warns and is lost).
        m_packingSummary->setText(
            (packing.meanOnly
                    ? tr("%1 documents per sequence, all of the mean").arg(documents)
                    : tr("%1 documents per sequence, %2 lengths").arg(documents).arg(packing.documents.size()))
            + tr("; attention %1")
                  .arg(packing.attention == PackedAttention::PerDocument
                          ? tr("over %1 tokens (sum d%2/sum d)")
                                .arg(locale.toString(effectiveAttentionLength(packing, s.workload.seqLen), 'f', 0))
                                .arg(QChar(0x00B2))
                          : tr("over the whole %1 tokens")
                                .arg(locale.toString(static_cast<qlonglong>(s.workload.seqLen)))));
    }

    // FP8 or FP4 linear layers on a GPU without that format's tensor cores.
    const NumberFormat linear = linearLayerFormat(s.precision);
    m_precisionReason->showReason(s.precision != TrainingPrecision::BF16 && !s.cluster.hardware.densePeak(linear)
            ? tr("%1 has no %3 dense peak: MFU is against its %2 peak only.")
                  .arg(qs(s.cluster.hardware.name),
                      QString::fromStdString(trainingPrecisionLabel(TrainingPrecision::BF16, s.cluster.hardware)),
                      QString::fromStdString(std::string(numberFormatLabel(linear))))
            : QString());
    m_modelReason->showReason(
        s.model.isBare() ? tr("Known only by its parameter count: only the 6N formula applies.") : QString());
}

} // namespace mfu::widgets
