#pragma once
// Table contents of the Calculator panel, built from core results only: the FLOP/token formulas side by side and
// the per-component breakdown. Kept apart from the panel so the rows can be read (and tested) without a window.
#include <QString>

#include <optional>

#include "core/model/flops.h"
#include "core/model/layer_type_flops.h"
#include "core/model/mfu.h"
#include "core/model/param_count.h"
#include "core/scenario/scenario.h"

class QStandardItemModel;

namespace mfu::widgets {

// Short name for legends and table rows: "6N", "PaLM", "Per-component", "Per-component, causal".
QString formulaShortName(FlopFormula formula);
// The formula with this scenario's terms substituted, e.g. "6 x (8.030 B - 0.525 B) + 12 x 32 x 32 x 128 x 8,192";
// PaLM's says it over-counts where some layers do not attend over the whole sequence.
QString formulaWithTerms(FlopFormula formula, const ModelSpec& model, const ParameterCounts& params, int64_t seqLen);

// One row per formula: Formula | With this scenario's terms | GFLOP/token | TFLOPS per GPU | MFU. The throughput
// columns are "-" without a measurement (core/scenario/scenario_facts.h computes them). The scenario's MFU formula is
// marked.
void fillFormulaTable(
    QStandardItemModel* table, const Scenario& scenario, const ParameterCounts& params, const FlopsPerToken& flops);

// Component | Forward GFLOP/token | Training GFLOP/token (x3) | Share of the training total.
void fillComponentTable(QStandardItemModel* table, const ForwardComponents& forward);
// The same, followed by a "By layer type" heading and one row per layer type ("16 full-attention layers",
// "48 linear-attention layers", "64 MoE MLPs", "LM head"), with the same columns.
void fillComponentTable(
    QStandardItemModel* table, const ForwardComponents& forward, const std::vector<LayerTypeFlops>& byLayerType);
// For a model whose components are unknown (componentsUnknownReason): one row, the whole model's forward FLOP
// (6N / 3) unsplit, labelled with the reason, instead of a row of zeros.
void fillUnsplitComponentTable(QStandardItemModel* table, const std::string& reason, double sixN);

} // namespace mfu::widgets
