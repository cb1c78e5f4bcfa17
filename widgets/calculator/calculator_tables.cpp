#include "widgets/calculator/calculator_tables.h"
#include "widgets/charts/category_palette.h"

#include <QColor>
#include <QFont>

#include <QLocale>
#include <QStandardItemModel>
#include <cmath>

#include "core/errors.h"
#include "core/model/mfu.h"
#include "core/number_format.h"
#include "core/scenario/scenario_facts.h"
#include "core/units.h"
#include "widgets/charts/category_palette.h"
#include "widgets/number_text.h"

namespace mfu::widgets {

namespace {

QString billions(int64_t n)
{
    return QLocale().toString(static_cast<double>(n) / kGiga, 'f', 3) + QStringLiteral(" B");
}
QString grouped(int64_t n)
{
    return QLocale().toString(static_cast<qlonglong>(n));
}
QString gflops(double flop)
{
    return QLocale().toString(flop / kGiga, 'f', 2);
}

QStandardItem* cell(const QString& text, Qt::Alignment align = Qt::AlignRight | Qt::AlignVCenter)
{
    auto* item = new QStandardItem(text);
    item->setEditable(false);
    item->setTextAlignment(align);
    return item;
}

} // namespace

QString formulaShortName(FlopFormula formula)
{
    return QString::fromStdString(std::string(flopFormulaShortName(formula))); // the one list, core/model/flops.h
}

QString formulaWithTerms(FlopFormula formula, const ModelSpec& model, const ParameterCounts& params, double seqLen)
{
    const QString n = billions(model.isMoe() ? params.active : params.total);
    switch (formula) {
    case FlopFormula::SixN:
        return QStringLiteral("6 x %1%2").arg(n, model.isMoe() ? QStringLiteral(" (active)") : QString());
    case FlopFormula::PaLM: {
        // As published, 12 L H Q S charges every layer full attention; say so where some layers have none.
        const int full = localAttentionLayerCount(model, TokenMixer::FullAttention);
        const QString overCount = full < model.layers
            ? QObject::tr(" (as a report using PaLM would count it: over-counts, %1 of %2 layers attend over the whole "
                          "sequence)")
                  .arg(full)
                  .arg(model.layers)
            : QString();
        return QStringLiteral("6 x (%1 - %2) + 12 x %3 x %4 x %5 x %6")
                   .arg(n, billions(params.embedding))
                   .arg(model.layers)
                   .arg(model.heads)
                   .arg(model.qkHeadDim() == model.vHeadDim()
                           ? QString::number(model.qkHeadDim())
                           : QStringLiteral("(%1+%2)/2").arg(model.qkHeadDim()).arg(model.vHeadDim()))
                   .arg(grouped(std::round(seqLen)))
            + overCount;
    }
    case FlopFormula::PerLayer: {
        // PaLM's terms layer by layer: full-attention layers as PaLM, the others over the keys they attend.
        const int full = localAttentionLayerCount(model, TokenMixer::FullAttention);
        if (full == model.layers)
            return QObject::tr("as PaLM: every layer attends the whole sequence");
        return QObject::tr("6 x (%1 - %2) + 12 x H x Q x keys, layer by layer: %3 of %4 layers attend all %5 "
                           "tokens, the others their window, chunk, top-k or compressed keys, or none (state "
                           "updates counted instead)")
            .arg(n, billions(params.embedding))
            .arg(full)
            .arg(model.layers)
            .arg(grouped(std::round(seqLen)));
    }
    case FlopFormula::PerComponent:
        // Each layer's attention over the keys it attends (the whole sequence, or its window, chunk or top-k), not
        // halved: "full S x S" misread DeepSeek-V4's compressed and sparse layers, which it does not charge S x S.
        return QStringLiteral("3 x sum of forward matmuls, attention not halved by the causal mask");
    case FlopFormula::PerComponentCausal:
        return QStringLiteral("3 x sum of forward matmuls, attention halved by the causal mask");
    }
    return {};
}

void fillFormulaTable(
    QStandardItemModel* table, const Scenario& scenario, const ParameterCounts& params, const FlopsPerToken& flops)
{
    table->clear();
    table->setHorizontalHeaderLabels({ QStringLiteral("Formula"), QStringLiteral("With this scenario's terms"),
        QStringLiteral("GFLOP/token"), QStringLiteral("TFLOPS per GPU"), QStringLiteral("MFU") });
    // TFLOPS and MFU of one FLOP/token figure at the measured throughput (core: useful tokens, padding left out).
    const auto measured = [](const auto& compute, QString& tflops, QString& mfu) {
        try {
            const std::optional<MfuResult> r = compute();
            if (!r)
                return false;
            // Past the GPU's peak no TFLOPS figure is the run's either (core's wording, as calc prints it).
            tflops = impossibleMfu(*r) ? QString::fromStdString(formatMeasuredTflops(*r))
                                       : tflopsText(r->achievedFlopsPerGpu);
            mfu = QString::fromStdString(formatMeasuredMfu(r->mfu, r->mfuCeiling));
            return r->mfu > r->mfuCeiling;
        } catch (const InputError&) {
            return false; // the panel shows the reason once, above the tables
        }
    };
    for (FlopFormula f : kAllFlopFormulas) {
        const std::optional<double> perToken = flops.get(f);
        QString tflops = QStringLiteral("-");
        QString mfu = QStringLiteral("-");
        // No GPU computes above its peak: shown in the error colour.
        const bool impossible = measured([&] { return scenarioMeasuredMfuUnder(scenario, f); }, tflops, mfu);
        QString terms = perToken ? formulaWithTerms(f, scenario.model, params, flops.effectiveAttentionLength)
                                 : QStringLiteral("needs the architecture (bare parameter count)");
        if (perToken && flops.palmOverPackingLength && f != FlopFormula::SixN)
            terms += QObject::tr(", attention per packed document");
        QList<QStandardItem*> row { cell(formulaShortName(f), Qt::AlignLeft | Qt::AlignVCenter),
            cell(terms, Qt::AlignLeft | Qt::AlignVCenter), cell(perToken ? gflops(*perToken) : QStringLiteral("-")),
            cell(tflops), cell(mfu) };
        if (impossible) {
            row[3]->setForeground(errorColour());
            row.last()->setForeground(errorColour());
        }
        row[0]->setToolTip(
            QString::fromUtf8(flopFormulaLabel(f).data(), static_cast<qsizetype>(flopFormulaLabel(f).size())));
        if (f == scenario.mfuFormula) {
            // The convention the MFU figures elsewhere in the window are reported in.
            for (auto* item : row) {
                QFont font = item->font();
                font.setBold(true);
                item->setFont(font);
            }
            row[0]->setText(row[0]->text() + QStringLiteral(" (reported)"));
        }
        table->appendRow(row);
    }
    // PaLM as published over the packing length, beside the per-document count: the figure an MFU computed the
    // naive way divides, labelled as the over-count it is.
    if (flops.palmOverPackingLength) {
        QString tflops = QStringLiteral("-");
        QString mfu = QStringLiteral("-");
        const bool impossible = measured([&] { return scenarioMeasuredMfuOverPackingLength(scenario); }, tflops, mfu);
        QList<QStandardItem*> row { cell(QObject::tr("PaLM, S = packing length"), Qt::AlignLeft | Qt::AlignVCenter),
            cell(formulaWithTerms(FlopFormula::PaLM, scenario.model, params, double(scenario.workload.seqLen))
                    + QObject::tr(": over-counts, documents are masked apart"),
                Qt::AlignLeft | Qt::AlignVCenter),
            cell(gflops(*flops.palmOverPackingLength)), cell(tflops), cell(mfu) };
        row[0]->setToolTip(QObject::tr("PaLM's formula as published with S = the packing length. With per-document "
                                       "masking each token attends only within its document, so this over-counts."));
        for (auto* item : row)
            item->setForeground(impossible ? errorColour() : QColor(Qt::gray));
        table->appendRow(row);
    }
}

void fillComponentTable(
    QStandardItemModel* table, const ForwardComponents& forward, const std::vector<LayerTypeFlops>& byLayerType)
{
    fillComponentTable(table, forward);
    if (byLayerType.empty())
        return;
    // The same forward total by layer type (core/model/layer_type_flops.h): one row per token mixer, channel mixer
    // and the LM head, under a heading row.
    const double total = forward.total();
    QList<QStandardItem*> heading { cell(QObject::tr("By layer type"), Qt::AlignLeft | Qt::AlignVCenter), cell({}),
        cell({}), cell({}) };
    QFont bold = heading[0]->font();
    bold.setBold(true);
    heading[0]->setFont(bold);
    table->appendRow(heading);
    for (const LayerTypeFlops& t : byLayerType)
        table->appendRow(
            { cell(QStringLiteral("  ") + QString::fromStdString(t.label), Qt::AlignLeft | Qt::AlignVCenter),
                cell(gflops(t.forward)), cell(gflops(3 * t.forward)),
                cell(total > 0 ? QString::fromStdString(formatPercent(t.forward / total)) : QStringLiteral("-")) });
}

void fillUnsplitComponentTable(QStandardItemModel* table, const std::string& reason, double sixN)
{
    table->clear();
    table->setHorizontalHeaderLabels({ QStringLiteral("Component"), QStringLiteral("Forward GFLOP/token"),
        QStringLiteral("Training GFLOP/token (x3)"), QStringLiteral("Share") });
    table->appendRow({ cell(QStringLiteral("Whole model, not split: ") + QString::fromStdString(reason),
                           Qt::AlignLeft | Qt::AlignVCenter),
        cell(gflops(sixN / 3)), cell(gflops(sixN)), cell(QString::fromStdString(formatPercent(1.0))) });
}

void fillComponentTable(QStandardItemModel* table, const ForwardComponents& forward)
{
    table->clear();
    table->setHorizontalHeaderLabels({ QStringLiteral("Component"), QStringLiteral("Forward GFLOP/token"),
        QStringLiteral("Training GFLOP/token (x3)"), QStringLiteral("Share") });
    const double total = forward.total();
    // On a hybrid model the row also holds the recurrent layers' input projections (Mamba's in_proj, Gated DeltaNet's
    // q/k/v/gates): on Nemotron 3 Nano, 23 Mamba layers against 6 attention ones, "Q/K/V" alone misnamed most of it.
    const QString projections = forward.mixerCore > 0 ? QStringLiteral("Q/K/V and recurrent-layer input projections")
                                                      : QStringLiteral("Q/K/V projections");
    const std::pair<QString, double> parts[] = {
        { projections, forward.qkvProjection },
        { QStringLiteral("Attention scores (Q.K^T)"), forward.attentionScores },
        { QStringLiteral("Attention x V"), forward.attentionValues },
        { QStringLiteral("Output projection"), forward.outputProjection },
        // Hybrid models: linear-attention and Mamba recurrences, and the sparse-attention indexer (formulas.md).
        { QStringLiteral("Linear-attention, Mamba or indexer core"), forward.mixerCore },
        { QStringLiteral("FFN"), forward.ffn },
        { QStringLiteral("Router"), forward.router },
        { QStringLiteral("LM head"), forward.lmHead },
        { QStringLiteral("Total"), total },
    };
    for (const auto& [name, value] : parts) {
        if (value == 0 && name != QLatin1String("Total"))
            continue; // a dense model has no router
        table->appendRow({ cell(name, Qt::AlignLeft | Qt::AlignVCenter), cell(gflops(value)), cell(gflops(3 * value)),
            cell(total > 0 ? QString::fromStdString(formatPercent(value / total)) : QStringLiteral("-")) });
    }
}

} // namespace mfu::widgets
