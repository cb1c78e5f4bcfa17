#pragma once
// Training logs: the per-step lines torchtitan, Megatron-LM and nanoGPT print, the multi-line iteration blocks of
// nanoGPT-derived loggers (B200 scaling report), or a user's own pattern. They give step time, throughput, TFLOPS and
// the MFU the log claims, which the core's diagnosis (core/diagnosis/log_diagnosis.h) then checks.
//   torchtitan  `step: 20  loss: 11.83506  grad_norm: 9.6669  memory: 48.87GiB(51.44%)  tps: 4,376  tflops: 253.41
//               mfu: 25.62%` (ANSI colours; `wps` before late 2024, then `tps`; `tflops` since 2025). No step time.
//   Megatron-LM ` iteration       20/     100 | consumed samples: 2560 | elapsed time per iteration (ms): 1234.5 |
//               throughput per GPU (TFLOP/s/GPU): 401.2 | ... | lm loss: 5.123456E+00 | ...`
//   nanoGPT     `iter 100: loss 3.1234, time 123.45ms, mfu 41.20%` (-100.00% while its MFU estimate warms up: absent)
//   iter block  `Iter     10 | Loss: 10.7652 | Time: 1838ms | ...` then, on the next lines, `MFU: 10.44% |
//               Achieved: 939.7 TF | Peak: 9000.0 TF` and `Tokens/s: 106979 | FLOPs/token: 8.78 GF`.
// A step's fields may follow its step line on later lines until the next step starts. The first format whose step
// line appears fixes the format of the file. A step printed once per rank (every rank logging to one console,
// torchrun's "[rank3]:" or "[default3]:" prefixes, or the same step number on consecutive lines) counts once, with the
// mean of its copies' figures. Lines that match nothing are ignored; a file where no step line
// matches is an InputError. Settings a logger prints once (GPU count, tokens per step, sequence length, device)
// are collected as LogFacts from any line.
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mfu::trace {

struct ReadControl; // core/trace/byte_source.h

// How a logger scopes its tokens/s and TFLOPS: per GPU (torchtitan, Megatron-LM) or not said (the others).
enum class LogScope { Unknown, PerGpu };

struct LogStep {
    int64_t step = 0;
    std::optional<double> stepSeconds;
    std::optional<double> tokensPerSec; // scope: TrainingLog::scope
    std::optional<double> tflops; // achieved, scope: TrainingLog::scope
    std::optional<double> mfu; // fraction, as claimed
    std::optional<double> loss;
    std::optional<double> peakTflops; // the denominator the logger's MFU used
    std::optional<double> flopsPerToken; // the logger's own FLOP/token
    // The global batch (sequences) in force at this step, as the log last printed it: Megatron prints it on every
    // iteration line, and a batch-size ramp-up changes it.
    std::optional<int64_t> globalBatchSamples;
};

// Run settings the log states once (header lines, argument dumps, Megatron's per-line global batch size).
struct LogFacts {
    std::optional<int> gpus;
    std::optional<double> tokensPerStep; // global
    std::optional<int64_t> globalBatchSamples; // the last printed (a ramp-up's last stage)
    std::optional<int64_t> microBatch;
    std::optional<int64_t> gradAccum;
    std::optional<int64_t> seqLen;
    std::optional<double> peakTflops; // per GPU (torchtitan) or as printed (Hardware peak:)
    std::optional<std::string> device; // e.g. "NVIDIA B200"
    std::optional<double> modelParams; // total parameters, as the log states them (torchtitan, nanoGPT, "N=1.3B")
    // The device's memory, bytes, as the log establishes it: torchtitan's "memory: 9.46GiB(64.99%)" is the memory
    // in use and its share of the device's, so the device has 9.46 / 0.6499 = 14.56 GiB (a T4, not an A100).
    std::optional<double> deviceMemoryBytes;
};

// The peak torchtitan divides by on a GPU it does not know (get_peak_flops falls back to the A100's 312 TFLOPS
// BF16): a log's TFLOPS / MFU equal to it names no GPU by itself.
inline constexpr double kTorchtitanFallbackPeakFlops = 312e12;
// The peak nanoGPT's estimate_mfu divides by on every GPU ("A100 GPU bfloat16 peak flops is 312 TFLOPS"): a nanoGPT
// log's MFU is against it whatever the device.
inline constexpr double kNanoGptPeakFlops = 312e12;

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

// Builds a pattern from "step=1,time_ms=2,tflops=3" (keys: step, time_s, time_ms, tokens_per_sec, tflops,
// mfu_percent, loss). Throws InputError naming the bad key or number.
LogPattern logPatternFromGroups(const std::string& regex, const std::string& groups);

struct TrainingLog {
    std::string format; // "torchtitan", "megatron", "nanogpt", "iter_block", "custom"
    LogScope scope = LogScope::Unknown;
    std::vector<LogStep> steps; // each step once (per-rank copies merged)
    LogFacts facts;
    size_t rankCopiesMerged = 0; // step lines that repeated a step another rank had printed
    size_t longLinesSkipped = 0; // lines over a mebibyte, which no logger's step line is: not read
    // Step figures beyond any real job (core/job_ceilings.h: tokens/s, TFLOPS, step time, FLOP/token), a logger's
    // overflow or a unit slip: dropped from their steps, so no median, chart or check counts them.
    size_t implausibleFiguresDropped = 0;
};

// Throws InputError "<name>: ..." when no line matches, or for an invalid custom pattern.
// Reads line by line (the file is never held whole). With a ReadControl: progress about every megabyte over the
// bytes from the stream's position to its end (total 0 when it cannot seek), and trace::Cancelled when the cancel
// flag is set.
TrainingLog parseTrainingLog(std::istream& in, const std::string& name, const std::optional<LogPattern>& custom = {});
TrainingLog parseTrainingLog(
    std::istream& in, const std::string& name, const std::optional<LogPattern>& custom, const ReadControl& control);

// True when the head of a file is text (not JSON, gzip or SQLite) and one of its lines is a built-in step line.
bool looksLikeTrainingLog(std::string_view head);

struct LogSummary {
    size_t stepsUsed = 0;
    size_t warmupStepsLeftOut = 0; // fewer than asked when the log has no more steps than that
    size_t zeroFiguresLeftOut = 0; // figures stated as 0 or less (or not finite) that no median counts
    std::optional<double> medianStepSeconds;
    std::optional<double> medianTokensPerSec;
    std::optional<double> medianTflops;
    std::optional<double> medianMfu;
    std::optional<double> medianPeakTflops;
    std::optional<double> medianFlopsPerToken;
    // A global batch that changed during the log (Megatron's --rampup-batch-size): the medians count only the steps
    // at the batch of the last step, the batch is that one, and the steps at other batches are counted here.
    std::optional<int64_t> globalBatchSamples;
    size_t otherBatchStepsLeftOut = 0;
};

// Medians over the steps after the first `warmupSteps` (compilation, allocator warm-up), at the last step's global
// batch when the log's batch changed; a log with no more steps than that keeps its last step. Only positive figures
// count: a step that states 0 tokens/s or 0 TFLOPS (a stalled step, a logger's placeholder) measured nothing.
LogSummary summarizeLog(const TrainingLog& log, size_t warmupSteps = 1);

} // namespace mfu::trace
