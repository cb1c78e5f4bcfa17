#include "core/costmodel/error_band.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>

#include "core/costmodel/physical_bounds.h"
#include "core/model/flops.h"
#include "core/model/mfu.h"
#include "core/model/packing.h"

namespace mfu {

namespace {
// Linear interpolation between order statistics (the "R-7" definition most tools use).
double percentile(std::vector<double> v, double q)
{
    std::sort(v.begin(), v.end());
    const double pos = q * static_cast<double>(v.size() - 1);
    const size_t i = static_cast<size_t>(std::floor(pos));
    const size_t j = std::min(v.size() - 1, i + 1);
    return v[i] + (v[j] - v[i]) * (pos - static_cast<double>(i));
}
// How much faster than predicted a run could be before the GPU's peak stops it: MFU and HFU at their ceiling (100%,
// more for BF16+FP8 and BF16+FP4: utilisationCeiling), TFLOPS at the dense peak of the precision. At least 1 (a
// prediction already refused as beyond physics is not banded further).
double physicalHeadroom(const Scenario& s, const StepPrediction& p)
{
    double headroom = std::numeric_limits<double>::infinity();
    const double ceiling = utilisationCeiling(s.cluster.hardware, s.precision);
    if (p.mfu > 0)
        headroom = std::min(headroom, ceiling / p.mfu);
    if (p.hfu > 0)
        headroom = std::min(headroom, ceiling / p.hfu);
    const double peak = precisionPeakFlops(s.cluster.hardware, s.precision);
    if (p.tflopsPerGpu > 0 && peak > 0)
        headroom = std::min(headroom, peak / (p.tflopsPerGpu * 1e12));
    return std::max(1.0, headroom);
}

struct SimilarRunsBand {
    double lo = -kMinBandHalfWidth, hi = kMinBandHalfWidth;
    int runs = 0;
    std::string basis;
};

bool isHybrid(const Scenario& scenario)
{
    return architectureOf(scenario.model) == "hybrid";
}

// The scenario's out-of-sample class on one axis of kValidationClassAxes, or nullptr when the table has none.
const ValidationGroup* outOfSampleClass(const ErrorBandModel& model, size_t axis, const std::string& name)
{
    const auto it = std::find_if(model.classes.begin(), model.classes.end(),
        [&](const ValidationGroup& g) { return g.axis == kValidationClassAxes[axis] && g.name == name; });
    return it == model.classes.end() ? nullptr : &*it;
}

// The 10th to 90th percentile of the similar runs' errors (the header's first paragraph).
SimilarRunsBand similarRunsBand(const Scenario& scenario, const ErrorBandModel& model)
{
    const std::string generation = gpuGenerationOf(scenario.cluster.hardware);
    const bool moe = scenario.model.isMoe();
    // A transformer's band leaves out hybrid models' runs; a hybrid's takes every run.
    const bool hybrid = isHybrid(scenario);
    const auto comparable = [hybrid](const ValidationResidual& r) { return hybrid || !r.hybrid; };
    std::vector<double> errors;
    const auto collect = [&](auto&& like) {
        errors.clear();
        for (const auto& r : model.residuals)
            if (comparable(r) && like(r))
                errors.push_back(r.error);
        return static_cast<int>(errors.size()) >= kMinSimilarRuns;
    };
    std::string basis = generation + (moe ? " MoE" : " dense");
    if (!collect([&](const ValidationResidual& r) { return r.generation == generation && r.moe == moe; })) {
        basis = moe ? "MoE" : "dense";
        if (!collect([&](const ValidationResidual& r) { return r.moe == moe; })) {
            collect([](const ValidationResidual&) { return true; });
            basis = "all";
        }
    }
    SimilarRunsBand b;
    b.runs = static_cast<int>(errors.size());
    if (!errors.empty()) {
        b.lo = std::min(b.lo, percentile(errors, 0.10));
        b.hi = std::max(b.hi, percentile(errors, 0.90));
        b.basis = std::to_string(errors.size()) + " published " + basis + " runs";
    } else {
        b.basis = "no validation runs";
    }
    return b;
}

std::string percentText(double v, int decimals = 0)
{
    char b[32];
    std::snprintf(b, sizeof b, "%.*f%%", decimals, 100 * v);
    return b;
}

// The published run of the scenario's GPU generation, architecture and training precision that measured the highest
// MFU (executedMfuOf), or nullptr. Hybrid models' runs stand beside a hybrid only, as in the band.
const ValidationResidual* bestPublishedRun(const Scenario& scenario, const ErrorBandModel& model)
{
    const std::string generation = gpuGenerationOf(scenario.cluster.hardware);
    const bool moe = scenario.model.isMoe();
    const bool hybrid = isHybrid(scenario);
    const ValidationResidual* best = nullptr;
    for (const auto& r : model.residuals)
        if (r.generation == generation && r.moe == moe && r.hybrid == hybrid && r.precision == scenario.precision
            && r.executedMfu > 0 && (!best || r.executedMfu > best->executedMfu))
            best = &r;
    return best;
}

// Beside the basis, when the prediction is above every such run: the best of them and the prediction by the same
// count (the scenario may report another formula's MFU).
std::string precedentNote(const ErrorBand& b, const Scenario& scenario, double predictedMfu)
{
    const std::string precision(trainingPrecisionLabel(scenario.precision));
    const std::string architecture
        = std::string(isHybrid(scenario) ? "hybrid " : "") + (scenario.model.isMoe() ? "MoE" : "dense");
    return "above every " + gpuGenerationOf(scenario.cluster.hardware) + " " + architecture + " " + precision
        + " run in the validation table, counting the FLOPs executed (attention halved by the causal mask, as the "
          "table compares runs): "
        + percentText(predictedMfu, 1) + " predicted, where the best, " + b.publishedBestRun + ", measured "
        + percentText(b.publishedBestMfu, 1);
}

// How far the scenario's classes widen the band: the model's errors it allows on the optimistic side (> 0) and
// on the pessimistic side (< 0, as a magnitude), and the sentence that says which class set the wider one.
struct ClassWidening {
    double optimistic = 0;
    double pessimistic = 0;
    std::string why;
    double widest() const { return std::max(optimistic, pessimistic); }
};

// The model's miss either way: "±X", or "X optimistic, Y pessimistic" when the class's own runs missed on one side
// (a side of 0 is left out).
std::string widthText(const ClassWidening& w)
{
    if (w.optimistic == w.pessimistic)
        return "\u00B1" + percentText(w.optimistic);
    const auto side = [](double v, const char* name) { return v > 0 ? percentText(v) + " " + name : std::string(); };
    const std::string optimistic = side(w.optimistic, "optimistic");
    const std::string pessimistic = side(w.pessimistic, "pessimistic");
    if (optimistic.empty() || pessimistic.empty())
        return optimistic + pessimistic;
    return optimistic + ", " + pessimistic;
}

ClassWidening classWidening(const Scenario& scenario, const StepPrediction& prediction, const ErrorBandModel& model)
{
    double widest = 0;
    for (const ValidationGroup& g : model.classes)
        if (g.runs >= kMinClassRuns)
            widest = std::max(widest, kClassBandFactor * g.meanAbsError);
    const ValidationClasses classes = validationClassesOf(scenario, prediction);
    ClassWidening out;
    for (size_t axis = 0; axis < std::size(kValidationClassAxes); ++axis) {
        const std::string& name = validationClassOnAxis(classes, axis);
        const ValidationGroup* g = outOfSampleClass(model, axis, name);
        const int runs = g ? g->runs : 0;
        // A well-covered class speaks through the similar runs' percentiles already; only one the table has barely
        // seen widens the band: to the widest well-covered class's expected miss on both sides, and where its own
        // few runs missed by more, to their largest miss on the side they missed on (they are all there is to say
        // how far such a run can be off, and in which direction).
        if (runs >= kMinClassRuns)
            continue;
        const double ownOptimistic = runs > 0 ? std::max(0.0, g->maxError) : 0.0;
        const double ownPessimistic = runs > 0 ? std::max(0.0, -g->minError) : 0.0;
        ClassWidening w;
        w.optimistic = std::max(widest, ownOptimistic);
        w.pessimistic = std::max(widest, ownPessimistic);
        if (w.widest() > out.widest())
            out.why = "class " + name + ": " + std::to_string(runs) + " out-of-sample runs, fewer than "
                + std::to_string(kMinClassRuns)
                + (std::max(ownOptimistic, ownPessimistic) > widest ? ", so their largest miss"
                                                                    : ", so the widest class's");
        out.optimistic = std::max(out.optimistic, w.optimistic);
        out.pessimistic = std::max(out.pessimistic, w.pessimistic);
    }
    return out;
}

// What the validation table says of models with token mixers other than attention: their out-of-sample class.
std::string hybridLayersNote(const ErrorBandModel& model)
{
    const ValidationGroup* g = outOfSampleClass(model, kTokenMixersClassAxis, "hybrid");
    if (!g || g->runs == 0)
        return "unvalidated for this model's linear-attention, Mamba or sparse-attention layers (no published run yet)";
    return std::string("linear-attention, Mamba or sparse-attention layers")
        + (g->runs < kMinClassRuns ? " barely validated: " : ": ") + std::to_string(g->runs) + " out-of-sample run"
        + (g->runs == 1 ? "" : "s") + ", missed by " + percentText(g->meanAbsError) + " on average ("
        + (g->meanError > 0 ? "optimistic" : "pessimistic") + ")";
}

} // namespace

double executedMfuOf(const Scenario& scenario, double tokensPerSecPerGpu)
{
    const double peak = scenario.cluster.hardware.densePeak(NumberFormat::BF16).value_or(0.0);
    if (!(peak > 0) || !(tokensPerSecPerGpu > 0) || scenario.model.isBare())
        return 0;
    const SequencePacking& packing = scenario.workload.packing;
    const double executed = countFlopsPerToken(scenario.model, scenario.workload.seqLen, packing)
                                .get(FlopFormula::PerComponentCausal)
                                .value_or(0.0);
    return mfuAt(executed, tokensPerSecPerGpu * usefulTokenFraction(packing), peak);
}

ErrorBandModel errorBandModelFrom(const ValidationReport& report)
{
    ErrorBandModel m;
    m.classes = report.outOfSampleByClass;
    for (const ValidationRow& row : report.rows) {
        const Scenario& s = row.run->scenario;
        m.residuals.push_back({ gpuGenerationOf(s.cluster.hardware), s.model.isMoe(), row.error, isHybrid(s),
            executedMfuOf(s, row.run->measuredTokensPerSecPerGpu), row.run->id, s.precision });
    }
    return m;
}

ErrorBand errorBandFor(const Scenario& scenario, const StepPrediction& p, const ErrorBandModel& model)
{
    const SimilarRunsBand similar = similarRunsBand(scenario, model);
    ErrorBand b;
    b.similarRuns = similar.runs;
    b.basis = similar.basis;
    double lo = similar.lo, hi = similar.hi;
    if (!model.classes.empty()) {
        const ClassWidening w = classWidening(scenario, p, model);
        b.classOptimisticWidth = w.optimistic;
        b.classPessimisticWidth = w.pessimistic;
        if (w.optimistic > hi || w.pessimistic > -lo)
            b.basis += "; at least " + widthText(w) + " (" + w.why + ")";
        lo = std::min(lo, -w.pessimistic);
        hi = std::max(hi, w.optimistic);
    }
    // Layers beyond attention (linear attention, Mamba, sparse or compressed attention): say beside the band how many
    // published runs measure such layers and how far they miss.
    if (isHybrid(scenario))
        b.basis += "; " + hybridLayersNote(model);
    if (const ValidationResidual* best = bestPublishedRun(scenario, model)) {
        b.publishedBestMfu = best->executedMfu;
        b.publishedBestRun = best->run;
        const double predicted = executedMfuOf(scenario, p.tokensPerSecPerGpu);
        b.abovePublishedBest = predicted > b.publishedBestMfu;
        if (b.abovePublishedBest)
            b.basis += "; " + precedentNote(b, scenario, predicted);
    }
    // The measurement is likely prediction / (1 + error): an optimistic model (error > 0) lowers the band.
    b.lowFactor = 1.0 / (1.0 + hi);
    b.highFactor = std::min(1.0 / std::max(0.05, 1.0 + lo), physicalHeadroom(scenario, p));
    b.mfuLow = p.mfu * b.lowFactor;
    b.mfuHigh = p.mfu * b.highFactor;
    b.hfuLow = p.hfu * b.lowFactor;
    b.hfuHigh = p.hfu * b.highFactor;
    b.tflopsPerGpuLow = p.tflopsPerGpu * b.lowFactor;
    b.tflopsPerGpuHigh = p.tflopsPerGpu * b.highFactor;
    b.tokensPerSecLow = p.tokensPerSec * b.lowFactor;
    b.tokensPerSecHigh = p.tokensPerSec * b.highFactor;
    b.tokensPerSecPerGpuLow = p.tokensPerSecPerGpu * b.lowFactor;
    b.tokensPerSecPerGpuHigh = p.tokensPerSecPerGpu * b.highFactor;
    b.stepTimeSecondsLow = p.stepTimeSeconds / b.highFactor;
    b.stepTimeSecondsHigh = p.stepTimeSeconds / b.lowFactor;
    return b;
}

double plannerTieTolerance(const Scenario& scenario, const ErrorBandModel& model)
{
    return 1.0 - 1.0 / (1.0 + similarRunsBand(scenario, model).hi);
}

double relativeStepBandHalfWidth(const ErrorBand& band, const StepPrediction& prediction)
{
    if (!(prediction.stepTimeSeconds > 0))
        return 0;
    return std::max(0.0, band.stepTimeSecondsHigh - band.stepTimeSecondsLow) / 2.0 / prediction.stepTimeSeconds;
}

} // namespace mfu
