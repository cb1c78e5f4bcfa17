#pragma once
// The figures a trace yields, per rank and per run (docs/trace-analysis.md defines each one).
// analyzeRun() is pure and thread-safe on its inputs: a GUI panel can call loadRun() + analyzeRun() from a
// background thread and hand the result to the GUI thread.
#include <optional>
#include <string>
#include <vector>

#include "core/model/hardware_spec.h"
#include "core/model/mfu.h"
#include "core/trace/attention_implementation.h"
#include "core/trace/breakdown.h"
#include "core/trace/critical_path.h"
#include "core/trace/kernel_rules.h"
#include "core/trace/steps.h"
#include "core/trace/timeline.h"
#include "core/trace/trace_facts.h"
#include "core/trace/trace_flops.h"
#include "core/trace/weight_casts.h"

namespace mfu::trace {

struct StepFigures {
    Step step;
    int64_t startNsAbsolute = 0; // annotation start + the file's time origin
    Breakdown breakdown; // over the step's GPU window
};

struct KernelStat {
    std::string name;
    KernelCategory category = KernelCategory::Other;
    int64_t count = 0;
    int64_t totalNs = 0;
    int64_t maxNs = 0;
    double shareOfKernelTime = 0; // of the summed kernel durations in the analysed steps
};

// One communication kernel of the analysed steps, in start order: for matching the k-th collective across ranks.
struct CollectiveCall {
    KernelCategory category = KernelCategory::CommOther;
    int64_t startNsAbsolute = 0; // the file's time origin + start
    int64_t durationNs = 0;
    double messageBytes = 0; // the message it moved (CollectiveMessage), 0 when not recorded
    int32_t groupSize = 0; // ranks of its group, 0 when not recorded
};

struct RankAnalysis {
    int rank = 0;
    bool rankFromTrace = false; // rank came from distributedInfo.rank (else the order the files were given)
    std::string sourceFile;
    std::optional<std::string> gpuName;
    std::optional<int> worldSize;
    std::string traceFormat; // Timeline::format: "kineto-json", "nsys-sqlite ..."; empty when read from a summary
    StepSource stepSource = StepSource::WholeTrace;
    bool droppedLastStep = false;
    std::string stepSelection; // which steps are analysed and why (StepPlan::selection)
    GpuStepAnnotations gpuStepAnnotations = GpuStepAnnotations::None;
    std::vector<StepFigures> steps;
    Breakdown total; // sum over the analysed steps
    std::vector<KernelStat> topKernels; // by total time, longest first
    std::vector<KernelStat> kernels; // every GPU activity name of the analysed steps, same order (kernel diff)
    std::vector<CollectiveCall> collectives; // communication kernels of the analysed steps, by start
    double meanStepSeconds = 0; // annotation durations of the analysed steps
    double stepSpreadSeconds = 0; // population standard deviation of the same
    double meanGpuWorkSeconds = 0; // the analysed steps' GPU work windows (first to last activity each launched)
    double meanGpuBusySeconds = 0; // busy time (union of activities) of the analysed steps' GPU windows
    OpFlops opFlops; // FLOPs and bytes from the recorded shapes (trace_flops.h)
    CriticalPath criticalPath; // per analysed step (critical_path.h)
    std::optional<DetectedAttention> attention; // which attention implementation ran (attention_implementation.h)
    std::optional<RecordedTokens> recordedTokens; // what its embedding lookups were given (trace_facts.h)
    std::optional<Fp32MatrixCasts> fp32MatrixCasts; // FP32 matrices cast to 16 bits a step (weight_casts.h)
    std::vector<std::string> warnings;

    // The time trace MFU divides by: each analysed step's wall-clock time, the longer of the loop's step (its
    // annotation) and its GPU window. A host-bound step's window ends with its last kernel, short of the loop's step
    // (TraceLens's one-step H100 trace: 34.9 ms of GPU window in a 47.2 ms step); a step whose host ran ahead has a
    // GPU window longer than its annotation. Inferred steps and GPU annotations have the window as annotation.
    int64_t stepWallNs() const;
    int64_t stepWallNs(size_t step) const;
};

enum class SpanDefinition {
    Steps, // the union of the kept steps' GPU windows (default; per-step figures add up to the totals)
    Hta, // HTA's: every activity launched before the last step starts, those before the first included (hta_span.h)
};

struct AnalysisOptions {
    BreakdownOptions breakdown;
    SpanDefinition span = SpanDefinition::Steps; // of the rank's totals; steps[] are always the step windows
    size_t topKernelCount = 20;
};

// When the GPU's time per step differs from the CPU step by more than kStepTimingTolerance, what that means, in one
// sentence naming both figures: the GPU worked longer than the loop's step (the host ran ahead and queued work), or
// it worked for less (it waited on the host for the rest: data loading, launches, synchronisation). Empty when they
// agree or the rank has no step.
inline constexpr double kStepTimingTolerance = 0.03;
std::string stepTimingNote(const RankAnalysis& rank);

// Classifies the timeline's activities with the rules and computes every figure.
RankAnalysis analyzeRank(Timeline& timeline, const KernelRules& rules, const AnalysisOptions& options = {});

struct Straggler {
    int rank = 0;
    // Category (or "idle") whose seconds per step exceed the median over ranks the most, and by how much.
    std::string cause;
    double excessSecondsPerStep = 0;
    // Whether the excess is more than the rank's own step-to-step spread (its steps' standard deviation): where it is
    // not, no rank is named the slowest. HTA's sampled rank 1 stands out (15.1 ms a step of elementwise work over the
    // median, against steps that spread by 11.4 ms).
    bool standsOut = false;
    double rankSpreadSeconds = 0;
};

struct RunAnalysis {
    std::vector<RankAnalysis> ranks;
    std::optional<Straggler> straggler; // with two or more ranks: the rank with the most computation per step
    double meanStepSeconds = 0; // over ranks
    int gpuCount() const; // world size from distributedInfo, else the number of ranks
};

RunAnalysis analyzeRun(std::vector<Timeline>& timelines, const KernelRules& rules, const AnalysisOptions& options = {});

// The run-level figures (mean step time, straggler) from ranks already analysed, in the order given: what
// analyzeRun adds after analysing each rank, shared with the parallel reader and the merge of per-rank summaries.
RunAnalysis finishRun(std::vector<RankAnalysis> ranks);

// A trace's measured MFU under a scenario (its model, formula, padding and recompute) is
// scenarioMfuAtStepTime (core/scenario/scenario_facts.h): one function for the Trace panel, the report and the CLI.

// Measured GEMM efficiency, which the cost model can adopt as its calibration: the matmul FLOPs a GPU must do per
// step (matmulFlopsPerToken x tokensPerStep / gpuCount) over the time GEMM kernels ran per step (union of `gemm`
// intervals / analysed steps) x the dense peak. nullopt when the rank has no GEMM time.
std::optional<double> measuredGemmEfficiency(
    double matmulFlopsPerToken, double tokensPerStep, int gpuCount, const RankAnalysis& rank, double peakFlopsPerGpu);

} // namespace mfu::trace
