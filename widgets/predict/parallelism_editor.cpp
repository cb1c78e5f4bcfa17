#include "widgets/predict/parallelism_editor.h"

#include <QAbstractSpinBox>
#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QFormLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QSignalBlocker>
#include <QSpinBox>

#include <algorithm>
#include <climits>
#include <cmath>
#include <exception>

#include "core/costmodel/cost_model.h"
#include "core/errors.h"
#include "core/presets/hf_vision.h"
#include "core/scenario/parallelism_keys.h"
#include "core/scenario/pipeline_layout.h"
#include "core/scenario/scenario_facts.h"
#include "core/scenario/settings.h"
#include "widgets/qt_text.h"
#include "widgets/scenario/entry_reason.h"
#include "widgets/scenario/quantity_spin_box.h"
#include "widgets/scenario/reason_label.h"
#include "widgets/scenario/scenario_model.h"

namespace mfu::widgets {

namespace {
const QString kGlobalBatch = QStringLiteral("globalBatchTokens");
const QString kDocumentLength = QStringLiteral("documentLength");
const QString kAttentionMask = QStringLiteral("attentionMask");
const QString kPadding = QStringLiteral("paddingPercent");
const QString kVisionTokens = QStringLiteral("visionTokens");
const QString kMtpLayers = QStringLiteral("mtpLayers");

int clampToInt(int64_t v)
{
    return static_cast<int>(std::clamp<int64_t>(v, 0, INT_MAX));
}
} // namespace

QString scenarioProblem(const Scenario& scenario)
{
    try {
        const CostModel model(scenario);
        if (const auto reason = model.invalidReasonText(scenario))
            return QString::fromStdString(*reason);
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

QString problemIntroduced(const Scenario& before, const Scenario& after)
{
    QString problem = scenarioProblem(after);
    return problem.isEmpty() || !scenarioProblem(before).isEmpty() ? QString() : problem;
}

ParallelismEditor::ParallelismEditor(ScenarioModel* model, QWidget* parent)
    : QWidget(parent)
    , m_model(model)
{
    buildUi();
    connect(m_model, &ScenarioModel::changed, this, &ParallelismEditor::syncFromModel);
    syncFromModel();
}

void ParallelismEditor::buildUi()
{
    auto* form = new QFormLayout(this);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

    // Every Predict setting of the table (core/scenario/settings.h), in its order, and beside them the fields that
    // edit something other than one setting: the embedding and loss stages together, the packing and vision inputs.
    for (const Setting& setting : scenarioSettings()) {
        if (setting.editor != SettingEditor::Predict || setting.field.empty())
            continue;
        addSetting(form, setting);
        if (setting.field == "lastStageLayers")
            addEmbeddingAndLossStages(form);
        if (setting.field == "globalBatchTokens")
            addPackingAndVision(form);
    }
    // In tokens, always: the batch as given, or (none given) the one micro-step each data-parallel rank runs, so the
    // field never reads "1" for "one micro-batch per rank" and then 32,768 after another edit.
    m_fields[kGlobalBatch].read = [](const Scenario& s) {
        return clampToInt(s.workload.globalBatchTokens > 0 ? s.workload.globalBatchTokens : processedTokensPerStep(s));
    };

    for (int i = 1; i < m_order.size(); ++i)
        setTabOrder(m_fields[m_order[i - 1]].widget, m_fields[m_order[i]].widget);
}

void ParallelismEditor::addSetting(QFormLayout* form, const Setting& setting)
{
    const std::string name(setting.field);
    const QString label = qs(setting.label);
    const QString help = qs(setting.help);
    const Setting* s = &setting; // the table outlives the editor
    const Read read = [s](const Scenario& scenario) { return clampToInt(s->get(scenario)); };
    const Write write = [s](Scenario& scenario, int v) { s->set(scenario, v); };
    switch (setting.kind) {
    case SettingKind::Count: {
        addSpin(form, name.c_str(), label + QLatin1Char(':'), help, clampToInt(setting.minimum),
            clampToInt(setting.maximum), read, write);
        auto* spin = static_cast<QSpinBox*>(m_fields[QString::fromStdString(name)].widget);
        if (!setting.zeroText.empty())
            spin->setSpecialValueText(qs(setting.zeroText));
        if (!setting.suffix.empty())
            spin->setSuffix(qs(setting.suffix));
        return;
    }
    case SettingKind::Switch:
        if (setting.choices.size() == 2) {
            addCombo(form, name.c_str(), label + QLatin1Char(':'), help,
                { { qs(setting.choices[0].label), 0 }, { qs(setting.choices[1].label), 1 } }, read, write);
            return;
        }
        addCheck(form, name.c_str(), label, help, read, write);
        return;
    case SettingKind::Choice: {
        std::vector<std::pair<QString, int>> items;
        for (const SettingChoice& c : setting.choices)
            items.emplace_back(qs(c.label), c.value);
        addCombo(form, name.c_str(), label + QLatin1Char(':'), help, items, read, write);
        return;
    }
    case SettingKind::Text:
        addText(
            form, name.c_str(), label + QLatin1Char(':'), help, qs(setting.zeroText),
            [s](const Scenario& scenario) { return QString::fromStdString(s->getText(scenario)); },
            [s](Scenario& scenario, const QString& value) { s->setText(scenario, value.toStdString()); });
        return;
    case SettingKind::Number:
        // A real number (a share, a factor) typed as text and read by the table's own parser and bounds, so the
        // field takes what the flag takes ("0.5", "5e-1") and refuses what it refuses, in the same words. An empty
        // field is the setting's default, shown by its zero text ("none", "dropless").
        addText(
            form, name.c_str(), label + QLatin1Char(':'), help, qs(setting.zeroText),
            [s](const Scenario& scenario) {
                return isSettingDefault(*s, scenario) && !s->zeroText.empty()
                    ? QString()
                    : QString::fromStdString(settingValueText(*s, scenario));
            },
            [s](Scenario& scenario, const QString& value) {
                if (value.trimmed().isEmpty())
                    s->setNumber(scenario, s->getNumber(Scenario {}));
                else
                    applySettingText(*s, value.trimmed().toStdString(), scenario);
            });
        return;
    }
}

void ParallelismEditor::addEmbeddingAndLossStages(QFormLayout* form)
{
    addCheck(
        form, "embeddingLossStages", tr("Embedding and loss in the split"),
        tr("Count the embedding and the LM head with the loss as a layer of the first and last pipeline stages"),
        [](const Scenario& s) { return int(s.parallelism.embeddingStage && s.parallelism.lossStage); },
        [](Scenario& s, int v) { s.parallelism.embeddingStage = s.parallelism.lossStage = v != 0; });
}

void ParallelismEditor::addPackingAndVision(QFormLayout* form)
{
    // Packing: documents per sequence as a mean (a histogram comes from a scenario file or `--doc-lengths`), the
    // attention mask, the padding kept.
    addSpin(
        form, "documentLength", tr("&Documents:"),
        tr("Mean document length in a packed sequence, tokens; 0: one document per sequence"), 0, INT_MAX,
        [](const Scenario& s) {
            return s.workload.packing.packed()
                ? clampToInt(std::llround(meanDocumentLength(s.workload.packing, s.workload.seqLen)))
                : 0;
        },
        [](Scenario& s, int v) {
            s.workload.packing.documents.clear();
            s.workload.packing.meanOnly = false;
            if (v > 0) {
                s.workload.packing.documents = { { v, 1.0 } };
                s.workload.packing.meanOnly = true;
            }
        });
    if (auto* documents = qobject_cast<QuantitySpinBox*>(m_fields[kDocumentLength].widget)) {
        documents->setSuffix(tr(" tokens"));
        documents->setSpecialValueText(tr("unpacked"));
        documents->setCountsTokensInSequence(true); // "2k" documents: 2,048 tokens, as with the sequence length
    }
    addCombo(
        form, "attentionMask", tr("Attention &mask:"),
        tr("Attention in a packed sequence: per document (varlen, document masking) or over the whole packed sequence"),
        { { tr("Per document"), int(PackedAttention::PerDocument) },
            { tr("Whole sequence"), int(PackedAttention::WholeSequence) } },
        [](const Scenario& s) { return int(s.workload.packing.attention); },
        [](Scenario& s, int v) { s.workload.packing.attention = static_cast<PackedAttention>(v); });
    addSpin(
        form, "paddingPercent", tr("Pa&dding kept:"), tr("Share of processed tokens that are padding, percent"), 0, 99,
        [](const Scenario& s) { return int(std::lround(s.workload.packing.paddingFraction * 100.0)); },
        [](Scenario& s, int v) { s.workload.packing.paddingFraction = v / 100.0; });
    if (auto* padding = qobject_cast<QSpinBox*>(m_fields[kPadding].widget))
        padding->setSuffix(tr(" %"));
    addSpin(
        form, "visionTokens", tr("&Vision tokens:"),
        tr("Vision tokens per sequence (a vision-language model; its encoder is counted beside MFU)"), 0, INT_MAX,
        [](const Scenario& s) { return clampToInt(s.workload.vision.tokensPerSequence); },
        [](Scenario& s, int v) { s.workload.vision.tokensPerSequence = v; });
    if (auto* vision = qobject_cast<QSpinBox*>(m_fields[kVisionTokens].widget)) {
        vision->setSuffix(tr(" per sequence"));
        vision->setSpecialValueText(tr("none (text)"));
    }
}

ParallelismEditor::Field& ParallelismEditor::addField(
    QFormLayout* form, const char* name, const QString& label, QWidget* widget, Read read, Write write)
{
    const QString key = QLatin1String(name);
    widget->setObjectName(key);
    auto* reason = new ReasonLabel;
    reason->setObjectName(key + QStringLiteral("Reason"));
    reason->setField(widget);
    // Spin boxes and combo boxes may shrink to their minimum (Qt's default makes a spin box's size hint its minimum,
    // and a spin box of a large range would set the editor's width).
    if (qobject_cast<QAbstractSpinBox*>(widget) || qobject_cast<QComboBox*>(widget)) {
        widget->setSizePolicy(QSizePolicy::Preferred, widget->sizePolicy().verticalPolicy());
        // The wheel scrolls the column until the field is clicked or tabbed into (eventFilter): a user scrolling
        // down the list must not turn every field the pointer passes over.
        widget->setFocusPolicy(Qt::StrongFocus);
        widget->installEventFilter(this);
    }
    // A check box is its own label: it spans the row, so the editor stays narrow enough for a 1280-pixel window.
    if (label.isEmpty() && qobject_cast<QCheckBox*>(widget))
        form->addRow(widget);
    else
        form->addRow(label, widget);
    form->addRow(QString(), reason);
    m_order << key;
    Field& f = m_fields[key];
    f = { widget, reason, nullptr, std::move(read), std::move(write), {}, {} };
    return f;
}

void ParallelismEditor::addSpin(QFormLayout* form, const char* name, const QString& label, const QString& accessible,
    int min, int max, Read read, Write write)
{
    auto* spin = new QuantitySpinBox; // takes "1M" tokens, "2k" GPUs; keeps every typed character
    spin->setRange(min, max);
    spin->setAccessibleName(accessible);
    spin->setToolTip(accessible); // the label is an abbreviation (TP, CP, EP, HSDP): spelled out on hover
    spin->setKeyboardTracking(false); // typed numbers apply on Enter; arrows and the wheel apply at every step
    spin->setGroupSeparatorShown(max > 100'000);
    addField(form, name, label, spin, std::move(read), std::move(write));
    const QString key = QLatin1String(name);
    connect(spin, &QSpinBox::valueChanged, this, [this, key](int v) { edit(key, v); });
    // Text the field cannot take ("150" in the 0-99 % padding field, "abc") is refused aloud by the rule every
    // editor follows (attachEntryReason): Qt would put the last value back on Enter without a word.
    m_fields[key].entry = attachEntryReason(
        spin, m_fields[key].reason, [spin] { return spin->typedValue().has_value(); },
        [this, spin] { return rangeRule(spin); });
    spin->installEventFilter(this);
    spin->findChild<QLineEdit*>()->installEventFilter(this); // whichever of the two the key reaches
}

QString ParallelismEditor::rangeRule(const QuantitySpinBox* spin) const
{
    const QLocale locale = spin->locale();
    const auto shown = [&](int n) { return locale.toString(n) + spin->suffix(); };
    return tr("Enter a whole number from %1 to %2; until then the scenario keeps %3.")
        .arg(shown(spin->minimum()), shown(spin->maximum()), shown(spin->value()));
}

bool ParallelismEditor::eventFilter(QObject* watched, QEvent* event)
{
    // A wheel over a field without focus goes to the column's scroll area (through this editor, which passes it up).
    if (event->type() == QEvent::Wheel)
        if (auto* w = qobject_cast<QWidget*>(watched);
            w && !w->hasFocus() && (qobject_cast<QAbstractSpinBox*>(w) || qobject_cast<QComboBox*>(w))) {
            QCoreApplication::sendEvent(this, event);
            return true;
        }
    // Escape gives up the edit: the field shows the scenario's value again and its reason goes.
    if (event->type() == QEvent::KeyPress && static_cast<QKeyEvent*>(event)->key() == Qt::Key_Escape)
        for (auto it = m_fields.begin(); it != m_fields.end(); ++it)
            if (auto* w = qobject_cast<QWidget*>(watched); w && (it->widget == w || it->widget->isAncestorOf(w))) {
                restore(it.value());
                return true;
            }
    return QWidget::eventFilter(watched, event);
}

void ParallelismEditor::restore(Field& field)
{
    const Scenario& s = m_model->scenario();
    const QSignalBlocker block(field.widget);
    if (auto* edit = qobject_cast<QLineEdit*>(field.widget))
        edit->setText(field.readText(s));
    else if (auto* spin = qobject_cast<QSpinBox*>(field.widget))
        spin->setValue(field.read(s));
    else if (auto* combo = qobject_cast<QComboBox*>(field.widget))
        combo->setCurrentIndex(combo->findData(field.read(s)));
    else if (auto* check = qobject_cast<QCheckBox*>(field.widget))
        check->setChecked(field.read(s) != 0);
    if (field.entry)
        field.entry->clear();
    field.reason->showReason({});
}

void ParallelismEditor::addCombo(QFormLayout* form, const char* name, const QString& label, const QString& accessible,
    const std::vector<std::pair<QString, int>>& items, Read read, Write write)
{
    auto* combo = new QComboBox;
    // Sized to a short item, not the longest: the editor column must fit 1280x720; items are named to fit it whole.
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(10);
    combo->setAccessibleName(accessible);
    combo->setToolTip(accessible);
    for (const auto& [text, value] : items)
        combo->addItem(text, value);
    addField(form, name, label, combo, std::move(read), std::move(write));
    const QString key = QLatin1String(name);
    connect(
        combo, &QComboBox::currentIndexChanged, this, [this, key, combo] { edit(key, combo->currentData().toInt()); });
}

void ParallelismEditor::addCheck(
    QFormLayout* form, const char* name, const QString& text, const QString& accessible, Read read, Write write)
{
    auto* check = new QCheckBox(text);
    check->setAccessibleName(accessible);
    addField(form, name, QString(), check, std::move(read), std::move(write));
    const QString key = QLatin1String(name);
    connect(check, &QCheckBox::toggled, this, [this, key](bool on) { edit(key, on ? 1 : 0); });
}

void ParallelismEditor::addText(QFormLayout* form, const char* name, const QString& label, const QString& accessible,
    const QString& placeholder, ReadText read, WriteText write)
{
    auto* edit = new QLineEdit;
    edit->setAccessibleName(accessible);
    edit->setToolTip(accessible);
    edit->setPlaceholderText(placeholder);
    Field& f = addField(form, name, label, edit, {}, {});
    f.readText = std::move(read);
    f.writeText = std::move(write);
    const QString key = QLatin1String(name);
    // Applied on Enter or focus-out, as the other fields.
    connect(edit, &QLineEdit::editingFinished, this, [this, key, edit] { editText(key, edit->text()); });
    edit->installEventFilter(this);
}

void ParallelismEditor::editText(const QString& name, const QString& text)
{
    Field& field = m_fields[name];
    Scenario candidate = m_model->scenario();
    QString problem;
    try {
        field.writeText(candidate, text);
    } catch (const InputError& e) {
        problem = QString::fromStdString(e.what());
    }
    if (problem.isEmpty())
        problem = problemIntroduced(m_model->scenario(), candidate);
    field.reason->showReason(problem);
    if (!problem.isEmpty())
        return;
    m_model->setConfiguration(
        candidate.parallelism, candidate.activationCheckpointing, candidate.flags, candidate.workload.microBatch);
}

QString ParallelismEditor::validationReason(const QString& fieldName) const
{
    const auto it = m_fields.constFind(fieldName);
    return it == m_fields.constEnd() ? QString() : it->reason->text();
}

void ParallelismEditor::edit(const QString& name, int value)
{
    Field& field = m_fields[name];
    Scenario candidate = m_model->scenario();
    field.write(candidate, value);
    QString problem = problemIntroduced(m_model->scenario(), candidate);
    if (problem.isEmpty() && name == kGlobalBatch && value != 0) { // 0: one micro-step
        const int64_t perMicroStep = tokensPerMicroStep(candidate);
        if (value < perMicroStep || value % perMicroStep != 0)
            problem = tr("must be a whole number of micro-steps of %L1 tokens (micro-batch x sequence x %2 "
                         "data-parallel ranks)")
                          .arg(perMicroStep)
                          .arg(dataParallelRanks(candidate));
    }
    const bool packing = name == kDocumentLength || name == kAttentionMask || name == kPadding;
    if (problem.isEmpty() && packing) {
        try {
            validatePacking(candidate.workload.packing, candidate.workload.seqLen);
        } catch (const InputError& e) {
            problem = QString::fromStdString(e.what());
        }
    }
    if (problem.isEmpty() && name == kVisionTokens && value > 0) {
        if (!candidate.model.vision)
            problem = tr("%1 has no vision encoder this application counts (%2 configs have one)")
                          .arg(QString::fromStdString(candidate.model.name),
                              QString::fromStdString(visionEncoderFamilies()));
        else
            try {
                validateVisionWorkload(candidate.workload.vision, candidate.workload.seqLen);
            } catch (const InputError& e) {
                problem = QString::fromStdString(e.what());
            }
    }
    field.reason->showReason(problem);
    if (!problem.isEmpty())
        return;
    if (name == kVisionTokens) {
        m_model->setVision(candidate.workload.vision);
        return;
    }
    if (packing) {
        m_model->setPacking(candidate.workload.packing);
        return;
    }
    if (name == kGlobalBatch) {
        m_model->setGlobalBatchTokens(value);
        return;
    }
    if (name == kMtpLayers) {
        m_model->setMtpLayers(value);
        return;
    }
    m_model->setConfiguration(
        candidate.parallelism, candidate.activationCheckpointing, candidate.flags, candidate.workload.microBatch);
}

void ParallelismEditor::syncFromModel()
{
    const Scenario& s = m_model->scenario();
    for (auto it = m_fields.begin(); it != m_fields.end(); ++it) {
        Field& f = it.value();
        const QSignalBlocker block(f.widget);
        if (auto* edit = qobject_cast<QLineEdit*>(f.widget)) {
            if (!edit->hasFocus())
                edit->setText(f.readText(s));
            f.reason->showReason({});
            continue;
        }
        const int v = f.read(s);
        if (auto* spin = qobject_cast<QSpinBox*>(f.widget))
            spin->setValue(v);
        else if (auto* combo = qobject_cast<QComboBox*>(f.widget))
            combo->setCurrentIndex(combo->findData(v));
        else if (auto* check = qobject_cast<QCheckBox*>(f.widget))
            check->setChecked(v != 0);
        if (f.entry)
            f.entry->clear();
        f.reason->showReason({});
    }
    // The global batch moves in whole micro-steps.
    int64_t perMicroStep = 1;
    try {
        perMicroStep = tokensPerMicroStep(s);
    } catch (const InputError&) {
        perMicroStep = 1; // the layout error is shown by scenarioProblem() beside the degrees
    }
    static_cast<QSpinBox*>(m_fields[kGlobalBatch].widget)->setSingleStep(clampToInt(perMicroStep));
    m_fields[kGlobalBatch].widget->setToolTip(
        tr("Steps of %L1 tokens: one micro-batch on every data-parallel rank").arg(perMicroStep));
}

} // namespace mfu::widgets
