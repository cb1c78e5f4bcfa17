#pragma once
// The documented JSON of a training log (docs/cli.md, `trace LOGFILE --json`):
//   { "format", "scope" ("per_gpu"|"unknown": how tokens/s and TFLOPS are scoped), "warmup_steps",
//     "facts": { gpus, tokens_per_step, global_batch_samples, micro_batch, grad_accum, seq_len, peak_tflops, device },
//     "steps": [ { step, step_time_s, tokens_per_sec, tflops, mfu_claimed, loss, peak_tflops, flops_per_token } ],
//     "summary": { steps_used, median_step_time_s, median_tokens_per_sec, median_tflops, median_mfu_claimed,
//                  median_peak_tflops, median_flops_per_token } }
// A figure the log does not state is null; mfu_claimed is a fraction.
#include <nlohmann/json_fwd.hpp>

#include "core/logs/training_log.h"

namespace mfu::trace {

nlohmann::json logToJson(const TrainingLog& log, const LogSummary& summary, size_t warmupSteps);

} // namespace mfu::trace
