#include "core/calibration/attention_shapes.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "core/calibration/shape_bins.h"
#include "core/costmodel/attention_kernels.h"
#include "core/costmodel/constants.h"
#include "core/model/model_spec.h"
#include "core/trace/analysis.h"

namespace mfu {

namespace {

// The trace counts a backward pass at 2.5 times its forward's FLOPs (core/trace/op_flops.h).
constexpr double kTraceBackwardFlops = 2.5;

// Query tiles of 128 beyond which a call fills every SM of today's GPUs (132-148) seven times over or more, so that
// its grid no longer changes its efficiency: a judgement, not a measurement. Fewer tiles are a shape of their own.
constexpr double kSaturatingQueryTiles = 1024;

// The pass and the mask: a causal forward is matched to causal forwards only.
std::string kindOf(bool backward, bool causal)
{
    return std::string(backward ? "backward" : "forward") + (causal ? "" : " (no mask)");
}

// A call's grid: 128-query tiles of every head of every sequence, up to where they saturate the GPU.
double queryTiles(double batchHeads, double seqQ)
{
    return std::min(kSaturatingQueryTiles, batchHeads * std::ceil(seqQ / 128.0));
}

// The model's time for an attention pass of this forward work, with this kernel, at the kernel's efficiency for the
// head size and sequence (attention_kernels.h: the backward's efficiency is against twice the forward FLOPs).
double modelledSeconds(const HardwareSpec& hw, const CostModelConstants& c, AttentionKernel requested,
    double forwardFlops, double headDim, double seq, bool backward)
{
    const AcceleratorFamily family = acceleratorFamilyOf(hw);
    const AttentionEfficiency e
        = attentionEfficiency(c, resolveAttentionKernel(requested, family), family, headDim, seq);
    const double peak = hw.mfuPeak().value_or(0.0);
    const double efficiency = backward ? e.backward : e.forward;
    if (e.unfused || !(peak > 0) || !(efficiency > 0))
        return 0.0;
    return (backward ? 2.0 : 1.0) * forwardFlops / (peak * efficiency);
}

// The scenario's attention calls, one forward and one backward per layer of a pipeline stage; empty when its layers
// are not all full softmax attention or its documents are packed.
std::vector<WantedShape> attentionCallsOf(const Scenario& s, const CostModelConstants& c)
{
    const ModelSpec& m = s.model;
    if (m.isBare() || m.mla.enabled || m.compressedAttention.enabled() || s.workload.packing.packed())
        return {};
    const Parallelism& p = s.parallelism;
    const double chunk = static_cast<double>(s.workload.seqLen) / std::max(1, p.cp);
    const double batch = static_cast<double>(s.workload.microBatch);
    std::vector<WantedShape> out;
    for (const LayerRun& run : layerRuns(m)) {
        if (run.kind.tokenMixer != TokenMixer::FullAttention)
            return {};
        const LayerAttention a = m.attentionOf(run.kind);
        const double heads = a.heads / static_cast<double>(std::max(1, p.tp));
        const double qk = static_cast<double>(a.qkHeadDim), v = static_cast<double>(a.vHeadDim);
        // Causal: half the square, on each rank's chunk of the sequence (CP splits the queries).
        const double forward = batch * heads * chunk * chunk * (qk + v) * run.count / std::max(1, p.pp);
        for (const bool backward : { false, true }) {
            const double t
                = modelledSeconds(s.cluster.hardware, c, s.flags.attentionKernel, forward, qk, chunk, backward);
            out.push_back({ { chunk, qk, queryTiles(batch * heads, chunk) }, kindOf(backward, true), t, t,
                std::string("attention ") + (backward ? "backward" : "forward") });
        }
    }
    if (std::any_of(out.begin(), out.end(), [](const WantedShape& w) { return !(w.lawSeconds > 0); }))
        return {};
    return out;
}

} // namespace

double attentionPeakOf(const HardwareSpec& hardware)
{
    return hardware.densePeak(NumberFormat::FP8).value_or(hardware.mfuPeak().value_or(0.0));
}

std::vector<AttentionShapeBin> attentionShapeBinsOf(const trace::RunAnalysis& run)
{
    using Key = std::tuple<double, double, double, double, double, double, bool, bool>;
    std::map<Key, AttentionShapeBin> bins;
    for (const trace::RankAnalysis& r : run.ranks) {
        if (r.steps.empty())
            continue;
        const double steps = static_cast<double>(r.steps.size());
        for (const trace::OpProblem& p : r.opFlops.problems) {
            const trace::AttentionDims& d = p.attention;
            const bool attentionKernel = p.category == trace::KernelCategory::AttentionFwd
                || p.category == trace::KernelCategory::AttentionBwd;
            if (p.kind != trace::OpKind::Attention || !attentionKernel || !d.known() || p.ns <= 0 || !(p.flops > 0))
                continue;
            AttentionShapeBin& b
                = bins[{ d.batch, d.heads, d.seqQ, d.seqK, d.headDimQk, d.headDimV, p.causal, p.backward }];
            b.batch = d.batch;
            b.heads = d.heads;
            b.seqQ = d.seqQ;
            b.seqK = d.seqK;
            b.headDimQk = d.headDimQk;
            b.headDimV = d.headDimV;
            b.causal = p.causal;
            b.backward = p.backward;
            b.callsPerStep += static_cast<double>(p.calls) / steps;
            b.secondsPerStep += static_cast<double>(p.ns) * 1e-9 / steps;
            b.flopsPerStep += p.flops / steps;
        }
    }
    return finishedShapeBins(
        bins, run.ranks.size(), kMostAttentionShapes, [](const AttentionShapeBin& a, const AttentionShapeBin& b) {
            return std::tie(a.seqK, a.headDimQk, a.batch, a.heads, a.backward, a.causal)
                < std::tie(b.seqK, b.headDimQk, b.batch, b.heads, b.backward, b.causal);
        });
}

std::optional<ShapeMatch> matchAttentionShapes(
    const Scenario& s, const Scenario& traced, const std::vector<AttentionShapeBin>& bins)
{
    // The scenario's constants on both sides (what they share with the traced run's cancels); the traced calls with
    // the traced run's kernel, the scenario's with its own, so that a change of kernel stays in the prediction.
    CostModelConstants c = costModelConstantsFor(s);
    const bool alone = runsAsLoneGpu(s, c);
    if (alone)
        c = loneGpuConstants(c);
    const std::vector<WantedShape> calls = attentionCallsOf(s, c);
    if (calls.empty() || bins.empty())
        return std::nullopt;
    const double clock = tracedClock(alone, traced);
    std::vector<MeasuredShape> measured;
    for (const AttentionShapeBin& b : bins) {
        const double forward = b.backward ? b.flopsPerStep / kTraceBackwardFlops : b.flopsPerStep;
        measured.push_back({ { b.seqK, b.headDimQk, queryTiles(b.batch * b.heads, b.seqQ) },
            kindOf(b.backward, b.causal), b.secondsPerStep,
            clock
                * modelledSeconds(
                    s.cluster.hardware, c, traced.flags.attentionKernel, forward, b.headDimQk, b.seqK, b.backward) });
    }
    return matchShapes(measured, calls, { { "sequence", "head dimension", "query tiles of 128" }, "attention passes" });
}

} // namespace mfu
