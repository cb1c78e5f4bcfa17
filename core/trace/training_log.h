#pragma once
// Training logs: the per-step lines torchtitan, Megatron-LM and nanoGPT print, or a user's own pattern. They give
// step time, throughput, TFLOPS and the MFU the log claims, which the core's diagnosis can then check.
//   torchtitan  `step: 20  loss: 11.83506  grad_norm: 9.6669  memory: 48.87GiB(51.44%)  tps: 4,376  tflops: 253.41
//               mfu: 25.62%` (ANSI colours; `wps` before late 2024, then `tps`; `tflops` since 2025). No step time.
//   Megatron-LM ` iteration       20/     100 | consumed samples: 2560 | elapsed time per iteration (ms): 1234.5 |
//               throughput per GPU (TFLOP/s/GPU): 401.2 | ... | lm loss: 5.123456E+00 | ...`
//   nanoGPT     `iter 100: loss 3.1234, time 123.45ms, mfu 41.20%` (-100.00% while its MFU estimate warms up: absent)
// Lines that match no format are ignored; a file where none matches is an InputError.
#include <istream>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace mfu::trace {

struct LogStep {
    int64_t step = 0;
    std::optional<double> stepSeconds;
    std::optional<double> tokensPerSecPerGpu; // torchtitan's tps/wps are per device
    std::optional<double> tflopsPerGpu;
    std::optional<double> mfu; // fraction
    std::optional<double> loss;
};

// A user-defined line pattern: an ECMAScript regex and the 1-based capture group of each field (0 = absent).
// Step time is read in the unit given by stepTimeScaleToSeconds (1e-3 for milliseconds); mfu may carry a '%'.
struct LogPattern {
    std::string regex;
    int stepGroup = 0;
    int stepTimeGroup = 0;
    double stepTimeScaleToSeconds = 1.0;
    int tokensPerSecGroup = 0;
    int tflopsGroup = 0;
    int mfuPercentGroup = 0;
    int lossGroup = 0;
};

struct TrainingLog {
    std::string format; // "torchtitan", "megatron", "nanogpt", "custom"
    std::vector<LogStep> steps;
};

// Throws InputError "<name>: ..." when no line matches, or for an invalid custom pattern.
TrainingLog parseTrainingLog(std::istream& in, const std::string& name, const std::optional<LogPattern>& custom = {});

struct LogSummary {
    size_t stepsUsed = 0;
    std::optional<double> medianStepSeconds;
    std::optional<double> medianTokensPerSecPerGpu;
    std::optional<double> medianTflopsPerGpu;
    std::optional<double> medianMfu;
};

// Medians over the steps after the first `warmupSteps` (compilation, allocator warm-up).
LogSummary summarizeLog(const TrainingLog& log, size_t warmupSteps = 1);

} // namespace mfu::trace
