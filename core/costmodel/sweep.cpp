#include "core/costmodel/sweep.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/costmodel/cost_model.h"
#include "core/costmodel/physical_bounds.h"
#include "core/model/hardware_spec.h"
#include "core/model/precision.h"
#include "core/units.h"

namespace mfu {

std::string_view sweepAxisKey(SweepAxis axis)
{
    switch (axis) {
    case SweepAxis::SeqLen:
        return "seq";
    case SweepAxis::GpuCount:
        return "gpus";
    case SweepAxis::Precision:
        return "precision";
    case SweepAxis::Network:
        return "network";
    }
    return {};
}

std::optional<SweepAxis> sweepAxisFromKey(std::string_view key)
{
    for (SweepAxis a : { SweepAxis::SeqLen, SweepAxis::GpuCount, SweepAxis::Precision, SweepAxis::Network })
        if (sweepAxisKey(a) == key)
            return a;
    return std::nullopt;
}

std::vector<double> defaultSweepValues(SweepAxis axis, TrainingPrecision own)
{
    std::vector<double> v;
    switch (axis) {
    case SweepAxis::SeqLen:
        for (double s = 2048; s <= 131072; s *= 2)
            v.push_back(s);
        break;
    case SweepAxis::GpuCount:
        for (double g = 1; g <= 16384; g *= 2)
            v.push_back(g);
        break;
    case SweepAxis::Precision:
        v = { 0, 1 };
        if (own == TrainingPrecision::BF16_FP4)
            v.push_back(sweepValueOf(own)); // the run's own precision is always a point
        break;
    case SweepAxis::Network:
        for (double gbps = 25; gbps <= 3200; gbps *= 2)
            v.push_back(gbps);
        break;
    }
    return v;
}

std::vector<double> defaultSweepValues(SweepAxis axis, const Scenario& scenario, const CostModel& model)
{
    std::vector<double> v = defaultSweepValues(axis, scenario.precision);
    const double fp4 = sweepValueOf(TrainingPrecision::BF16_FP4);
    if (axis == SweepAxis::Precision && std::find(v.begin(), v.end(), fp4) == v.end()
        && !model.fp4Unavailable(scenario))
        v.push_back(fp4);
    return v;
}

TrainingPrecision precisionOnSweep(double x)
{
    return x > 1.5 ? TrainingPrecision::BF16_FP4 : x > 0.5 ? TrainingPrecision::BF16_FP8 : TrainingPrecision::BF16;
}

double sweepValueOf(TrainingPrecision p)
{
    return static_cast<double>(static_cast<int>(p));
}

bool crossesScaleUpDomains(const Scenario& scenario)
{
    return scenario.cluster.gpuCount > scenario.cluster.domainSize();
}

std::string networkSweepNote(const Scenario& scenario)
{
    if (crossesScaleUpDomains(scenario))
        return {};
    const std::string& link = scenario.cluster.hardware.scaleUpName;
    const std::string where = scenario.cluster.gpuCount == 1 ? "The run is on one GPU"
                                                             : "All " + std::to_string(scenario.cluster.gpuCount)
            + " GPUs share one scale-up domain" + (link.empty() ? std::string() : " (" + link + ")");
    return where + ": the network carries none of its traffic, and a faster or slower one changes nothing.";
}

Scenario scenarioAt(const Scenario& scenario, SweepAxis axis, double x)
{
    Scenario s = scenario;
    switch (axis) {
    case SweepAxis::SeqLen:
        s.workload.seqLen = static_cast<int64_t>(x);
        // The same documents packed to the new length: longer ones are split, as packers do.
        s.workload.packing = packedInto(scenario.workload.packing, s.workload.seqLen);
        break;
    case SweepAxis::GpuCount:
        s.cluster.gpuCount = static_cast<int>(x);
        break;
    case SweepAxis::Precision:
        s.precision = precisionOnSweep(x);
        // FP8 parameters belong to the FP8 point; the others hold their weights in BF16. A BF16 point quantises
        // nothing, so it caches nothing either.
        if (s.precision != TrainingPrecision::BF16_FP8)
            s.flags.fp8ParamGather = false;
        if (linearLayerFormat(s.precision) == NumberFormat::BF16)
            s.flags.quantizedWeightCache = false;
        break;
    case SweepAxis::Network:
        setStatedScaleOut(s.cluster.hardware, x);
        break;
    }
    return s;
}

SweepResult runSweep(const Scenario& scenario, SweepAxis axis, const SweepOptions& options,
    const std::function<void(double)>& progress, const std::atomic<bool>* cancel)
{
    const CostModel scenarioModel(scenario);
    SweepResult result;
    result.axis = axis;
    result.plannerRan = options.includePlannerBest;
    const std::vector<double> values
        = options.values.empty() ? defaultSweepValues(axis, scenario, scenarioModel) : options.values;
    for (size_t i = 0; i < values.size(); ++i) {
        if (cancel && cancel->load()) {
            result.cancelled = true;
            break;
        }
        if (progress)
            progress(static_cast<double>(i) / static_cast<double>(values.size()));
        const Scenario s = scenarioAt(scenario, axis, values[i]);
        // A cost model holds its hardware: a network point needs its own (CostModel::evaluate).
        std::optional<CostModel> otherHardware;
        const CostModel& model = axis == SweepAxis::Network ? otherHardware.emplace(s) : scenarioModel;
        SweepPoint p;
        p.x = values[i];
        p.precision = s.precision;
        if (const auto problem = model.invalidReasonText(s)) {
            p.currentProblem = *problem;
        } else {
            p.current = model.evaluateValid(s);
            p.currentValid = !isBeyondPhysics(p.current, s); // refused, never drawn (physical_bounds.h)
            if (!p.currentValid)
                p.currentProblem = kBeyondPhysicsReason;
            ++result.evaluated;
            if (options.errorBands && p.currentValid)
                p.currentBand = errorBandFor(s, p.current, *options.errorBands);
        }
        if (options.includePlannerBest) {
            // The planner compares every layout at one batch (planner.h): the batch the current layout runs at this
            // point (the scenario's, rounded up to whole micro-steps), so "best" and "current" are the same work.
            Scenario planned = s;
            if (p.currentValid)
                planned.workload.globalBatchTokens = static_cast<int64_t>(std::llround(p.current.tokensPerStep));
            // "The planner's best" is one fact: with bands, the layout `plan` ranks first, ties within the band
            // ranked simplest first (plannerTieTolerance), not the fastest alone.
            PlannerOptions planner = options.planner;
            if (options.errorBands)
                planner.tieTolerance = plannerTieTolerance(s, *options.errorBands);
            const PlanResult plan = planConfigurations(planned, planner, {}, cancel);
            result.evaluated += plan.evaluated;
            p.bestProblem = whyNothingPlanned(plan);
            if (!plan.configs.empty()) {
                p.best = plan.configs.front();
                p.bestLeftOut = beyondPhysicsLeftOutNote(plan);
                // The band depends on the GPU generation and the architecture, which the planner does not change.
                if (options.errorBands)
                    p.bestBand = errorBandFor(s, p.best->prediction, *options.errorBands);
            }
            if (plan.cancelled) {
                result.cancelled = true;
                break;
            }
        }
        result.points.push_back(std::move(p));
    }
    if (progress && !result.cancelled)
        progress(1.0);
    return result;
}

SweepResult scenarioSweep(const Scenario& scenario, SweepAxis axis, const ErrorBandModel* bands,
    std::vector<double> values, bool plannerBest, const std::function<void(double)>& progress,
    const std::atomic<bool>* cancel)
{
    SweepOptions options;
    options.values = std::move(values);
    options.includePlannerBest = plannerBest;
    options.errorBands = bands;
    return runSweep(scenario, axis, options, progress, cancel);
}

namespace {
void appendPrediction(std::string& out, const StepPrediction& p)
{
    char buf[256];
    std::snprintf(buf, sizeof buf, ",%.6f,%.3f,%.3f,%s,%.3f,%.3f,%s", p.mfu, p.tflopsPerGpu, p.tflopsPerNode,
        p.mfuVsFp8Peak ? std::to_string(*p.mfuVsFp8Peak).c_str() : "", p.tokensPerSec, p.memory.total() / kGiB,
        p.fits ? "true" : "false");
    out += buf;
}
} // namespace

std::string sweepToCsv(const SweepResult& r)
{
    const bool byPrecision = r.axis == SweepAxis::Precision;
    std::string out = std::string(byPrecision ? "" : std::string(sweepAxisKey(r.axis)) + ",")
        + "precision,mfu,tflops_per_gpu,tflops_per_node,mfu_vs_fp8_peak,tokens_per_sec,memory_gib,fits"
          ",best_mfu,best_tflops_per_gpu,best_tflops_per_node,best_mfu_vs_fp8_peak,best_tokens_per_sec,best_memory_gib,"
          "best_fits,best_config\n";
    for (const SweepPoint& p : r.points) {
        if (!byPrecision) {
            char x[32];
            std::snprintf(x, sizeof x, "%.10g,", p.x); // whole tokens and GPUs; a network may be 12.5 Gb/s
            out += x;
        }
        out += std::string(trainingPrecisionKey(p.precision));
        if (p.currentValid)
            appendPrediction(out, p.current);
        else
            out += ",,,,,,,invalid";
        if (p.best) {
            appendPrediction(out, p.best->prediction);
            out += ",\"" + describeConfig(*p.best) + "\"";
        } else if (r.plannerRan) {
            out += ",,,,,,,false,\"none: " + p.bestProblem + "\""; // nothing fits, or no layout runs the batch
        } else {
            out += ",,,,,,,,not run"; // the planner was off: no best was sought, so best_fits says nothing
        }
        out += "\n";
    }
    return out;
}

} // namespace mfu
