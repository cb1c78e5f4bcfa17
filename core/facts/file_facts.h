#pragma once
// What a profiler trace or a training log states about the run it recorded (GPU, GPU count, tokens per step,
// sequence length, model size, precision), compared with the window's scenario. The GUI shows the differences in
// one banner and offers to adopt the file's values; measured MFU is withheld when the scenario cannot describe the
// file (its GPU differs, or the figure exceeds 100%), with the fact that disagrees named instead.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model/precision.h"
#include "core/scenario/scenario.h"

namespace mfu {

namespace trace {
struct RunAnalysis;
struct LogFacts;
struct LogSummary;
} // namespace trace

struct FileFacts {
    std::optional<std::string> gpuName; // as recorded, e.g. "NVIDIA H100 80GB HBM3"
    std::optional<int> gpuCount; // world size
    std::optional<double> tokensPerStep; // global, all data-parallel ranks
    std::optional<int64_t> seqLen;
    std::optional<double> modelParams; // total parameters
    std::optional<TrainingPrecision> precision;
    // The cost model's kernel for the attention a trace ran (core/trace/attention_implementation.h), and what ran.
    std::optional<AttentionKernel> attentionKernel;
    std::optional<std::string> attentionRan; // "cuDNN SDPA", "FlashAttention 2", ...
    // Eager or torch.compile, from a trace's kernels, and the sequences per GPU of a micro-step its embedding lookups
    // were given (core/trace/trace_facts.h); the banner adopts the micro-batch with the tokens per step.
    std::optional<bool> compiled;
    std::optional<int64_t> microBatch;
    // FP32 weights cast to 16 bits every step: torch.autocast over an FP32 model (core/trace/weight_casts.h).
    std::optional<bool> autocast;
    // What a log's own figures imply where it states nothing: the peak it divided by (TFLOPS / MFU; checkFacts names
    // the GPU whose dense peak that is), and the FLOP/token of its TFLOPS / tokens/s.
    std::optional<double> impliedPeakFlops;
    std::optional<double> impliedFlopsPerToken;
    // The device memory a log establishes (torchtitan's "memory: 9.46GiB(64.99%)": 14.56 GiB), bytes.
    std::optional<double> deviceMemoryBytes;
    // What one rank's trace measured: its recorded tokens per step over its mean step time, per GPU. Adopted, it
    // becomes the scenario's measured throughput, so the Calculator and Cost value the run the trace measured.
    std::optional<double> tokensPerSecPerGpu;
    // The matrix work a trace's operators did per step (matmuls, attention, grouped GEMMs, convolutions from their
    // recorded shapes; trace::stepMatrixWork), mean over the ranks whose shapes reach most of their matrix kernels'
    // time (not a CUDA graph's replay): about what the scenario's model must do per GPU a step for the trace to be a
    // run of it.
    std::optional<double> matrixFlopsPerStepPerGpu;
};

// How far a trace's matrix work per step may be from the scenario model's per GPU before the trace is taken for a
// run of another model or batch. A run of the model differs from its formula by recomputation (up to 1.33x) and by
// an attention square counted in full against a causal kernel (up to 2x where attention dominates, at long
// sequences): 2.7x together, 3.3x with the fifth of the matrix kernels' time whose shapes a trace may miss (the
// ranks counted reach 80% of it). Four times is beyond all of them; a forward-only trace of the model (a third of a
// training step, less the missed operators) may cross it, and is no training step to measure.
inline constexpr double kSameRunMatrixWorkFactor = 4.0;

// A trace states its GPU (deviceProperties) and world size (distributedInfo, or the number of per-rank files when
// there are several); one file without distributedInfo states no GPU count. Its embedding lookups state the
// sequence length and micro-batch, and for a single process the tokens per step; its kernels eager or compiled
// (core/trace/trace_facts.h).
FileFacts factsFromTrace(const trace::RunAnalysis& run);
// A log states what its header or argument dump prints (core/logs/log_facts.cpp); its medians imply the peak it divided
// by (TFLOPS / MFU) where it names no GPU, and a FLOP/token (TFLOPS / tokens/s, per GPU).
FileFacts factsFromLog(const trace::LogFacts& facts, const trace::LogSummary& summary);
// What the log prints, nothing implied.
FileFacts factsFromLog(const trace::LogFacts& facts);

enum class Fact {
    Gpu,
    GpuCount,
    TokensPerStep,
    SeqLen,
    ModelSize,
    Precision,
    AttentionKernel,
    Compiled,
    Autocast,
    DeviceMemory,
    Throughput
};
std::string factLabel(Fact fact); // "GPU", "GPU count", ...
// "FlashAttention 3", "cuDNN SDPA", ...: the attention kernels as the banner names them.
std::string attentionKernelLabel(AttentionKernel kernel);
// The scenario as a trace ran it: eager or compiled, and its weights (autocast over FP32 or 16-bit), where the
// trace states them and the scenario differs, for a prediction beside the trace to predict the run it recorded
// (the scenario's other values are the user's). `how` names them: "compiled (torch.compile), FP32 weights under
// autocast", and `scenarioHow` the scenario's own for the same facts. nullopt when the trace states neither or the
// scenario agrees.
struct AsTraced {
    Scenario scenario;
    std::string how;
    std::string scenarioHow;
};
std::optional<AsTraced> scenarioAsTraced(const Scenario& s, const FileFacts& file);

// The weights a step's matrices read, as Fact::Autocast's values: "FP32 under autocast" or "16-bit"; and as a phrase
// of its own: "FP32 weights under autocast" or "16-bit weights".
std::string weightsLabel(bool autocast);
std::string weightsPhrase(bool autocast);

struct FactDifference {
    Fact fact;
    std::string inFile; // as the user reads it: "NVIDIA H100 80GB HBM3", "8", "1,048,576"
    std::string inScenario;
};

struct FactsCheck {
    std::vector<FactDifference> differences; // in Fact order
    // The model a log's figures imply when its size differs: a bare count whose 6N is the implied FLOP/token, or the
    // size the log states. What the banner's button adopts.
    std::optional<double> proposedModelParams;
    bool gpuRecorded = false;
    std::optional<std::string> hardwarePresetId; // the preset the file's GPU maps to (core/presets/gpu_match.h)
    bool gpuDiffers = false; // the file's GPU is not the scenario's
    // Why no GPU is proposed for the peak a log divided by, when one has it but not the log's device memory:
    // "306 TFLOPS is torchtitan's fallback peak (312 TFLOPS) for a GPU it does not know; ...".
    std::optional<std::string> impliedGpuRefused;
    // The trace's matrix work per step is more than kSameRunMatrixWorkFactor from what the scenario's model does per
    // GPU at its tokens per step: the sentence that says so (both figures), which withholds a measured MFU. Not a
    // difference to adopt: no value of the file's makes the scenario describe it.
    std::optional<std::string> workMismatch;
    bool empty() const { return differences.empty(); }
};

// The attention kernel differs when the one the trace ran is not the one the scenario's setting resolves to on the
// file's GPU when that differs, else the scenario's (`auto` picks the best the GPU has: FlashAttention 3 on Hopper),
// so Predict can adopt what the run used.
// Tolerances: GPU count and sequence length must match exactly; tokens per step within 0.5% (logs print rounded
// batch sizes); model size within 10% (a "7B" model has 6.7-7.2 B parameters); an implied FLOP/token within
// kSameModelFlopsFactor of one of the scenario model's formulas (core/model/flops.h), as the diagnosis decides. The GPU
// name is matched against `hardware` (the presets' "match" patterns, core/presets/gpu_match.h). It differs when it
// means a preset other than the scenario's hardware, when it is ambiguous and the scenario's is not among the
// candidates, or when it matches nothing and does not contain the scenario's hardware id.
// A device memory the log establishes differs when the scenario's GPU cannot have it (deviceMemoryAgrees), and no
// GPU whose memory contradicts it is proposed for the peak the log divided by.
FactsCheck checkFacts(const FileFacts& file, const Scenario& scenario, double scenarioTokensPerStep,
    const std::vector<HardwareSpec>& hardware);
// Only the GPU: the part of checkFacts that decides whether the file ran on `gpu` (the GPU it names, or the one whose
// peak a log divided by), which is all a measured MFU's peak depends on. checkFacts begins with it.
FactsCheck checkFileGpu(const FileFacts& file, const HardwareSpec& gpu, const std::vector<HardwareSpec>& hardware);

// "tokens per step 8,192 in the file vs 4,096 in the scenario, GPU count 8 in the file vs 1 in the scenario": each
// difference (those for which `include` is true, when given), in Fact order, joined by ", "; empty when none is. The
// one wording of the list that a withheld MFU and a shown one's warning both name.
std::string factDifferencesText(const std::vector<FactDifference>& differences, bool (*include)(Fact) = nullptr);

// Why a measured MFU cannot be shown as a number for this file and scenario, or nullopt when it can: the GPU
// differs (the peak it is divided by is another GPU's), the trace's matrix work is not the scenario model's
// (workMismatch), or the figure exceeds 100% (then the differing facts, or the scenario's model and tokens per step,
// are named).
std::optional<std::string> measuredMfuWithheld(const FactsCheck& check, double mfu);

} // namespace mfu
