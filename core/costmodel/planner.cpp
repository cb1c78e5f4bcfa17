#include "core/costmodel/planner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "core/costmodel/cost_model.h"
#include "core/costmodel/physical_bounds.h"
#include "core/costmodel/validation.h"
#include "core/number_format.h"
#include "core/scenario/parallelism_keys.h"
#include "core/scenario/scenario_facts.h"
#include "core/units.h"

namespace mfu {

namespace {

std::vector<int> divisorsOf(int n, int limit)
{
    std::vector<int> out;
    for (int d = 1; d <= n && d <= limit; ++d)
        if (n % d == 0)
            out.push_back(d);
    return out;
}

// Simpler layouts win ties: fewer and smaller model-parallel dimensions.
int complexity(const PlannedConfig& c)
{
    const auto& p = c.parallelism;
    return p.tp + p.pp * p.virtualStages + p.cp + p.ep + (p.expertTp > 1 ? p.expertTp : 0) + (p.embeddingStage ? 1 : 0)
        + static_cast<int>(c.activationCheckpointing) + (c.recomputeModules ? 1 : 0);
}

bool better(const PlannedConfig& a, const PlannedConfig& b)
{
    const double ta = a.prediction.tokensPerSec, tb = b.prediction.tokensPerSec;
    if (ta > tb * (1.0 + 1e-9))
        return true;
    if (tb > ta * (1.0 + 1e-9))
        return false;
    return complexity(a) < complexity(b);
}

void keepTop(std::vector<PlannedConfig>& top, const PlannedConfig& c, int topN)
{
    if (static_cast<int>(top.size()) >= topN && !better(c, top.back()))
        return;
    auto pos = std::find_if(top.begin(), top.end(), [&](const PlannedConfig& t) { return better(c, t); });
    top.insert(pos, c);
    if (static_cast<int>(top.size()) > topN)
        top.pop_back();
}

// Within the tolerance of the fastest, the simplest layout leads; the rest keep their order by throughput. Returns the
// fastest tokens/s, which may belong to a layout the top N leave out once the simpler ties rank first.
double rankTies(std::vector<PlannedConfig>& configs, double tolerance, int topN)
{
    if (configs.empty())
        return 0;
    double fastest = 0;
    for (const auto& c : configs)
        fastest = std::max(fastest, c.prediction.tokensPerSec);
    for (auto& c : configs)
        c.tiesWithBest = tolerance > 0 && c.prediction.tokensPerSec >= fastest * (1.0 - tolerance);
    std::stable_sort(configs.begin(), configs.end(), [](const PlannedConfig& a, const PlannedConfig& b) {
        if (a.tiesWithBest != b.tiesWithBest)
            return a.tiesWithBest;
        if (a.tiesWithBest && complexity(a) != complexity(b))
            return complexity(a) < complexity(b);
        return false;
    });
    if (static_cast<int>(configs.size()) > topN)
        configs.resize(static_cast<size_t>(topN));
    return fastest;
}

Scenario withLayout(const Scenario& s, const Parallelism& p)
{
    Scenario copy = s;
    copy.parallelism = p;
    return copy;
}

// The recompute modules the planner tries for MoE models under selective checkpointing, beside TorchTitan's op-level
// SAC: Megatron-Core's moe_act and layernorm, the cheap ones that free the most (docs/cost-model.md, "MoE").
constexpr unsigned kPlannedMoeRecomputeModules = RecomputeMoeActivation | RecomputeLayernorm;

// dataParallelFits: some layout without TP, PP or CP fits, so model parallelism is there for speed, not memory.
std::string reasonFor(const PlannedConfig& c, const PlannedConfig& best, double fastestTokensPerSec, const Scenario& s,
    double tolerance, bool dataParallelFits)
{
    const auto& p = c.parallelism;
    const int domain = s.cluster.domainSize();
    std::string r;
    if (p.tp == 1 && p.pp == 1 && p.cp == 1)
        r += "no tensor, pipeline or context parallelism: every GPU runs whole-width GEMMs as a data-parallel rank";
    else {
        r += "model parallelism";
        if (p.tp > 1)
            r += ": TP " + std::to_string(p.tp) + " inside one " + std::to_string(domain) + "-GPU domain";
        if (p.pp > 1)
            r += ", PP " + std::to_string(p.pp);
        if (p.cp > 1)
            r += ", CP " + std::to_string(p.cp);
        r += dataParallelFits ? " for speed, not memory (a layout without them fits too)" : " to fit memory";
    }
    const long long fsdpBlock = static_cast<long long>(c.fsdpShards) * p.cp * p.tp;
    if (p.hsdpReplicas > 1 && fsdpBlock <= domain)
        r += "; HSDP keeps FSDP all-gathers inside each domain and only all-reduces gradients across "
            + std::to_string(p.hsdpReplicas) + " replicas";
    else if (c.fsdpShards * p.cp > 1 && fsdpBlock > domain)
        r += "; FSDP spans " + std::to_string((fsdpBlock + domain - 1) / std::max(1, domain)) + " domains";
    if (p.ep > 1) {
        r += "; experts sharded " + std::to_string(p.ep) + "-way (EP)";
        r += p.expertTp > 1 ? ", each split over " + std::to_string(p.expertTp) + " expert-TP ranks"
                            : ", folded over the attention's ranks (expert TP 1)";
        r += std::string(
            expertParallelSpanOf(withLayout(s, p)) == "EP across nodes" ? ", across nodes" : ", inside a node");
    }
    if (p.embeddingStage)
        r += "; the embedding and the loss count as a layer of the first and last stages";
    r += "; " + std::string(activationCheckpointingKey(c.activationCheckpointing)) + " activation checkpointing";
    if (c.recomputeModules)
        r += " of " + recomputeModulesText(c.recomputeModules);
    r += "; uses " + formatGiB(c.prediction.memory.total(), 0) + " of "
        + formatGiB(c.prediction.memoryCapacityBytes, 0);
    if (&c != &best && best.prediction.tokensPerSec > 0) {
        const double gap = c.prediction.tokensPerSec / best.prediction.tokensPerSec - 1.0;
        r += "; " + formatPercent(std::abs(gap), 1) + (gap > 0 ? " above" : " below") + " the first";
    }
    if (c.tiesWithBest) {
        // The fastest itself is not "within the band of the fastest": say which it is.
        const bool isFastest = c.prediction.tokensPerSec >= fastestTokensPerSec;
        const bool ranksFirst = &c == &best;
        char buf[200];
        std::snprintf(buf, sizeof buf,
            isFastest && ranksFirst ? "; the fastest, and the simplest layout within the %.0f%% error band of it"
                : isFastest ? "; the fastest, but a simpler layout within the %.0f%% error band of it ranks first"
                            : "; within the %.0f%% error band of the fastest, so a tie: simpler layouts (less TP, PP, "
                              "CP, checkpointing) rank first",
            100.0 * tolerance);
        r += buf;
    }
    return r + ". " + bottleneckSentence(c.prediction);
}

} // namespace

PlanResult planConfigurations(const Scenario& scenario, const PlannerOptions& o,
    const std::function<void(double)>& progress, const std::atomic<bool>* cancel)
{
    const auto start = std::chrono::steady_clock::now();
    const CostModel model(scenario);
    Scenario s = scenario; // mutated in place: no allocation per evaluation
    const int gpus = scenario.cluster.gpuCount;
    const int domain = scenario.cluster.domainSize();
    const int64_t seq = scenario.workload.seqLen;
    PlanResult result;
    // Unset, the batch is one micro-batch of the scenario's size per GPU (tokensPerStep checks the product).
    result.globalBatchTokens = scenario.workload.globalBatchTokens > 0
        ? scenario.workload.globalBatchTokens
        : tokensPerStep(std::max<int64_t>(1, scenario.workload.microBatch), seq, 1, gpus);
    s.workload.globalBatchTokens = result.globalBatchTokens;
    result.seqLen = seq;
    result.gpuCount = gpus;
    // With ties, keep a deeper list so simpler layouts inside the band survive until they are re-ranked.
    const int keep = o.tieTolerance > 0 ? std::max(o.topN, 256) : o.topN;
    result.configs.reserve(static_cast<size_t>(keep) + 1);

    const std::vector<int> tps = divisorsOf(gpus, o.tpWithinDomain ? domain : gpus);
    const std::vector<int> pps = divisorsOf(gpus, std::min(o.maxPipelineStages, model.shape().layers));
    std::vector<ActivationCheckpointing> acs { scenario.activationCheckpointing };
    if (o.searchActivationCheckpointing)
        acs = { ActivationCheckpointing::None, ActivationCheckpointing::Selective, ActivationCheckpointing::Full };
    std::vector<int64_t> mbs { scenario.workload.microBatch };
    if (o.searchMicroBatch) {
        mbs.clear();
        for (int64_t m = 1; m <= o.maxMicroBatch; m *= 2)
            mbs.push_back(m);
    }
    const bool moe = model.shape().experts > 0;
    // Checkpointing choices: the modes, and for MoE models selective recompute of Megatron's modules too.
    struct Recompute {
        ActivationCheckpointing mode;
        unsigned modules;
    };
    std::vector<Recompute> recomputes;
    for (const ActivationCheckpointing ac : acs) {
        recomputes.push_back({ ac, ac == ActivationCheckpointing::Selective ? scenario.flags.recomputeModules : 0u });
        if (moe && ac == ActivationCheckpointing::Selective && o.searchActivationCheckpointing
            && scenario.flags.recomputeModules != kPlannedMoeRecomputeModules)
            recomputes.push_back({ ac, kPlannedMoeRecomputeModules });
    }
    const int layers = model.shape().layers;

    PlannedConfig candidate;
    bool dataParallelFits = false;
    const double outerTotal = static_cast<double>(tps.size() * pps.size());
    double outerDone = 0;
    for (int tp : tps) {
        if (o.fixedTp > 0 && tp != o.fixedTp)
            continue;
        for (int pp : pps) {
            if (cancel && cancel->load()) {
                result.cancelled = true;
                break;
            }
            if (progress)
                progress(outerDone / outerTotal);
            outerDone += 1;
            if (gpus % (tp * pp) != 0)
                continue;
            const int rest = gpus / (tp * pp);
            for (int cp : divisorsOf(rest, rest)) {
                if (seq % cp != 0 || (cp > 1 && seq / cp < o.minTokensPerCpRank))
                    continue;
                for (int replicas : divisorsOf(rest / cp, rest / cp)) {
                    if (o.fixedHsdpReplicas > 0 && replicas != o.fixedHsdpReplicas)
                        continue;
                    const int shards = rest / cp / replicas;
                    // MoE Parallel Folding: EP x expert TP drawn from the stage's tp x cp x data-parallel ranks, the
                    // experts whole (expert TP 1) or split like the attention (expert TP = TP, Megatron's default).
                    const int stageRanks = tp * cp * shards * replicas;
                    // (EP, Parallelism::expertTp): 0 is whole experts with EP (the attention's TP without).
                    std::vector<std::pair<int, int>> expertLayouts { { 1, 0 } };
                    if (moe) {
                        const int experts = static_cast<int>(model.shape().experts);
                        expertLayouts.clear();
                        for (const int ep : divisorsOf(stageRanks, experts))
                            if (experts % ep == 0)
                                expertLayouts.push_back({ ep, 0 });
                        if (tp > 1)
                            for (const int ep : divisorsOf(stageRanks / tp, experts))
                                if (ep > 1 && experts % ep == 0)
                                    expertLayouts.push_back({ ep, tp });
                    }
                    for (const auto& [ep, expertTp] : expertLayouts) {
                        // Uneven stages: the embedding and the loss counted in the split, beside the even split.
                        for (const bool unevenStages : { false, true }) {
                            if (unevenStages && pp == 1)
                                continue;
                            for (int v = 1; v <= (pp > 1 ? o.maxVirtualStages : 1); v *= 2) {
                                if (!unevenStages && static_cast<long long>(pp) * v > layers)
                                    continue;
                                Parallelism& p = s.parallelism;
                                p.tp = tp;
                                p.pp = pp;
                                p.cp = cp;
                                p.ep = ep;
                                p.expertTp = expertTp;
                                p.embeddingStage = unevenStages;
                                p.lossStage = unevenStages;
                                p.hsdpReplicas = replicas;
                                p.virtualStages = v;
                                p.schedule = v > 1 ? PipelineSchedule::Interleaved1F1B : scenario.parallelism.schedule;
                                for (const Recompute& rc : recomputes) {
                                    s.activationCheckpointing = rc.mode;
                                    s.flags.recomputeModules = rc.modules;
                                    for (int64_t mb : mbs) {
                                        s.workload.microBatch = mb;
                                        if (const char* invalid = model.invalidReason(s)) {
                                            if (!result.firstInvalidReason) {
                                                result.firstInvalidReason = invalid;
                                                result.firstInvalidText = model.invalidReasonText(s).value_or(invalid);
                                            }
                                            continue;
                                        }
                                        // Every layout is compared at (nearly) the same batch: one that rounds it up to
                                        // whole micro-steps by more than kPlannedBatchTolerance would run a larger one,
                                        // and larger micro-batches run faster, so it would win on a batch it was not
                                        // asked for.
                                        if (!runsBatch(result.globalBatchTokens, tokensPerMicroStep(s))) {
                                            ++result.offBatch;
                                            continue;
                                        }
                                        ++result.evaluated;
                                        candidate.prediction = model.evaluateValid(s);
                                        if (!candidate.prediction.fits || isBeyondPhysics(candidate.prediction, s))
                                            continue;
                                        ++result.fitting;
                                        dataParallelFits = dataParallelFits || (tp == 1 && pp == 1 && cp == 1);
                                        candidate.parallelism = p;
                                        candidate.microBatch = mb;
                                        candidate.activationCheckpointing = rc.mode;
                                        candidate.recomputeModules = rc.modules;
                                        candidate.fsdpShards = shards;
                                        keepTop(result.configs, candidate, keep);
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        if (result.cancelled)
            break;
    }
    const double fastest = rankTies(result.configs, o.tieTolerance, o.topN);
    for (auto& c : result.configs)
        c.reason = reasonFor(c, result.configs.front(), fastest, s, o.tieTolerance, dataParallelFits);
    if (progress && !result.cancelled)
        progress(1.0);
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

bool runsBatch(int64_t globalBatchTokens, int64_t tokensPerMicroStep)
{
    if (globalBatchTokens <= 0 || tokensPerMicroStep <= 0 || tokensPerMicroStep > globalBatchTokens)
        return false;
    const int64_t steps = microStepsForBatch(globalBatchTokens, tokensPerMicroStep);
    return static_cast<double>(steps) * static_cast<double>(tokensPerMicroStep)
        <= static_cast<double>(globalBatchTokens) * (1.0 + kPlannedBatchTolerance);
}

std::string whyNothingPlanned(const PlanResult& plan)
{
    if (!plan.configs.empty())
        return {};
    if (plan.cancelled)
        return "The search was cancelled before a layout was found";
    if (plan.evaluated == 0 && plan.offBatch > 0)
        return "No layout runs a global batch of " + formatNumber(double(plan.globalBatchTokens))
            + " tokens in whole micro-steps (micro-batch x " + formatNumber(double(plan.seqLen))
            + " tokens x data-parallel ranks, within " + formatPercent(kPlannedBatchTolerance) + "); use a multiple of "
            + formatNumber(double(plan.seqLen) * plan.gpuCount) + " tokens";
    if (plan.evaluated == 0 && plan.firstInvalidReason)
        return "No layout can be laid out: "
            + (plan.firstInvalidText.empty() ? std::string(plan.firstInvalidReason) : plan.firstInvalidText);
    return "Nothing fits in memory: add GPUs, shorten the sequence or pick a GPU with more memory";
}

Scenario withConfig(const Scenario& scenario, const PlannedConfig& config)
{
    Scenario s = scenario;
    s.parallelism = config.parallelism;
    s.workload.microBatch = config.microBatch;
    s.activationCheckpointing = config.activationCheckpointing;
    s.flags.recomputeModules = config.recomputeModules;
    return s;
}

std::string describeConfig(const PlannedConfig& c)
{
    const auto& p = c.parallelism;
    std::string d;
    if (p.hsdpReplicas > 1)
        d += std::to_string(p.hsdpReplicas) + " HSDP replicas x ";
    d += "FSDP " + std::to_string(c.fsdpShards);
    if (p.tp > 1)
        d += " x TP " + std::to_string(p.tp);
    if (p.pp > 1)
        d += " x PP " + std::to_string(p.pp)
            + (p.virtualStages > 1 ? " (" + std::to_string(p.virtualStages) + " virtual)" : "");
    if (p.cp > 1)
        d += " x CP " + std::to_string(p.cp);
    if (p.ep > 1)
        d += ", EP " + std::to_string(p.ep) + (p.expertTp > 1 ? " x expert TP " + std::to_string(p.expertTp) : "");
    if (p.embeddingStage)
        d += ", embedding and loss in the split";
    d += ", " + std::string(activationCheckpointingKey(c.activationCheckpointing)) + " AC";
    if (c.recomputeModules)
        d += " (" + recomputeModulesText(c.recomputeModules) + ")";
    d += ", micro-batch " + std::to_string(c.microBatch);
    return d;
}

} // namespace mfu
