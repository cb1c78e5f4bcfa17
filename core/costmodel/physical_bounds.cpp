#include "core/costmodel/physical_bounds.h"

#include "core/number_format.h"

namespace mfu {

namespace {
// Rounding in the step-time sums, not physics.
constexpr double kSlack = 1e-9;
} // namespace

bool isBeyondPhysics(const StepPrediction& p, const Scenario& s)
{
    const double peak = precisionPeakFlops(s.cluster.hardware, s.precision);
    const double ceiling = utilisationCeiling(s.cluster.hardware, s.precision) + kSlack;
    return p.mfu > ceiling || p.hfu > ceiling || (peak > 0 && p.tflopsPerGpu * 1e12 > peak * (1.0 + kSlack));
}

std::optional<std::string> beyondPhysics(const StepPrediction& p, const Scenario& s)
{
    if (!isBeyondPhysics(p, s))
        return std::nullopt;
    const double peak = precisionPeakFlops(s.cluster.hardware, s.precision);
    const double ceiling = utilisationCeiling(s.cluster.hardware, s.precision) + kSlack;
    const bool mfu = p.mfu > ceiling;
    const bool hfu = p.hfu > ceiling;
    const bool tflops = peak > 0 && p.tflopsPerGpu * 1e12 > peak * (1.0 + kSlack);
    const FlopFormula formula = flopFormulaFor(s.model, s.mfuFormula);
    std::string what = mfu ? "MFU " + formatPercent(p.mfu) : hfu ? "HFU " + formatPercent(p.hfu) : std::string();
    if (tflops)
        what += (what.empty() ? "" : " and ") + formatNumber(p.tflopsPerGpu, 0) + " TFLOPS per GPU against a "
            + formatNumber(peak / 1e12, 0) + " TFLOPS dense peak";
    // PaLM on a model with layers that attend less than the sequence: per_layer counts what they do. Otherwise the
    // excess is the causal mask's unexecuted half, which PaLM's convention (and per_layer's) counts.
    const FlopsPerToken counts = countFlopsPerToken(s.model, s.workload.seqLen, s.workload.packing);
    const bool palmOverCounts
        = formula == FlopFormula::PaLM && counts.perLayer && counts.palm && *counts.perLayer < *counts.palm * 0.999;
    return "no prediction: it would be " + what + ", beyond what the GPU can do. The FLOP count it is reported in ("
        + std::string(flopFormulaLabel(formula)) + ", " + formatGflop(p.flopsPerToken) + "/token) "
        + (palmOverCounts ? "charges full attention to layers that attend fewer keys; count with per_layer (the "
                            "default)"
                          : "counts the half of causal attention the kernels skip, which outweighs the rest at this "
                            "sequence length; count with per_component_causal");
}

} // namespace mfu
