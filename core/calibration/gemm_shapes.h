#pragma once
// GEMM efficiency by shape, from a trace (docs/cost-model.md, "Calibration from a trace"). GEMM efficiency depends on
// the product's shape, so a layout that changes the shapes (TP splitting the weights, another micro-batch) cannot
// take one factor measured on other shapes on trust. The trace's matrix products are kept per shape bin (M, N, K,
// precision) with the time they took; a scenario's own linear-layer GEMMs are then looked up among them: each takes
// the measured-over-modelled time ratio of its nearest bin, carried to its own shape by the model's shape law
// (gemmShapeFactor), and the scenario is told whether its GEMMs ran in the trace as they are, lie within the range
// of shapes the trace ran, or go beyond it.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/calibration/shape_match.h"
#include "core/scenario/scenario.h"

namespace mfu {

namespace trace {
struct RunAnalysis;
}

// One GEMM shape of the traced steps: every 2-D matrix product of these dimensions and precision (aten::mm, addmm,
// _scaled_mm, an Inductor GEMM template) that ran on GEMM kernels, per step and rank.
struct GemmShapeBin {
    double m = 0, n = 0, k = 0;
    std::string precision; // trace::GemmPrecision::key(): "bf16", "fp8", "mxfp8", ...
    double callsPerStep = 0;
    double secondsPerStep = 0;
    double flopsPerStep = 0;
    double flopsPerSecond() const { return secondsPerStep > 0 ? flopsPerStep / secondsPerStep : 0.0; }
};

// The dense peak a bin's precision runs against on this GPU (0 when the GPU has none).
double peakOf(const GemmShapeBin& bin, const HardwareSpec& hardware);

// The bins of a run's analysed steps (averaged over its ranks), longest first; empty when the trace recorded no
// shapes. Bins under 0.1% of the GEMMs' time are left out as noise, and at most kMostGemmShapes are kept (a
// scenario's GEMMs are looked up among all of them for each prediction).
inline constexpr size_t kMostGemmShapes = 1024;
std::vector<GemmShapeBin> gemmShapeBinsOf(const trace::RunAnalysis& run);

// One of a scenario's linear-layer GEMMs on one GPU for one micro-batch: a projection's forward pass
// [T, in] x [in, out], its input gradient [T, out] x [out, in] or its weight gradient [out, T] x [T, in], as PyTorch's
// nn.Linear runs them, T the micro-batch's tokens (after sequence-parallel gathers), in and out split by TP.
struct LinearGemm {
    double m = 0, n = 0, k = 0;
    std::string precision; // as GemmShapeBin::precision
    double flops = 0; // of this shape in one micro-batch, every layer
    double modelDim = 0; // the limiting dimension the cost model takes for it (q, k and v: the fused projection's)
    double modelFlops = 0; // the FLOPs the cost model counts for it (k and v: without the heads TP replicates)
    std::string what; // "q_proj forward", "lm_head weight gradient"
};

// The scenario's linear GEMMs, projections as separate matrices (q, k, v; gate, up; down), as TorchTitan and Hugging
// Face models run them. Empty for a model whose GEMMs are not enumerated here: MoE, MLA, recurrent, sparse or
// compressed token mixers, hyper-connections, a vision encoder, a bare parameter count.
std::vector<LinearGemm> linearGemmsOf(const Scenario& s);

// How a scenario's GEMMs stand against a trace's bins (shape_match.h), the traced run being `traced`: a calibration
// scales its matmul term by the scenario's measuredOverModel over the traced run's own (matchGemmShapes(traced,
// traced, bins)). nullopt when the scenario's GEMMs are not enumerated (linearGemmsOf) or the trace has no bins.
std::optional<ShapeMatch> matchGemmShapes(
    const Scenario& s, const Scenario& traced, const std::vector<GemmShapeBin>& bins);

} // namespace mfu
