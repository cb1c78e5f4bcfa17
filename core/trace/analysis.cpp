#include "core/trace/analysis.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "core/errors.h"
#include "core/number_format.h"
#include "core/trace/hta_span.h"

namespace mfu::trace {

namespace {

std::vector<KernelStat> kernelStats(const Timeline& t, const StepPlan& plan)
{
    std::unordered_map<NameId, KernelStat> byName;
    int64_t totalNs = 0;
    for (size_t i = 0; i < t.activities.size(); ++i) {
        const GpuActivity& a = t.activities[i];
        if (plan.activityStep[i] < 0)
            continue;
        KernelStat& s = byName[a.name];
        s.category = a.category;
        ++s.count;
        s.totalNs += a.durationNs();
        s.maxNs = std::max(s.maxNs, a.durationNs());
        totalNs += a.durationNs();
    }
    std::vector<KernelStat> stats;
    stats.reserve(byName.size());
    for (auto& [id, s] : byName) {
        s.name = t.names.name(id);
        s.shareOfKernelTime = totalNs > 0 ? static_cast<double>(s.totalNs) / static_cast<double>(totalNs) : 0.0;
        stats.push_back(std::move(s));
    }
    std::sort(stats.begin(), stats.end(), [](const KernelStat& a, const KernelStat& b) {
        return a.totalNs != b.totalNs ? a.totalNs > b.totalNs : a.name < b.name;
    });
    return stats;
}

double median(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

Straggler findStraggler(const std::vector<RankAnalysis>& ranks)
{
    auto perStep = [](const RankAnalysis& r, int64_t ns) {
        return r.steps.empty() ? 0.0 : static_cast<double>(ns) / 1e9 / static_cast<double>(r.steps.size());
    };
    size_t slowest = 0;
    for (size_t i = 1; i < ranks.size(); ++i)
        if (perStep(ranks[i], ranks[i].total.computeNs) > perStep(ranks[slowest], ranks[slowest].total.computeNs))
            slowest = i;
    Straggler s;
    s.rank = ranks[slowest].rank;
    auto consider = [&](const std::string& cause, auto nsOf) {
        std::vector<double> values;
        for (const auto& r : ranks)
            values.push_back(perStep(r, nsOf(r)));
        const double excess = perStep(ranks[slowest], nsOf(ranks[slowest])) - median(values);
        if (s.cause.empty() || excess > s.excessSecondsPerStep) {
            s.cause = cause;
            s.excessSecondsPerStep = excess;
        }
    };
    for (int c = 0; c < kKernelCategoryCount; ++c)
        consider(std::string(categoryKey(static_cast<KernelCategory>(c))),
            [c](const RankAnalysis& r) { return r.total.exclusiveNs[static_cast<size_t>(c)]; });
    consider("idle", [](const RankAnalysis& r) { return r.total.idleNs(); });
    s.rankSpreadSeconds = ranks[slowest].stepSpreadSeconds;
    s.standsOut = s.excessSecondsPerStep > s.rankSpreadSeconds;
    return s;
}

} // namespace

RankAnalysis analyzeRank(Timeline& t, const KernelRules& rules, const AnalysisOptions& options)
{
    classifyActivities(t, rules);
    const StepPlan plan = planSteps(t);
    const std::vector<Breakdown> perStep = breakdownPerStep(t, plan, options.breakdown);

    RankAnalysis r;
    r.rank = t.rank.value_or(0);
    r.sourceFile = t.sourceFile;
    r.gpuName = t.gpuName;
    r.worldSize = t.worldSize;
    r.traceFormat = t.format;
    r.stepSource = plan.source;
    r.droppedLastStep = plan.droppedLastStep;
    r.stepSelection = plan.selection;
    r.gpuStepAnnotations = plan.gpuAnnotations;
    r.warnings = t.warnings;
    r.warnings.insert(r.warnings.end(), plan.warnings.begin(), plan.warnings.end());
    double sum = 0, work = 0, busy = 0;
    for (size_t s = 0; s < plan.steps.size(); ++s) {
        r.steps.push_back({ plan.steps[s], t.timeOriginNs + plan.steps[s].annotationStartNs, perStep[s] });
        r.total += perStep[s];
        sum += static_cast<double>(plan.steps[s].annotationDurationNs()) / 1e9;
        work += static_cast<double>(plan.steps[s].workDurationNs()) / 1e9;
        busy += static_cast<double>(perStep[s].busyNs) / 1e9;
    }
    if (!r.steps.empty()) {
        const auto n = static_cast<double>(r.steps.size());
        r.meanStepSeconds = sum / n;
        r.meanGpuWorkSeconds = work / n;
        r.meanGpuBusySeconds = busy / n;
        double var = 0;
        for (const auto& s : r.steps) {
            const double d = static_cast<double>(s.step.annotationDurationNs()) / 1e9 - r.meanStepSeconds;
            var += d * d;
        }
        r.stepSpreadSeconds = std::sqrt(var / static_cast<double>(r.steps.size()));
    }
    if (options.span == SpanDefinition::Hta)
        r.total = htaSpanBreakdown(t, options.breakdown);
    r.rankFromTrace = t.rank.has_value();
    for (size_t i = 0; i < t.activities.size(); ++i) {
        const GpuActivity& a = t.activities[i];
        if (plan.activityStep[i] >= 0 && a.kind == ActivityKind::Kernel && isCommunication(a.category)) {
            const CollectiveMessage* m = collectiveMessageOf(t, a);
            // The collective PyTorch says it ran where it says so: an all-to-all's kernels are NCCL send/receives.
            const KernelCategory kind = m && m->kind != KernelCategory::CommOther ? m->kind : a.category;
            r.collectives.push_back(
                { kind, t.timeOriginNs + a.startNs, a.durationNs(), m ? m->bytes : 0.0, m ? m->groupSize : 0 });
        }
    }
    r.kernels = kernelStats(t, plan);
    r.opFlops = countOpFlops(t, plan);
    r.criticalPath = criticalPath(t, plan);
    r.attention = detectAttentionImplementation(t);
    r.recordedTokens = recordedTokens(t, plan);
    r.fp32MatrixCasts = fp32MatrixCasts(t, plan);
    r.topKernels.assign(r.kernels.begin(),
        r.kernels.begin() + static_cast<std::ptrdiff_t>(std::min(options.topKernelCount, r.kernels.size())));
    if (t.activities.empty())
        r.warnings.push_back("no GPU activity (kernels, memcpy, memset) in this trace");
    return r;
}

std::string stepTimingNote(const RankAnalysis& r)
{
    if (r.steps.empty() || !(r.meanStepSeconds > 0) || r.stepSource != StepSource::CpuAnnotation)
        return {};
    const double relative = (r.meanGpuWorkSeconds - r.meanStepSeconds) / r.meanStepSeconds;
    if (std::abs(relative) <= kStepTimingTolerance)
        return {};
    const std::string step = formatMilliseconds(r.meanStepSeconds);
    const std::string gpu = formatMilliseconds(r.meanGpuWorkSeconds);
    const std::string busy = formatMilliseconds(r.meanGpuBusySeconds);
    if (relative > 0)
        return "The GPU worked " + gpu + " per step on the work each step launched, longer than the loop's " + step
            + " step: the host ran ahead and queued work, so a step's kernels ran into the next step's time (GPU busy "
            + busy + " per step).";
    return "The GPU worked " + gpu + " per step (busy " + busy + ") within the loop's " + step
        + " step: for the rest it waited on the host (data loading, launches, synchronisation).";
}

int64_t RankAnalysis::stepWallNs(size_t step) const
{
    const Step& s = steps.at(step).step;
    return std::max(s.annotationDurationNs(), s.windowDurationNs());
}

int64_t RankAnalysis::stepWallNs() const
{
    int64_t ns = 0;
    for (size_t i = 0; i < steps.size(); ++i)
        ns += stepWallNs(i);
    return ns;
}

int RunAnalysis::gpuCount() const
{
    for (const auto& r : ranks)
        if (r.worldSize && *r.worldSize > 0)
            return *r.worldSize;
    return std::max(1, static_cast<int>(ranks.size()));
}

RunAnalysis analyzeRun(std::vector<Timeline>& timelines, const KernelRules& rules, const AnalysisOptions& options)
{
    std::vector<RankAnalysis> ranks;
    for (Timeline& t : timelines)
        ranks.push_back(analyzeRank(t, rules, options));
    return finishRun(std::move(ranks));
}

RunAnalysis finishRun(std::vector<RankAnalysis> ranks)
{
    RunAnalysis run;
    run.ranks = std::move(ranks);
    if (!run.ranks.empty()) {
        double sum = 0;
        for (const auto& r : run.ranks)
            sum += r.meanStepSeconds;
        run.meanStepSeconds = sum / static_cast<double>(run.ranks.size());
    }
    if (run.ranks.size() >= 2)
        run.straggler = findStraggler(run.ranks);
    return run;
}

std::optional<double> measuredGemmEfficiency(
    double matmulFlopsPerToken, double tokensPerStep, int gpuCount, const RankAnalysis& rank, double peakFlopsPerGpu)
{
    const int64_t gemmNs = rank.total.categoryNs[static_cast<size_t>(KernelCategory::Gemm)];
    if (gemmNs <= 0 || rank.steps.empty() || gpuCount <= 0 || !(peakFlopsPerGpu > 0))
        return std::nullopt;
    const double gemmSecondsPerStep = static_cast<double>(gemmNs) / 1e9 / static_cast<double>(rank.steps.size());
    return matmulFlopsPerToken * tokensPerStep / gpuCount / (gemmSecondsPerStep * peakFlopsPerGpu);
}

} // namespace mfu::trace
