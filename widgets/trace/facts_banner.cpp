#include "widgets/trace/facts_banner.h"

#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/number_format.h"
#include "widgets/scenario/scenario_model.h"

namespace mfu::widgets {

namespace {

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

QString hardwareName(const HardwareSpec& h)
{
    return q(h.displayName());
}

} // namespace

FactsBanner::FactsBanner(ScenarioModel* scenario, QWidget* parent)
    : QFrame(parent)
    , m_scenario(scenario)
{
    setObjectName(QStringLiteral("factsBanner"));
    setFrameShape(QFrame::StyledPanel);
    // Amber: a warning about the inputs, not an error of the program (STYLE.md's warning colour).
    setStyleSheet(QStringLiteral("#factsBanner { background: rgba(230, 160, 0, 40); border: 1px solid #d08c00; "
                                 "border-radius: 3px; }"));
    m_message = new QLabel;
    m_message->setObjectName(QStringLiteral("factsMessage"));
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_use = new QPushButton;
    m_use->setObjectName(QStringLiteral("useFileFacts"));
    m_use->setAccessibleName(tr("Use the facts the file states in the scenario"));
    m_use->setToolTip(tr("Replace the scenario's GPU, GPU count, sequence length and tokens per step by what the file "
                         "states (one undo step)"));
    connect(m_use, &QPushButton::clicked, this, &FactsBanner::adopt);
    // The button under the sentences, not beside them: its text names everything it adopts (GPU, tokens, sequence,
    // attention, eager or compiled) and beside the message it left the sentences 106 px at 1280x720.
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 4, 8, 4);
    layout->setSpacing(4);
    layout->addWidget(m_message);
    layout->addWidget(m_use, 0, Qt::AlignRight);
    connect(m_scenario, &ScenarioModel::changed, this, &FactsBanner::refresh);
    setVisible(false);
}

void FactsBanner::setKnownHardware(std::vector<HardwareSpec> hardware)
{
    m_known = std::move(hardware);
    refresh();
}

void FactsBanner::setFacts(const FileFacts& facts, const QString& source)
{
    m_facts = facts;
    m_source = source;
    refresh();
}

void FactsBanner::clearFacts()
{
    m_facts.reset();
    refresh();
}

const HardwareSpec* FactsBanner::proposedHardware(const FactsCheck& check) const
{
    if (!check.gpuDiffers || !check.hardwarePresetId)
        return nullptr;
    for (const HardwareSpec& h : m_known)
        if (h.id == *check.hardwarePresetId)
            return &h;
    return nullptr;
}

