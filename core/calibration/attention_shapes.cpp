#include "core/calibration/attention_shapes.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "core/costmodel/attention_kernels.h"
#include "core/costmodel/constants.h"
#include "core/model/model_spec.h"
#include "core/trace/analysis.h"

namespace mfu {

namespace {

// A bin under this share of the attention time is noise: left out.
constexpr double kMinBinShare = 0.001;
// The trace counts a backward pass at 2.5 times its forward's FLOPs (core/trace/op_flops.h).
constexpr double kTraceBackwardFlops = 2.5;

const char* passKey(bool backward)
{
    return backward ? "backward" : "forward";
}

// The model's time for an attention pass of this forward work, at the kernel's efficiency for this head size and
// sequence (attention_kernels.h: the backward's efficiency is against twice the forward FLOPs).
double modelledSeconds(
    const Scenario& s, const CostModelConstants& c, double forwardFlops, double headDim, double seq, bool backward)
{
    const AcceleratorFamily family = acceleratorFamilyOf(s.cluster.hardware);
    const AttentionKernel kernel = resolveAttentionKernel(s.flags.attentionKernel, family);
    const AttentionEfficiency e = attentionEfficiency(c, kernel, family, headDim, seq);
    const double peak = s.cluster.hardware.mfuPeak().value_or(0.0);
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
        for (const bool backward : { false, true })
            out.push_back({ { chunk, qk, 1.0 }, passKey(backward), modelledSeconds(s, c, forward, qk, chunk, backward),
                std::string("attention ") + passKey(backward) });
    }
    if (std::any_of(out.begin(), out.end(), [](const WantedShape& w) { return !(w.modelledSeconds > 0); }))
        return {};
    return out;
}

} // namespace

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
    const double ranks = static_cast<double>(std::max<size_t>(1, run.ranks.size()));
    std::vector<AttentionShapeBin> out;
    double total = 0;
    for (auto& [key, b] : bins) {
        b.callsPerStep /= ranks;
        b.secondsPerStep /= ranks;
        b.flopsPerStep /= ranks;
        total += b.secondsPerStep;
        out.push_back(b);
    }
    std::erase_if(out, [total](const AttentionShapeBin& b) { return b.secondsPerStep < kMinBinShare * total; });
    std::sort(out.begin(), out.end(), [](const AttentionShapeBin& a, const AttentionShapeBin& b) {
        return a.secondsPerStep != b.secondsPerStep
            ? a.secondsPerStep > b.secondsPerStep
            : std::tie(a.seqK, a.headDimQk, a.backward) < std::tie(b.seqK, b.headDimQk, b.backward);
    });
    if (out.size() > kMostAttentionShapes)
        out.resize(kMostAttentionShapes);
    return out;
}

std::optional<ShapeMatch> matchAttentionShapes(const Scenario& s, const std::vector<AttentionShapeBin>& bins)
{
    CostModelConstants c = costModelConstantsFor(s);
    if (runsAsLoneGpu(s, c))
        c = loneGpuConstants(c);
    const std::vector<WantedShape> calls = attentionCallsOf(s, c);
    if (calls.empty() || bins.empty())
        return std::nullopt;
    std::vector<MeasuredShape> measured;
    for (const AttentionShapeBin& b : bins) {
        const double forward = b.backward ? b.flopsPerStep / kTraceBackwardFlops : b.flopsPerStep;
        measured.push_back({ { b.seqK, b.headDimQk, 1.0 }, passKey(b.backward), b.secondsPerStep,
            modelledSeconds(s, c, forward, b.headDimQk, b.seqK, b.backward) });
    }
    return matchShapes(measured, calls, { { "sequence", "head dimension", "" }, "attention passes" });
}

} // namespace mfu
