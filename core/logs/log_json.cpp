#include "core/logs/log_json.h"

#include <nlohmann/json.hpp>

namespace mfu::trace {

namespace {

template <typename T> nlohmann::json orNull(const std::optional<T>& v)
{
    return v ? nlohmann::json(*v) : nlohmann::json();
}

} // namespace

nlohmann::json logToJson(const TrainingLog& log, const LogSummary& summary, size_t warmupSteps, bool withSteps)
{
    nlohmann::json steps = nlohmann::json::array();
    for (size_t i = 0; withSteps && i < log.steps.size(); ++i) {
        const LogStep& s = log.steps[i];
        steps.push_back({ { "step", s.step }, { "step_time_s", orNull(s.stepSeconds) },
            { "tokens_per_sec", orNull(s.tokensPerSec) }, { "tflops", orNull(s.tflops) },
            { "mfu_claimed", orNull(s.mfu) }, { "loss", orNull(s.loss) }, { "peak_tflops", orNull(s.peakTflops) },
            { "flops_per_token", orNull(s.flopsPerToken) } });
    }
    const LogFacts& f = log.facts;
    return { { "format", log.format }, { "scope", log.scope == LogScope::PerGpu ? "per_gpu" : "unknown" },
        { "warmup_steps", warmupSteps }, { "rank_copies_merged", log.rankCopiesMerged },
        { "long_lines_skipped", log.longLinesSkipped },
        { "implausible_figures_dropped", log.implausibleFiguresDropped },
        { "facts",
            { { "gpus", orNull(f.gpus) }, { "tokens_per_step", orNull(f.tokensPerStep) },
                { "global_batch_samples", orNull(f.globalBatchSamples) }, { "micro_batch", orNull(f.microBatch) },
                { "grad_accum", orNull(f.gradAccum) }, { "seq_len", orNull(f.seqLen) },
                { "peak_tflops", orNull(f.peakTflops) }, { "device", orNull(f.device) },
                { "model_params", orNull(f.modelParams) } } },
        { "steps", steps }, { "step_count", log.steps.size() },
        { "summary",
            { { "steps_used", summary.stepsUsed }, { "warmup_steps_left_out", summary.warmupStepsLeftOut },
                { "zero_figures_left_out", summary.zeroFiguresLeftOut },
                { "other_batch_steps_left_out", summary.otherBatchStepsLeftOut },
                { "median_step_time_s", orNull(summary.medianStepSeconds) },
                { "median_tokens_per_sec", orNull(summary.medianTokensPerSec) },
                { "median_tflops", orNull(summary.medianTflops) }, { "median_mfu_claimed", orNull(summary.medianMfu) },
                { "median_peak_tflops", orNull(summary.medianPeakTflops) },
                { "median_flops_per_token", orNull(summary.medianFlopsPerToken) } } } };
}

} // namespace mfu::trace
