#include "core/calibration/gemm_shapes.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "core/costmodel/compute_terms.h"
#include "core/costmodel/constants.h"
#include "core/model/model_spec.h"
#include "core/number_format.h"
#include "core/trace/analysis.h"
#include "core/trace/gemm_precision.h"

namespace mfu {

namespace {

// A bin under this share of the GEMMs' time is noise: left out.
constexpr double kMinBinShare = 0.001;

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

// The dense peak a GEMM of this precision key runs against on the scenario's GPU.
double peakOfKey(const std::string& key, const HardwareSpec& hardware)
{
    const std::string_view format = std::string_view(key).substr(key.rfind("mx", 0) == 0 ? 2 : 0);
    const auto f = numberFormatFromKey(format);
    return trace::densePeakAt(hardware, f.value_or(NumberFormat::BF16)).flopsPerSecond;
}

// The share of a precision's dense peak the model's GEMMs reach before the shape law, as compute_terms.h's
// linearGemmPeak has it: gemmEfficiency, times the FP8 recipe's or FP4's ratio.
double modelledLevel(const std::string& key, const Scenario& s, const CostModelConstants& c)
{
    double level = c.gemmEfficiency;
    if (key == "fp8" || key == "mxfp8") {
        level *= c.fp8GemmEfficiencyRatio;
        if (key == "mxfp8")
            level *= c.fp8MxGemmRatio;
        else if (s.flags.fp8Recipe == Fp8Recipe::Blockwise)
            level *= c.fp8BlockwiseGemmRatio;
    } else if (key == "fp4" || key == "mxfp4") {
        level *= c.fp4GemmEfficiencyRatio;
    }
    return level;
}

// The model's time for a GEMM: its FLOPs over the precision's peak, the model's level and the shape law's factor at
// its limiting dimension.
double modelledSeconds(
    double m, double n, double k, double flops, double peak, double level, const CostModelConstants& c)
{
    return peak > 0 && level > 0 ? flops / (peak * level * gemmShapeFactor(std::min({ m, n, k }), c)) : 0.0;
}

// A projection's three GEMMs (forward, input gradient, weight gradient) for T tokens, `count` times.
void addProjection(std::vector<LinearGemm>& out, const char* name, double tokens, double in, double outWidth,
    double count, const std::string& precision)
{
    const double flops = 2.0 * tokens * in * outWidth * count;
    out.push_back({ tokens, outWidth, in, precision, flops, std::string(name) + " forward" });
    out.push_back({ tokens, in, outWidth, precision, flops, std::string(name) + " input gradient" });
    out.push_back({ outWidth, in, tokens, precision, flops, std::string(name) + " weight gradient" });
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
    const double ranks = static_cast<double>(std::max<size_t>(1, run.ranks.size()));
    std::vector<GemmShapeBin> out;
    double total = 0;
    for (auto& [key, b] : bins) {
        b.callsPerStep /= ranks;
        b.secondsPerStep /= ranks;
        b.flopsPerStep /= ranks;
        total += b.secondsPerStep;
        out.push_back(b);
    }
    std::erase_if(out, [total](const GemmShapeBin& b) { return b.secondsPerStep < kMinBinShare * total; });
    std::sort(out.begin(), out.end(), [](const GemmShapeBin& a, const GemmShapeBin& b) {
        return a.secondsPerStep != b.secondsPerStep ? a.secondsPerStep > b.secondsPerStep
                                                    : std::tie(a.m, a.n, a.k) < std::tie(b.m, b.n, b.k);
    });
    if (out.size() > kMostGemmShapes)
        out.resize(kMostGemmShapes);
    return out;
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
        addProjection(out, "q_proj", tokens, hidden, a.heads * qk / tp, count, linear);
        addProjection(out, "k_proj", tokens, hidden, kvPerRank * qk, count, linear);
        if (!a.keyIsValue)
            addProjection(out, "v_proj", tokens, hidden, kvPerRank * v, count, linear);
        addProjection(out, "o_proj", tokens, a.heads * v / tp, hidden, count, linear);
        const double ffn = static_cast<double>(run.kind.ffnDim > 0 ? run.kind.ffnDim : m.ffnDim) / tp;
        if (m.activation == FfnActivation::SwiGLU)
            addProjection(out, "gate_proj", tokens, hidden, ffn, count, linear);
        addProjection(out, "up_proj", tokens, hidden, ffn, count, linear);
        addProjection(out, "down_proj", tokens, ffn, hidden, count, linear);
    }
    // The LM head stays BF16 in FP8 and FP4 recipes.
    addProjection(out, "lm_head", tokens, hidden, static_cast<double>(m.vocab) / tp, 1.0, "bf16");
    std::erase_if(out, [](const LinearGemm& g) { return !(g.m >= 1 && g.n >= 1 && g.k >= 1 && g.flops > 0); });
    return out;
}

std::optional<ShapeMatch> matchGemmShapes(const Scenario& s, const std::vector<GemmShapeBin>& bins)
{
    const std::vector<LinearGemm> gemms = linearGemmsOf(s);
    if (gemms.empty() || bins.empty())
        return std::nullopt;
    CostModelConstants c = costModelConstantsFor(s);
    if (runsAsLoneGpu(s, c))
        c = loneGpuConstants(c);
    const HardwareSpec& hw = s.cluster.hardware;
    const auto modelled = [&](double m, double n, double k, double flops, const std::string& precision) {
        return modelledSeconds(m, n, k, flops, peakOfKey(precision, hw), modelledLevel(precision, s, c), c);
    };
    std::vector<MeasuredShape> measured;
    for (const GemmShapeBin& b : bins)
        measured.push_back(
            { { b.m, b.n, b.k }, b.precision, b.secondsPerStep, modelled(b.m, b.n, b.k, b.flopsPerStep, b.precision) });
    std::vector<WantedShape> wanted;
    for (const LinearGemm& g : gemms)
        wanted.push_back({ { g.m, g.n, g.k }, g.precision, modelled(g.m, g.n, g.k, g.flops, g.precision), g.what });
    return matchShapes(measured, wanted, { { "M", "N", "K" }, "GEMMs" });
}

} // namespace mfu
