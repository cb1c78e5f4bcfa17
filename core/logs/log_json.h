#pragma once
// The documented JSON of a training log (docs/cli.md, `trace LOGFILE --json`):
//   { "format", "scope" ("per_gpu"|"unknown": how tokens/s and TFLOPS are scoped), "warmup_steps",
//     "facts": { gpus, tokens_per_step, global_batch_samples, micro_batch, grad_accum, seq_len, peak_tflops, device },
//     "steps": [ { step, step_time_s, tokens_per_sec, tflops, mfu_claimed, loss, peak_tflops, flops_per_token } ],
//     "step_count",
//     "summary": { steps_used, median_step_time_s, median_tokens_per_sec, median_tflops, median_mfu_claimed,
//                  median_peak_tflops, median_flops_per_token } }
// A figure the log does not state is null; mfu_claimed is a fraction.
#include <nlohmann/json_fwd.hpp>

#include "core/logs/training_log.h"

namespace mfu::trace {

// `withSteps` false leaves the per-step array out (the text output prints only its length, `step_count`): an
// nlohmann object per step costs about 1.8 KB, 7 GB for a 435 MB log whose steps alone take 605 MB.
nlohmann::json logToJson(const TrainingLog& log, const LogSummary& summary, size_t warmupSteps, bool withSteps = true);

} // namespace mfu::trace
