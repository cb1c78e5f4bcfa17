#include "core/calibration/gemm_shapes.h"

#include <algorithm>
#include <array>
#include <cmath>
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

double logDistance(const LinearGemm& g, const GemmShapeBin& b)
{
    const double dm = std::log(g.m / b.m), dn = std::log(g.n / b.n), dk = std::log(g.k / b.k);
    return dm * dm + dn * dn + dk * dk;
}

// "N 512: the trace's smallest is 1,024", "" when every dimension lies within the bins' range.
std::string beyondRange(const LinearGemm& g, const std::vector<const GemmShapeBin*>& bins)
{
    const std::array<std::pair<const char*, double>, 3> dims { { { "M", g.m }, { "N", g.n }, { "K", g.k } } };
    for (size_t d = 0; d < dims.size(); ++d) {
        double lo = INFINITY, hi = 0;
        for (const GemmShapeBin* b : bins) {
            const double v = d == 0 ? b->m : d == 1 ? b->n : b->k;
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
        const double v = dims[d].second;
        if (v < lo)
            return std::string(dims[d].first) + " " + formatNumber(v) + ": the trace's smallest is " + formatNumber(lo);
        if (v > hi)
            return std::string(dims[d].first) + " " + formatNumber(v) + ": the trace's largest is " + formatNumber(hi);
    }
    return "";
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

std::optional<GemmShapeMatch> matchGemmShapes(const Scenario& s, const std::vector<GemmShapeBin>& bins)
{
    const std::vector<LinearGemm> gemms = linearGemmsOf(s);
    if (gemms.empty() || bins.empty())
        return std::nullopt;
    CostModelConstants c = costModelConstantsFor(s);
    if (runsAsLoneGpu(s, c))
        c = loneGpuConstants(c);
    const HardwareSpec& hw = s.cluster.hardware;
    // Each bin's measured time over the model's: what its shape ran at against what the model's law expects.
    std::vector<double> ratio(bins.size(), 0.0);
    double measuredAll = 0, modelledAll = 0;
    for (size_t i = 0; i < bins.size(); ++i) {
        const GemmShapeBin& b = bins[i];
        const double modelled = modelledSeconds(
            b.m, b.n, b.k, b.flopsPerStep, peakOfKey(b.precision, hw), modelledLevel(b.precision, s, c), c);
        ratio[i] = modelled > 0 ? b.secondsPerStep / modelled : 0.0;
        if (modelled > 0) {
            measuredAll += b.secondsPerStep;
            modelledAll += modelled;
        }
    }
    if (!(modelledAll > 0))
        return std::nullopt;
    const double overall = measuredAll / modelledAll; // for a precision the trace never ran

    GemmShapeMatch out;
    double modelled = 0, carried = 0, beyondWorst = 0;
    for (const LinearGemm& g : gemms) {
        std::vector<const GemmShapeBin*> same;
        size_t nearest = bins.size();
        double best = INFINITY;
        for (size_t i = 0; i < bins.size(); ++i) {
            if (bins[i].precision != g.precision || ratio[i] <= 0)
                continue;
            same.push_back(&bins[i]);
            if (const double d = logDistance(g, bins[i]); d < best) {
                best = d;
                nearest = i;
            }
        }
        const double t
            = modelledSeconds(g.m, g.n, g.k, g.flops, peakOfKey(g.precision, hw), modelledLevel(g.precision, s, c), c);
        modelled += t;
        carried += t * (nearest < bins.size() ? ratio[nearest] : overall);
        std::string beyond;
        if (same.empty())
            beyond = "(" + g.precision + "): the trace ran no " + g.precision + " GEMMs";
        else if (best < 1e-12)
            out.exactShare += t;
        else if (beyond = beyondRange(g, same); beyond.empty())
            out.withinShare += t;
        if (beyond.empty())
            continue;
        out.beyondShare += t;
        if (t > beyondWorst) { // the GEMM beyond with the most time names the reason
            beyondWorst = t;
            out.beyond = g.what + " " + beyond;
        }
    }
    if (!(modelled > 0))
        return std::nullopt;
    out.measuredOverModel = carried / modelled;
    out.exactShare /= modelled;
    out.withinShare /= modelled;
    out.beyondShare /= modelled;
    return out;
}

} // namespace mfu