void FactsBanner::refresh()
{
    if (!m_facts) {
        setVisible(false);
        return;
    }
    const FactsCheck check
        = checkFacts(*m_facts, m_scenario->scenario(), static_cast<double>(m_scenario->tokensPerStep()), m_known);
    if (check.empty() && !check.workMismatch) {
        setVisible(false);
        return;
    }
    QStringList rows;
    for (const FactDifference& d : check.differences)
        rows << tr("%1: <b>%2</b> in %3, %4 in the scenario")
                    .arg(q(factLabel(d.fact)), q(d.inFile).toHtmlEscaped(), m_source, q(d.inScenario).toHtmlEscaped());
    // A trace of another model differs in no fact the button can adopt, but the user is told before reading its
    // figures against this model (the measured MFU is withheld for the same reason).
    if (check.workMismatch)
        rows << tr("Model: %1").arg(q(*check.workMismatch).toHtmlEscaped());
    QString text = tr("The scenario does not describe %1. %2.").arg(m_source, rows.join(QStringLiteral("; ")));
    const HardwareSpec* hardware = proposedHardware(check);
    if (check.gpuDiffers && !hardware)
        text += tr(" No hardware preset matches %1: choose or add its GPU in the scenario.")
                    .arg(q(m_facts->gpuName.value_or("")).toHtmlEscaped());
    if (check.impliedGpuRefused) // why no GPU is offered for the peak the log divided by (core says it)
        text += QLatin1Char(' ') + q(*check.impliedGpuRefused).toHtmlEscaped();
    m_message->setText(text);

    // The button adopts what can be adopted: GPU, count, sequence, tokens per step, a model size the log implies or
    // states (as a bare parameter count, 6N: the log names no architecture), and the precision a trace's operators
    // ran in (a V100 trace's FP16 with its GPU, FP8 linear layers), so the scenario names them as the trace does;
    // the attention kernel the trace ran (cuDNN SDPA, FlashAttention 2), so Predict models that one; eager or
    // compiled, and its weights (FP32 under autocast or 16-bit), so the memory-bound work is the run's.
    const Scenario& s = m_scenario->scenario();
    const bool count = m_facts->gpuCount && *m_facts->gpuCount != s.cluster.gpuCount;
    QStringList parts;
    if (hardware && count)
        parts << tr("%1 x %2").arg(hardwareName(*hardware)).arg(*m_facts->gpuCount);
    else if (hardware)
        parts << hardwareName(*hardware);
    else if (count)
        parts << (*m_facts->gpuCount == 1 ? tr("1 GPU") : tr("%1 GPUs").arg(*m_facts->gpuCount));
    const QLocale locale;
    bool seq = false;
    bool tokens = false;
    for (const FactDifference& d : check.differences) {
        if (d.fact == Fact::SeqLen) {
            seq = true;
            parts << tr("sequence %1").arg(locale.toString(static_cast<qlonglong>(*m_facts->seqLen)));
        } else if (d.fact == Fact::TokensPerStep) {
            tokens = true;
            parts << (m_facts->microBatch && m_facts->seqLen
                    ? tr("%1 tokens per step (micro-batch %2)")
                          .arg(locale.toString(*m_facts->tokensPerStep, 'f', 0))
                          .arg(locale.toString(static_cast<qlonglong>(*m_facts->microBatch)))
                    : tr("%1 tokens per step").arg(locale.toString(*m_facts->tokensPerStep, 'f', 0)));
        } else if (d.fact == Fact::Precision) {
            parts << tr("%1 precision").arg(q(d.inFile));
        } else if (d.fact == Fact::AttentionKernel) {
            parts << tr("%1 attention").arg(q(d.inFile));
        } else if (d.fact == Fact::Compiled) {
            parts << q(d.inFile);
        } else if (d.fact == Fact::Autocast && m_facts->autocast) {
            parts << QString::fromStdString(weightsPhrase(*m_facts->autocast));
        } else if (d.fact == Fact::Throughput) {
            parts << tr("its measured %1").arg(q(d.inFile));
        }
    }
    if (check.proposedModelParams)
        parts << tr("a %1-parameter model (6N)")
                     .arg(QString::fromStdString(formatParameters(*check.proposedModelParams)));
    m_use->setVisible(!parts.isEmpty());
    // A button does not wrap its text: a trace that differs in many facts would make it wider than the panel at
    // 1280x720 (and squeeze every table below), so its list breaks into lines of about 90 characters.
    QString list;
    int line = 0;
    for (qsizetype i = 0; i < parts.size(); ++i) {
        const QString piece = (i == 0 ? QString() : QStringLiteral(", ")) + parts[i];
        if (i > 0 && line + piece.size() > 90) {
            list += QStringLiteral(",\n") + parts[i];
            line = static_cast<int>(parts[i].size());
        } else {
            list += piece;
            line += static_cast<int>(piece.size());
        }
    }
    m_use->setText(tr("Use %1 from %2").arg(list, m_source));
    m_use->setProperty("adoptsHardware", hardware != nullptr);
    m_use->setProperty("adoptsSeqLen", seq);
    m_use->setProperty("adoptsTokens", tokens);
    m_use->setProperty("adoptsModel", check.proposedModelParams.has_value());
    m_use->setProperty("adoptsCompiled",
        std::any_of(check.differences.begin(), check.differences.end(),
            [](const FactDifference& d) { return d.fact == Fact::Compiled; }));
    setVisible(true);
}

void FactsBanner::adopt()
{
    if (!m_facts)
        return;
    const FactsCheck check
        = checkFacts(*m_facts, m_scenario->scenario(), static_cast<double>(m_scenario->tokensPerStep()), m_known);
    std::optional<int64_t> tokens;
    if (m_facts->tokensPerStep)
        tokens = static_cast<int64_t>(std::llround(*m_facts->tokensPerStep));
    std::optional<ModelSpec> model;
    if (check.proposedModelParams)
        model = bareModel(std::llround(*check.proposedModelParams),
            "Model of " + formatParameters(*check.proposedModelParams) + " parameters (from " + m_source.toStdString()
                + ")");
    const auto differs = [&check](Fact fact) {
        return std::any_of(check.differences.begin(), check.differences.end(),
            [fact](const FactDifference& d) { return d.fact == fact; });
    };
    // The micro-batch the trace's lookups were given goes with its sequence and tokens, so the step keeps its
    // micro-steps (8 x 4,096 in one micro-step is not 8 micro-steps of one sequence).
    const bool batchShape = differs(Fact::TokensPerStep) || differs(Fact::SeqLen);
    m_scenario->adoptFileFacts(proposedHardware(check), m_facts->gpuCount, m_facts->seqLen, tokens,
        model ? &*model : nullptr, differs(Fact::Precision) ? m_facts->precision : std::nullopt,
        differs(Fact::AttentionKernel) ? m_facts->attentionKernel : std::nullopt,
        differs(Fact::Compiled) ? m_facts->compiled : std::nullopt, batchShape ? m_facts->microBatch : std::nullopt,
        differs(Fact::Throughput) ? m_facts->tokensPerSecPerGpu : std::nullopt,
        differs(Fact::Autocast) ? m_facts->autocast : std::nullopt);
}

} // namespace mfu::widgets
