#pragma once
// Diagnosis of a reported run: take what a log or report STATES (GPU, GPU count, sequence, micro-batch, gradient
// accumulation, step time, tokens/s, FLOP/token, achieved TFLOPS, the peak it divided by, MFU), check that the
// figures agree with each other and with physics, and name each mistake with the corrected figure.
//
// How the true throughput is found: every stated figure that implies a per-GPU tokens/s is a witness (tokens/s under
// each possible scope, achieved TFLOPS / FLOP/token, tokens per step / step time). Witnesses that would need more
// than the GPU's dense peak are impossible and dropped; the reading most witnesses agree on wins. A scope that a
// step time confirms in one run of a report is applied to the report's other runs (one logger labels them alike).
// The corrected MFU = per-GPU tokens/s x FLOP/token under the run's formula (PaLM per layer by default; when the model
// is known; else the stated FLOP/token) /
// the GPU's dense peak for the training precision (BF16 for BF16 and BF16+FP8 runs; BF16+FP8 runs also get the MFU
// against the dense FP8 peak, labelled). When every witness is impossible there is no corrected MFU: the run is
// marked inconsistent and the bound (the most tokens/s per GPU the dense peak allows) is given instead.
//
// A report's own figures are checked against each other too: tokens/s with TFLOPS imply its FLOP/token, TFLOPS with
// MFU the peak it divided by. When they describe another model (FLOP/token off by more than 25% from every formula
// for the model) or another GPU than the one the diagnosis counts with, the corrected MFU is withheld
// (log_model_mismatch, log_peak_mismatch): a figure corrected against the wrong model would look right and be wrong.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/model/flops.h"
#include "core/model/hardware_spec.h"
#include "core/model/model_spec.h"
#include "core/model/packing.h"
#include "core/model/precision.h"

namespace mfu {

enum class StatedScope { Unknown, PerGpu, Cluster };

struct ReportedRun {
    std::string label;
    HardwareSpec hardware; // the GPU the run used (required)
    int gpus = 1;
    std::optional<ModelSpec> model; // when known, FLOP/token is recomputed under `formula`
    FlopFormula formula = kDefaultFlopFormula; // the convention of the corrected MFU (6N for a bare count)
    TrainingPrecision precision = TrainingPrecision::BF16;
    std::optional<int64_t> seqLen;
    std::optional<int64_t> microBatch; // per GPU
    // Documents packed into each seqLen-token sequence (seqLen is then the packing length), and padding kept.
    SequencePacking packing;
    std::optional<int64_t> gradAccum; // micro-steps per GPU per optimizer step
    std::optional<double> tokensPerStep; // global, as stated
    std::optional<double> stepTimeSeconds;
    std::optional<double> tokensPerSec;
    StatedScope tokensPerSecScope = StatedScope::Unknown;
    std::optional<double> flopsPerToken; // as stated
    std::optional<double> achievedFlops; // as stated, FLOP/s
    StatedScope achievedScope = StatedScope::Unknown;
    std::optional<double> peakFlops; // the denominator the report used, FLOP/s
    // The peak was printed by a logger that takes it from the device it runs on (torchtitan's "Peak FLOPS used for
    // computing MFU"): another GPU's peak then says the run was on that GPU, as a TFLOPS / MFU ratio would
    // (log_peak_mismatch), rather than that the report divided by the wrong GPU's peak (peak_wrong_gpu).
    bool peakFromDevice = false;
    // False when neither the report nor the user gave the GPU count and 1 was assumed: a figure per GPU derived
    // from the whole run's (tokens a step over the step time) is then the whole run's.
    bool gpusStated = true;
    std::optional<double> mfu; // as stated, fraction of 1
    // The device memory the log establishes (LogFacts::deviceMemoryBytes), bytes: a GPU whose memory contradicts it
    // is not proposed for the peak the report divided by.
    std::optional<double> deviceMemoryBytes;
};

struct Finding {
    std::string code; // stable snake_case identifier, e.g. "peak_is_sparse"
    std::string severity; // "error" (the figure is wrong), "warning" (misleading), "info"
    std::string message; // one paragraph, with the numbers
    std::map<std::string, double> figures; // corrected figures, snake_case keys with units
};

struct RunDiagnosis {
    std::string label;
    std::vector<Finding> findings;
    double tokensPerSecPerGpu = 0;
    double tokensPerSecCluster = 0;
    double flopsPerToken = 0; // the one the corrected MFU uses
    std::string flopsFormula; // the formula's key ("per_layer", "palm", "six_n", ...) or "stated"
    double achievedFlopsPerGpu = 0;
    double peakFlopsPerGpu = 0; // dense peak of the precision
    std::string peakPrecision = "BF16"; // that peak's number format: FP16 on a GPU without BF16 (V100)
    double mfu = 0; // corrected; meaningful only when consistent
    // False when every stated throughput needs more than the GPU's dense peak for the run's precision: no reading of
    // the figures fits the GPU, so there is no corrected MFU, only the bound maxTokensPerSecPerGpu (100% of the dense
    // BF16 peak for a BF16 run; the FP8 or FP4 peak, boundPeakPrecision, for a BF16+FP8 or BF16+FP4 run).
    bool consistent = true;
    double maxTokensPerSecPerGpu = 0;
    double boundPeakFlopsPerGpu = 0;
    std::string boundPeakPrecision = "BF16";
    // BF16+FP8 runs on a GPU with an FP8 peak: MFU against it as well, labelled (as calc does).
    std::optional<double> fp8PeakFlopsPerGpu;
    std::optional<double> mfuVsFp8Peak;
    // BF16+FP4 runs on a GPU with an FP4 peak: MFU against it as well (as calc and predict do).
    std::optional<double> fp4PeakFlopsPerGpu;
    std::optional<double> mfuVsFp4Peak;
    std::optional<double> mfuWithStatedFlops; // corrected peak and scope, the report's own FLOP/token
    std::string throughputBasis; // which stated figures the throughput rests on
    // What the report's own figures imply (tokens/s with TFLOPS: FLOP/token; TFLOPS with MFU: the peak it divided
    // by), the parameter count that FLOP/token suggests (6N) and the GPU whose dense peak that is.
    std::optional<double> impliedFlopsPerToken;
    std::optional<double> impliedParams;
    std::optional<double> impliedPeakFlops;
    std::optional<std::string> impliedGpuId;
    // Set when the figures describe another model or GPU: the finding's code. There is then no corrected MFU.
    std::optional<std::string> withheld;
    bool hasCorrectedMfu() const { return consistent && !withheld; }
};

struct Diagnosis {
    std::vector<RunDiagnosis> runs;
    std::vector<Finding> comparison; // findings across runs (scaling, different work per step)
    double mfu = 0; // corrected MFU of the last run (the run under question; earlier runs are baselines); see
                    // runs.back().hasCorrectedMfu()
};

// knownHardware: every preset, to recognise a peak taken from another GPU (e.g. nanoGPT's fixed A100 312 TFLOPS).
// Throws InputError when a run lacks what any diagnosis needs (a GPU with a dense peak, some throughput figure).
Diagnosis diagnose(const std::vector<ReportedRun>& runs, const std::vector<HardwareSpec>& knownHardware);

} // namespace mfu
