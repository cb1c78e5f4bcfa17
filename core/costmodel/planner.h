#pragma once
// The configuration planner: evaluates every valid way to run a scenario's model on its cluster and ranks those that
// fit by tokens/s. Searched: factorisations of the GPU count into HSDP replicas x FSDP shards x TP x PP x CP, for MoE
// EP x expert TP folded over the stage's TP x CP x data-parallel ranks (expert TP 1 or = TP), TP inside one scale-up
// domain (dividing the heads), micro-batch sizes, activation checkpointing modes (for MoE also Megatron's selective
// moe_act and layernorm modules), virtual pipeline stages, and even or uneven stages (the embedding and loss counted
// in the split). Lambda's MFU paper's rules (prefer no AC/TP/CP/PP; add
// selective then full AC, then TP, then CP as memory runs out; TP only inside NVLink domains; one HSDP replica per
// rack) are not coded here: they come out of the cost model.
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/costmodel/step_prediction.h"
#include "core/scenario/scenario.h"

namespace mfu {

struct PlannerOptions {
    int topN = 10;
    int maxMicroBatch = 8; // micro-batches 1, 2, 4, ... up to this
    int maxVirtualStages = 4; // 1, 2, 4 ... chunks per pipeline rank
    int maxPipelineStages = 64;
    int64_t minTokensPerCpRank = 1024; // CP never splits a sequence finer than this
    bool tpWithinDomain = true; // TP groups never cross the scale-up domain
    bool searchActivationCheckpointing = true; // false: keep the scenario's mode
    bool searchMicroBatch = true; // false: keep the scenario's micro-batch
    // Configurations whose tokens/s lie within this fraction of the fastest are ties (the prediction's error band,
    // error_band.h), ranked by plannerRankingRule; 0: rank by predicted throughput alone.
    double tieTolerance = 0;
    // Restrictions for what-if questions (0: search all).
    int fixedHsdpReplicas = 0;
    int fixedTp = 0;
};

struct PlannedConfig {
    Parallelism parallelism;
    int64_t microBatch = 1;
    ActivationCheckpointing activationCheckpointing = ActivationCheckpointing::None;
    unsigned recomputeModules = 0; // Megatron's modules under selective checkpointing (RecomputeModule bits)
    StepPrediction prediction;
    int fsdpShards = 1;
    std::string reason; // why it ranks where it does
    bool tiesWithBest = false; // within PlannerOptions::tieTolerance of the fastest configuration
};

struct PlanResult {
    std::vector<PlannedConfig> configs; // fitting configurations, best first, at most topN
    int64_t evaluated = 0; // configurations evaluated
    int64_t fitting = 0;
    double seconds = 0;
    bool cancelled = false;
    int64_t globalBatchTokens = 0; // the batch every configuration was compared at
    int64_t seqLen = 0; // the scenario's sequence length and GPU count, which the batch is made of
    int gpuCount = 0;
    // Layouts left out because they cannot run the global batch: it is not within kPlannedBatchTolerance of a whole
    // number of their micro-steps (micro-batch x sequence x data-parallel ranks).
    int64_t offBatch = 0;
    // Layouts that fit but are left out because their MFU, HFU or TFLOPS under the scenario's FLOP count would pass
    // the GPU's peak (core/costmodel/physical_bounds.h): the count charges work the kernels skip. Counted so that a
    // surface says so: the fastest layouts are the first to be left out.
    int64_t beyondPhysics = 0;
    FlopFormula formula = kDefaultFlopFormula; // the count the plan's MFU figures are in
    // Why the first layout that could not be laid out could not (CostModel::invalidReason); null when all could.
    const char* firstInvalidReason = nullptr;
    // The same with its figures (CostModel::invalidReasonText), written once, for the first: what people read.
    std::string firstInvalidText;
};

// The ranking rule, stated once for every surface (`plan`, the Predict panel's planner, the report) and obeyed by
// planConfigurations: outside the band, faster first; inside it (ties), by this order of keys. The sentence names
// them in the order they are applied; tolerance 0 says the order is by throughput alone.
std::string plannerRankingRule(double tieTolerance);
// Among ties, a layout leaving less than this share of the GPU's memory free ranks after the others: the predicted
// peak has no allowance for the caching allocator's fragmentation, so "fits with 0.3 GiB to spare" may not. Below
// the 4.95% that Lambda's measured 70B layout (FSDP 16, selective AC, 16 B200) leaves by this model: it ran.
inline constexpr double kTightMemoryFraction = 0.02;

// When every configuration shown (two or more) lies within the error band of the fastest, the prediction cannot
// tell them apart: the sentence says that the order is the rule's, not a measured ranking. Empty otherwise.
std::string planOrderNote(const PlanResult& plan, double tieTolerance);

// Memory per GPU against the capacity, both rounded alike (so a fitting layout never reads as above its capacity)
// with the headroom left: "124.4 of 131.3 GiB, 6.9 GiB free". A layout that fits with under 0.05 GiB to spare says
// "under 0.1 GiB free"; one that does not fit says by how much it is over.
std::string memoryUseText(const StepPrediction& prediction);
double memoryHeadroomBytes(const StepPrediction& prediction); // capacity - peak; negative when it does not fit

// progress(fraction 0..1) is called from the calling thread now and then; a set `cancel` stops the search early
// (the result holds what was found so far, cancelled = true). Throws InputError for a bare model or missing figures.
PlanResult planConfigurations(const Scenario& scenario, const PlannerOptions& options = {},
    const std::function<void(double)>& progress = {}, const std::atomic<bool>* cancel = nullptr);

// A layout runs a global batch when its micro-step is no larger than the batch and the batch rounded up to whole
// micro-steps (what the cost model runs) exceeds it by at most this share: a "4M-token" batch of 4,000,000 at 8,192
// tokens per sequence is 488.3 sequences, which every framework rounds; 5% keeps the comparison fair.
inline constexpr double kPlannedBatchTolerance = 0.05;
bool runsBatch(int64_t globalBatchTokens, int64_t tokensPerMicroStep);

// Why a plan has no configuration, in a sentence for every surface (CLI, sweep, Predict panel): no layout can run the
// global batch in whole micro-steps, or nothing fits in memory (a capitalised sentence without its full stop). Empty
// when the plan has configurations.
std::string whyNothingPlanned(const PlanResult& plan);
// When layouts that fit were left out as beyond physics, the sentence that says how many and why, for every surface
// (a capitalised sentence without its full stop); empty when none was.
std::string beyondPhysicsLeftOutNote(const PlanResult& plan);

// The scenario with a planned configuration applied (what "Apply" in the GUI does).
Scenario withConfig(const Scenario& scenario, const PlannedConfig& config);

// "2 HSDP replicas x FSDP 64 x TP 2, selective AC, micro-batch 2"; the data-parallel ranks named by the kind the
// scenario runs ("DDP 8", "ZeRO-1 8", "Megatron-FSDP 8").
std::string describeConfig(const PlannedConfig& config);
// A scenario's own layout in the same words (the report's current configuration beside the planner's best); throws
// InputError for a layout the GPU count does not divide.
std::string describeLayout(const Scenario& s);

} // namespace mfu
