#include "core/trace/analysis_json.h"

#include "core/trace/trace_time.h"

#include "core/model/mfu_json.h"
#include "core/presets/gpu_match.h"
#include "core/trace/collective_sizes.h"
#include "core/trace/trace_mfu.h"
#include "core/trace/work_json.h"

namespace mfu::trace {

nlohmann::json mfuToJson(const MfuResult& m)
{
    nlohmann::json j = mfuResultToJson(m);
    j["flops_per_token"] = m.flopsPerToken;
    j["tokens_per_s_per_gpu"] = m.tokensPerSecPerGpu; // the fixed earlier name of tokens_per_sec_per_gpu
    return j;
}

nlohmann::json rankToJson(const RankAnalysis& r, const GpuPresetContext& gpus, const std::optional<MfuResult>& measured)
{
    const Breakdown& b = r.total;
    nlohmann::json j;
    j["rank"] = r.rank;
    j["gpu_name"] = r.gpuName ? nlohmann::json(*r.gpuName) : nlohmann::json(nullptr);
    j["proposed_gpu_preset"] = nullptr;
    if (r.gpuName) {
        const GpuMatch match = matchGpuName(*r.gpuName, gpus.hardware);
        if (match.presetId) {
            j["proposed_gpu_preset"] = *match.presetId;
        } else {
            j["gpu_preset_hint"] = unmatchedGpuHint(*r.gpuName, match, gpus.userPresetFolder);
            if (match.ambiguous())
                j["gpu_preset_candidates"] = match.candidates;
        }
    }
    j["source_file"] = r.sourceFile;
    j["kernel_count"] = b.kernelCount;
    j["step_source"] = std::string(stepSourceKey(r.stepSource));
    j["dropped_last_step"] = r.droppedLastStep;
    j["step_selection"] = r.stepSelection;
    j["gpu_step_annotations"] = std::string(gpuStepAnnotationsKey(r.gpuStepAnnotations));
    nlohmann::json analysed = nlohmann::json::array();
    for (const auto& s : r.steps)
        analysed.push_back(s.step.number);
    j["analysed_steps"] = analysed;
    addAttentionImplementationJson(j, r.attention);
    addTraceFactsJson(j, r);
    const std::optional<HardwareSpec> gpu = traceHardware(r, gpus.hardware);
    nlohmann::json steps = nlohmann::json::array();
    for (size_t i = 0; i < r.steps.size(); ++i) {
        const auto& s = r.steps[i];
        const auto stepMfu = gpu ? stepTraceMfu(r, i, *gpu) : std::nullopt;
        steps.push_back({ { "step", s.step.number }, { "start_ns", s.startNsAbsolute },
            { "duration_s", nsToSeconds(s.step.annotationDurationNs()) },
            { "gpu_window_s", nsToSeconds(s.step.windowDurationNs()) },
            { "gpu_work_window_s", nsToSeconds(s.step.workDurationNs()) },
            { "busy_s", nsToSeconds(s.breakdown.busyNs) }, { "kernel_count", s.breakdown.kernelCount },
            { "trace_mfu", stepMfu ? nlohmann::json(stepMfu->mfu) : nlohmann::json(nullptr) } });
    }
    j["steps"] = steps;
    j["mean_step_s"] = r.meanStepSeconds;
    j["step_spread_s"] = r.stepSpreadSeconds;
    j["mean_gpu_work_s"] = r.meanGpuWorkSeconds;
    j["mean_gpu_busy_s"] = r.meanGpuBusySeconds;
    const std::string timing = stepTimingNote(r);
    j["step_timing_note"] = timing.empty() ? nlohmann::json(nullptr) : nlohmann::json(timing);
    j["span_s"] = nsToSeconds(b.spanNs);
    j["busy_s"] = nsToSeconds(b.busyNs);
    j["idle_s"] = nsToSeconds(b.idleNs());
    nlohmann::json categories = nlohmann::json::object();
    for (int c = 0; c < kKernelCategoryCount; ++c) {
        const auto k = static_cast<size_t>(c);
        categories[std::string(categoryKey(static_cast<KernelCategory>(c)))]
            = { { "seconds", nsToSeconds(b.categoryNs[k]) }, { "share", b.share(b.categoryNs[k]) },
                  { "exclusive_seconds", nsToSeconds(b.exclusiveNs[k]) },
                  { "exclusive_share", b.share(b.exclusiveNs[k]) } };
    }
    j["categories"] = categories;
    j["compute_s"] = nsToSeconds(b.computeNs);
    j["comm_s"] = nsToSeconds(b.commNs);
    j["comm_overlap_fraction"] = b.commOverlapFraction();
    j["exposed_comm_s"] = nsToSeconds(b.exposedCommNs());
    j["collective_sizes"] = nlohmann::json::array();
    for (const CollectiveSizeStat& c : collectiveSizeStats(r.collectives))
        j["collective_sizes"].push_back({ { "kind", categoryKey(c.kind) },
            { "group_size", c.groupSize > 0 ? nlohmann::json(c.groupSize) : nlohmann::json(nullptr) },
            { "calls", c.calls }, { "bytes_min", c.bytesMin }, { "bytes_max", c.bytesMax },
            { "bytes_total", c.bytesTotal }, { "seconds", c.seconds },
            { "bus_bandwidth_median_bytes_per_sec", c.busBandwidthMedian },
            { "bus_bandwidth_best_bytes_per_sec", c.busBandwidthBest }, { "summary", collectiveSizeText(c) } });
    j["tiny_kernel_count"] = b.tinyKernelCount;
    j["tiny_kernel_share"] = b.kernelCount > 0 ? static_cast<double>(b.tinyKernelCount) / b.kernelCount : 0.0;
    j["idle_gaps"] = { { "count", b.idleGapCount }, { "seconds", nsToSeconds(b.idleGapNs) },
        { "waiting_on_host_s", nsToSeconds(b.idleGapHostNs) }, { "work_queued_s", nsToSeconds(b.idleGapQueuedNs) } };
    nlohmann::json top = nlohmann::json::array();
    for (const auto& k : r.topKernels)
        top.push_back({ { "name", k.name }, { "category", std::string(categoryKey(k.category)) }, { "count", k.count },
            { "total_s", nsToSeconds(k.totalNs) }, { "max_s", nsToSeconds(k.maxNs) },
            { "share_of_kernel_time", k.shareOfKernelTime } });
    j["top_kernels"] = top;
    j["op_flops"] = opFlopsToJson(r, gpu);
    j["roofline"] = rooflineToJson(r.opFlops, gpu);
    j["critical_path"] = criticalPathToJson(r.criticalPath);
    if (measured)
        j["measured_mfu"] = measured->mfu;
    j["warnings"] = r.warnings;
    return j;
}

nlohmann::json runToJson(
    const RunAnalysis& run, const GpuPresetContext& gpus, const std::vector<std::optional<MfuResult>>& perRankMfu)
{
    nlohmann::json j;
    nlohmann::json ranks = nlohmann::json::array();
    for (size_t i = 0; i < run.ranks.size(); ++i)
        ranks.push_back(rankToJson(run.ranks[i], gpus, i < perRankMfu.size() ? perRankMfu[i] : std::nullopt));
    j["ranks"] = ranks;
    j["gpu_count"] = run.gpuCount();
    j["mean_step_s"] = run.meanStepSeconds;
    addRunTraceFactsJson(j, run);
    if (run.straggler)
        j["straggler"] = { { "rank", run.straggler->rank }, { "cause", run.straggler->cause },
            { "excess_s_per_step", run.straggler->excessSecondsPerStep }, { "stands_out", run.straggler->standsOut },
            { "rank_step_spread_s", run.straggler->rankSpreadSeconds } };
    return j;
}

nlohmann::json comparisonToJson(const RunComparison& c)
{
    nlohmann::json categories = nlohmann::json::array();
    for (const auto& row : c.categories)
        categories.push_back({ { "category", row.key }, { "baseline_share", row.baselineShare },
            { "optimised_share", row.optimisedShare }, { "delta_share", row.deltaShare() },
            { "baseline_s_per_step", row.baselineSecondsPerStep },
            { "optimised_s_per_step", row.optimisedSecondsPerStep },
            { "delta_s_per_step", row.deltaSecondsPerStep() } });
    auto gpu = [](const std::optional<std::string>& g) { return g ? nlohmann::json(*g) : nlohmann::json(nullptr); };
    return { { "baseline_step_s", c.baselineStepSeconds }, { "optimised_step_s", c.optimisedStepSeconds },
        { "speedup", c.speedup }, { "categories", categories }, { "baseline_gpu", gpu(c.baselineGpu) },
        { "optimised_gpu", gpu(c.optimisedGpu) }, { "gpus_differ", c.gpusDiffer() },
        { "faster", c.faster().empty() ? nlohmann::json(nullptr) : nlohmann::json(c.faster()) },
        { "verdict", comparisonVerdict(c) } };
}

} // namespace mfu::trace
