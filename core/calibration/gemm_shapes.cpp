#include "core/calibration/gemm_shapes.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "core/calibration/shape_bins.h"
#include "core/costmodel/compute_terms.h"
#include "core/costmodel/constants.h"
#include "core/model/model_spec.h"
#include "core/number_format.h"
#include "core/trace/analysis.h"
#include "core/trace/gemm_precision.h"

namespace mfu {

namespace {

// Softmax-attention decoders with dense MLPs: the layers whose linear GEMMs linearGemmsOf writes out.
bool enumerable(const ModelSpec& m, const Scenario& s)
{
    if (m.isBare() || m.isMoe() || m.mla.enabled || m.compressedAttention.enabled() || m.hyperConnections > 0
        || m.attentionOutputGate || m.vision || s.workload.vision.tokensPerSequence > 0)
        return false;
    for (const LayerRun& run : layerRuns(m)) {
        const TokenMixer t = run.kind.tokenMixer;
        if (t != TokenMixer::FullAttention && t != TokenMixer::SlidingWindowAttention
            && t != TokenMixer::ChunkedAttention)
            return false;
        if (run.kind.channelMixer != ChannelMixer::DenseMlp)
            return false;
    }
    return true;
}

// The precision key of the scenario's linear layers' GEMMs, as a trace names the kernels' (GemmPrecision::key()).
std::string linearPrecisionKey(const Scenario& s)
{
    switch (s.precision) {
    case TrainingPrecision::BF16:
        return "bf16";
    case TrainingPrecision::BF16_FP8:
        return s.flags.fp8Recipe == Fp8Recipe::Mxfp8 ? "mxfp8" : "fp8";
    case TrainingPrecision::BF16_FP4:
        return "mxfp4"; // NVFP4 and MXFP4 alike: block-scaled FP4 operands
    }
    return "bf16";
}

std::optional<NumberFormat> formatOfKey(const std::string& key)
{
    return numberFormatFromKey(std::string_view(key).substr(key.rfind("mx", 0) == 0 ? 2 : 0));
}

// The dense peak a GEMM of this precision key runs against on the scenario's GPU.
double peakOfKey(const std::string& key, const HardwareSpec& hardware)
{
    return trace::densePeakAt(hardware, formatOfKey(key).value_or(NumberFormat::BF16)).flopsPerSecond;
}

// The rate the model gives a GEMM of this precision key before its shape factor: the format's peak x gemmEfficiency x
// the format's ratio (compute_terms.h), FP8 by the run's recipe (MX when the key says so).
double modelledRate(const std::string& key, Fp8Recipe recipe, const HardwareSpec& hw, const CostModelConstants& c)
{
    const NumberFormat format = formatOfKey(key).value_or(NumberFormat::BF16);
    if (key == "mxfp8")
        recipe = Fp8Recipe::Mxfp8;
    else if (recipe == Fp8Recipe::Mxfp8)
        recipe = Fp8Recipe::Tensorwise; // a non-MX FP8 GEMM of an MX run: the plain FP8 ratio
    return peakOfKey(key, hw) * c.gemmEfficiency * linearFormatRatio(format, recipe, c);
}

// Seconds for `flops` of a GEMM at `rate` whose limiting dimension is d.
double secondsAt(double flops, double rate, double d, const CostModelConstants& c)
{
    return rate > 0 ? flops / (rate * gemmShapeFactor(d, c)) : 0.0;
}

constexpr const char* kWeightGradient = " weight gradient";

// A projection's three GEMMs (forward, input gradient, weight gradient) for T tokens, `count` times; modelDim: the
// limiting dimension the cost model takes for it (0: its own smallest).
// modelShare: the share of its FLOPs the cost model counts (k and v: the heads TP replicates are not in the model's).
void addProjection(std::vector<LinearGemm>& out, const char* name, double tokens, double in, double outWidth,
    double count, const std::string& precision, double modelDim = 0, double modelShare = 1)
{
    const double flops = 2.0 * tokens * in * outWidth * count;
    const double d = modelDim > 0 ? modelDim : std::min({ tokens, in, outWidth });
    const double m = flops * modelShare;
    out.push_back({ tokens, outWidth, in, precision, flops, d, m, std::string(name) + " forward" });
    out.push_back({ tokens, in, outWidth, precision, flops, d, m, std::string(name) + " input gradient" });
    out.push_back({ outWidth, in, tokens, precision, flops, d, m, std::string(name) + kWeightGradient });
}

// TorchAO's rowwise_with_gw_hp runs each weight gradient's GEMM in BF16 (fp8Bf16GemmShare).
void keepWeightGradientsInBf16(std::vector<LinearGemm>& gemms, const Scenario& s)
{
    if (s.precision != TrainingPrecision::BF16_FP8 || !(fp8Bf16GemmShare(s.flags.fp8Recipe) > 0))
        return;
    for (LinearGemm& g : gemms)
        if (g.precision == "fp8" && g.what.ends_with(kWeightGradient))
            g.precision = "bf16";
}

// A BF16+FP4 run keeps a share of its linear layers in BF16 (fp4Bf16LayerShare): each GEMM split in two, as
// linearGemmPeak counts them.
void splitFp4(std::vector<LinearGemm>& gemms, const Scenario& s)
{
    const double share = s.flags.fp4Bf16LayerShare;
    if (s.precision != TrainingPrecision::BF16_FP4 || !(share > 0))
        return;
    const size_t n = gemms.size();
    for (size_t i = 0; i < n; ++i) {
        if (gemms[i].precision != "mxfp4")
            continue;
        LinearGemm bf16 = gemms[i];
        bf16.precision = "bf16";
        bf16.flops *= share;
        bf16.modelFlops *= share;
        gemms[i].flops *= 1.0 - share;
        gemms[i].modelFlops *= 1.0 - share;
        gemms.push_back(std::move(bf16));
    }
}

} // namespace

double peakOf(const GemmShapeBin& bin, const HardwareSpec& hardware)
{
    return peakOfKey(bin.precision, hardware);
}

std::vector<GemmShapeBin> gemmShapeBinsOf(const trace::RunAnalysis& run)
{
    std::map<std::tuple<double, double, double, std::string>, GemmShapeBin> bins;
    for (const trace::RankAnalysis& r : run.ranks) {
        if (r.steps.empty())
            continue;
        const double steps = static_cast<double>(r.steps.size());
        for (const trace::OpProblem& p : r.opFlops.problems) {
            if (p.kind != trace::OpKind::Matmul || p.category != trace::KernelCategory::Gemm || !p.gemm.known()
                || p.gemm.batch != 1 || !p.precision || p.ns <= 0 || !(p.flops > 0))
                continue;
            const std::string key = p.precision->key();
            GemmShapeBin& b = bins[{ p.gemm.m, p.gemm.n, p.gemm.k, key }];
            b.m = p.gemm.m;
            b.n = p.gemm.n;
            b.k = p.gemm.k;
            b.precision = key;
            b.callsPerStep += static_cast<double>(p.calls) / steps;
            b.secondsPerStep += static_cast<double>(p.ns) * 1e-9 / steps;
            b.flopsPerStep += p.flops / steps;
        }
    }
    return finishedShapeBins(bins, run.ranks.size(), kMostGemmShapes, [](const GemmShapeBin& a, const GemmShapeBin& b) {
        return std::tie(a.m, a.n, a.k, a.precision) < std::tie(b.m, b.n, b.k, b.precision);
    });
}

std::vector<LinearGemm> linearGemmsOf(const Scenario& s)
{
    const ModelSpec& m = s.model;
    if (!enumerable(m, s))
        return {};
    const Parallelism& p = s.parallelism;
    const double tp = std::max(1, p.tp);
    const double tokens
        = static_cast<double>(s.workload.microBatch) * static_cast<double>(s.workload.seqLen) / std::max(1, p.cp);
    const double hidden = static_cast<double>(m.hidden);
    const double stages = std::max(1, p.pp);
    const std::string linear = linearPrecisionKey(s);
    std::vector<LinearGemm> out;
    for (const LayerRun& run : layerRuns(m)) {
        const LayerAttention a = m.attentionOf(run.kind);
        const double count = run.count / stages; // the layers of one pipeline stage, on average
        const double qk = static_cast<double>(a.qkHeadDim), v = static_cast<double>(a.vHeadDim);
        // Key and value heads fewer than the TP degree are replicated: each rank keeps at least one.
        const double kvPerRank = std::max(1.0, a.kvHeads / tp);
        // The model takes one limiting dimension for the three: the fused projection's (compute_terms.cpp).
        const double qkvOut = (a.heads * qk + a.kvHeads * qk + (a.keyIsValue ? 0.0 : a.kvHeads * v)) / tp;
        const double qkvDim = std::min({ tokens, qkvOut, hidden });
        addProjection(out, "q_proj", tokens, hidden, a.heads * qk / tp, count, linear, qkvDim);
        const double kvModelShare = a.kvHeads / tp / kvPerRank;
        addProjection(out, "k_proj", tokens, hidden, kvPerRank * qk, count, linear, qkvDim, kvModelShare);
        if (!a.keyIsValue)
            addProjection(out, "v_proj", tokens, hidden, kvPerRank * v, count, linear, qkvDim, kvModelShare);
        addProjection(out, "o_proj", tokens, a.heads * v / tp, hidden, count, linear);
        const double ffn = static_cast<double>(run.kind.ffnDim > 0 ? run.kind.ffnDim : m.ffnDim) / tp;
        if (m.activation == FfnActivation::SwiGLU)
            addProjection(out, "gate_proj", tokens, hidden, ffn, count, linear);
        addProjection(out, "up_proj", tokens, hidden, ffn, count, linear);
        addProjection(out, "down_proj", tokens, ffn, hidden, count, linear);
    }
    // The LM head stays BF16 in FP8 and FP4 recipes.
    addProjection(out, "lm_head", tokens, hidden, static_cast<double>(m.vocab) / tp, 1.0, "bf16");
    splitFp4(out, s);
    keepWeightGradientsInBf16(out, s);
    std::erase_if(out, [](const LinearGemm& g) { return !(g.m >= 1 && g.n >= 1 && g.k >= 1 && g.flops > 0); });
    return out;
}

std::optional<ShapeMatch> matchGemmShapes(
    const Scenario& s, const Scenario& traced, const std::vector<GemmShapeBin>& bins)
{
    const std::vector<LinearGemm> gemms = linearGemmsOf(s);
    if (gemms.empty() || bins.empty())
        return std::nullopt;
    // The scenario's constants on both sides, so that what they share with the traced run's (gemmEfficiency, lone or
    // published) cancels; the traced GEMMs at the traced run's FP8 recipe, the scenario's at its own, so that a change
    // of recipe stays in the prediction.
    CostModelConstants c = costModelConstantsFor(s);
    const bool alone = runsAsLoneGpu(s, c);
    if (alone)
        c = loneGpuConstants(c);
    const HardwareSpec& hw = s.cluster.hardware;
    const double clock = tracedClock(alone, traced);
    std::vector<MeasuredShape> measured;
    for (const GemmShapeBin& b : bins) {
        const double rate = modelledRate(b.precision, traced.flags.fp8Recipe, hw, c);
        measured.push_back({ { b.m, b.n, b.k }, b.precision, b.secondsPerStep,
            clock * secondsAt(b.flopsPerStep, rate, std::min({ b.m, b.n, b.k }), c) });
    }
    std::vector<WantedShape> wanted;
    for (const LinearGemm& g : gemms) {
        const double rate = modelledRate(g.precision, s.flags.fp8Recipe, hw, c);
        wanted.push_back({ { g.m, g.n, g.k }, g.precision, secondsAt(g.flops, rate, std::min({ g.m, g.n, g.k }), c),
            secondsAt(g.modelFlops, rate, g.modelDim, c), g.what });
    }
    return matchShapes(measured, wanted, { { "M", "N", "K" }, "GEMMs" });
}

} // namespace mfu
