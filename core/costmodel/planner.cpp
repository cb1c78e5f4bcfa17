#include "core/costmodel/planner.h"

#include <algorithm>
#include <array>
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

// The data-parallel ranks' kind as a planner row names it.
std::string dataParallelName(DataParallelKind kind)
{
    switch (kind) {
    case DataParallelKind::Fsdp:
        return "FSDP";
    case DataParallelKind::MegatronFsdp:
        return "Megatron-FSDP";
    case DataParallelKind::Zero1:
        return "ZeRO-1";
    case DataParallelKind::Ddp:
        return "DDP";
    }
    return "FSDP";
}

std::vector<int> divisorsOf(int n, int limit)
{
    std::vector<int> out;
    for (int d = 1; d <= n && d <= limit; ++d)
        if (n % d == 0)
            out.push_back(d);
    return out;
}

// The keys of plannerRankingRule among ties, in its order: each a "less is simpler" figure.
// 0. memory under kTightMemoryFraction free: a layout that uses (nearly) every byte is one allocator fragment from an
//    out-of-memory error, which the predicted peak does not allow for;
// 1. GPUs in the model-parallel group (TP x PP x CP): every one adds collectives or a bubble on the critical path;
// 2. activation recomputation (none, selective, full): work done twice;
// 3. expert-parallel ranks (EP x expert TP): all-to-alls;
// 4. pipeline chunks (virtual stages, the embedding and loss in the split): schedule complexity;
// then the larger memory headroom (a prediction's memory has an error too), then the faster.
struct TieKey {
    std::array<long long, 5> simplicity {}; // the rule's keys, in its order: less is simpler
    double headroomTenths = 0; // memory headroom in the tenths of a GiB memoryUseText prints: what reads the same ties
    double tokensPerSec = 0;
};

TieKey tieKeyOf(const Parallelism& p, ActivationCheckpointing ac, unsigned recomputeModules, double headroomBytes,
    double capacityBytes, double tokensPerSec)
{
    return { { headroomBytes < kTightMemoryFraction * capacityBytes ? 1 : 0, static_cast<long long>(p.tp) * p.pp * p.cp,
                 static_cast<long long>(ac) * 2 + (recomputeModules ? 1 : 0),
                 static_cast<long long>(p.ep) * std::max(1, p.expertTp),
                 static_cast<long long>(p.virtualStages) + (p.embeddingStage ? 1 : 0) },
        std::floor(headroomBytes / kGiB * 10), tokensPerSec };
}

TieKey tieKeyOf(const PlannedConfig& c)
{
    return tieKeyOf(c.parallelism, c.activationCheckpointing, c.recomputeModules, memoryHeadroomBytes(c.prediction),
        c.prediction.memoryCapacityBytes, c.prediction.tokensPerSec);
}

bool simplerTie(const TieKey& a, const TieKey& b)
{
    if (a.simplicity != b.simplicity)
        return a.simplicity < b.simplicity;
    if (a.headroomTenths != b.headroomTenths)
        return a.headroomTenths > b.headroomTenths;
    return a.tokensPerSec > b.tokensPerSec;
}

bool simplerTie(const PlannedConfig& a, const PlannedConfig& b)
{
    return simplerTie(tieKeyOf(a), tieKeyOf(b));
}

// A fitting layout within the band of the fastest found so far, kept small (every one is kept, not only the fastest
// few, so that the simplest ties are found however many faster layouts there are); predicted again when it ranks.
struct TieCandidate {
    Parallelism parallelism;
    int64_t microBatch = 1;
    ActivationCheckpointing activationCheckpointing = ActivationCheckpointing::None;
    unsigned recomputeModules = 0;
    int fsdpShards = 1;
    TieKey key;
};

bool better(const PlannedConfig& a, const PlannedConfig& b)
{
    const double ta = a.prediction.tokensPerSec, tb = b.prediction.tokensPerSec;
    if (ta > tb * (1.0 + 1e-9))
        return true;
    if (tb > ta * (1.0 + 1e-9))
        return false;
    return simplerTie(a, b); // the same speed: the simpler first, as among ties
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

// The first topN: the ties (within the tolerance of the fastest, every fitting layout considered) ranked by
// simplerTie, then the fastest of the rest. `fastestList` holds the topN fastest configurations; `ties` every layout
// that was within the band of the fastest when it was found. Returns the fastest tokens/s.
double rankTies(std::vector<PlannedConfig>& fastestList, std::vector<TieCandidate>& ties, double tolerance, int topN,
    const CostModel& model, Scenario& s)
{
    if (fastestList.empty())
        return 0;
    const double fastest = fastestList.front().prediction.tokensPerSec;
    const double threshold = fastest * (1.0 - tolerance);
    std::vector<PlannedConfig> out;
    if (tolerance > 0) {
        std::erase_if(ties, [threshold](const TieCandidate& t) { return t.key.tokensPerSec < threshold; });
        const size_t n = std::min(ties.size(), static_cast<size_t>(topN));
        std::partial_sort(ties.begin(), ties.begin() + static_cast<std::ptrdiff_t>(n), ties.end(),
            [](const TieCandidate& a, const TieCandidate& b) { return simplerTie(a.key, b.key); });
        for (size_t i = 0; i < n; ++i) {
            const TieCandidate& t = ties[i];
            PlannedConfig c;
            c.parallelism = t.parallelism;
            c.microBatch = t.microBatch;
            c.activationCheckpointing = t.activationCheckpointing;
            c.recomputeModules = t.recomputeModules;
            c.fsdpShards = t.fsdpShards;
            s.parallelism = t.parallelism;
            s.workload.microBatch = t.microBatch;
            s.activationCheckpointing = t.activationCheckpointing;
            s.flags.recomputeModules = t.recomputeModules;
            c.prediction = model.evaluateValid(s); // the same figures it was kept with
            c.tiesWithBest = true;
            out.push_back(std::move(c));
        }
    }
    for (auto& c : fastestList) {
        if (static_cast<int>(out.size()) >= topN)
            break;
        if (tolerance > 0 && c.prediction.tokensPerSec >= threshold)
            continue; // a tie: already ranked above
        out.push_back(std::move(c));
    }
    fastestList = std::move(out);
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

// How a layout's checkpointing reads, after `noun` ("AC", "activation checkpointing"): "no AC", "selective AC".
std::string checkpointingPhrase(ActivationCheckpointing ac, const char* noun)
{
    return (ac == ActivationCheckpointing::None ? std::string("no") : std::string(activationCheckpointingKey(ac))) + " "
        + noun;
}

// dataParallelFits: some layout without TP, PP or CP fits, so model parallelism is there for speed, not memory.
std::string reasonFor(const PlannedConfig& c, const PlannedConfig& best, double fastestTokensPerSec, const Scenario& s,
    double tolerance, bool dataParallelFits)
{
    const auto& p = c.parallelism;
    const int domain = s.cluster.domainSize();
    std::string r;
    if (p.tp == 1 && p.pp == 1 && p.cp == 1)
        r += s.cluster.gpuCount == 1
            ? "no parallelism: the one GPU runs whole-width GEMMs"
            : "no tensor, pipeline or context parallelism: every GPU runs whole-width GEMMs as a data-parallel rank";
    else {
        std::vector<std::string> parts;
        if (p.tp > 1)
            parts.push_back("TP " + std::to_string(p.tp) + " inside one " + std::to_string(domain) + "-GPU domain");
        if (p.pp > 1)
            parts.push_back("PP " + std::to_string(p.pp));
        if (p.cp > 1)
            parts.push_back("CP " + std::to_string(p.cp));
        r += "model parallelism:";
        for (size_t i = 0; i < parts.size(); ++i)
            r += (i == 0 ? " " : ", ") + parts[i];
        r += dataParallelFits ? " for speed, not memory (a layout without them fits too)" : " to fit memory";
    }
    const long long fsdpBlock = static_cast<long long>(c.fsdpShards) * p.cp * p.tp;
    if (p.hsdpReplicas > 1 && fsdpBlock <= domain)
        r += "; HSDP keeps FSDP all-gathers inside each domain and only all-reduces gradients across "
            + std::to_string(p.hsdpReplicas) + " replicas";
    else if (c.fsdpShards * p.cp > 1 && fsdpBlock > domain)
        r += "; " + dataParallelName(p.dataParallel) + " spans "
            + std::to_string((fsdpBlock + domain - 1) / std::max(1, domain)) + " domains";
    if (p.ep > 1) {
        r += "; experts sharded " + std::to_string(p.ep) + "-way (EP)";
        r += p.expertTp > 1 ? ", each split over " + std::to_string(p.expertTp) + " expert-TP ranks"
                            : ", folded over the attention's ranks (expert TP 1)";
        // The scale-up domain, not "a node": a GB200 NVL72's 72 GPUs are one domain of 18 nodes.
        r += expertParallelSpanOf(withLayout(s, p)) == "EP across nodes"
            ? ", across " + std::to_string(domain) + "-GPU domains"
            : ", inside one " + std::to_string(domain) + "-GPU domain";
    }
    if (p.embeddingStage)
        r += "; the embedding and the loss count as a layer of the first and last stages";
    r += "; " + checkpointingPhrase(c.activationCheckpointing, "activation checkpointing");
    if (c.recomputeModules)
        r += " of " + recomputeModulesText(c.recomputeModules);
    r += "; uses " + memoryUseText(c.prediction);
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
                            : "; within the %.0f%% error band of the fastest, so a tie ranked by simplicity",
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
    result.formula = flopFormulaFor(scenario.model, scenario.mfuFormula);
    result.gpuCount = gpus;
    const int keep = o.topN;
    result.configs.reserve(static_cast<size_t>(keep) + 1);
    // With a tolerance, every fitting layout within the band of the fastest so far, pruned as the fastest rises (a
    // layout below the band stays below it): the simplest ties may be far down a list ranked by speed.
    std::vector<TieCandidate> ties;
    double runningFastest = 0;
    size_t pruneAt = 4096;

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
                // HSDP replicates a sharded group; ranks that hold whole weights (DDP, ZeRO-1) have no group to
                // replicate, and searching replicas for them listed one layout under several names.
                const bool sharded = shardsWeights(scenario.parallelism.dataParallel);
                for (int replicas : sharded ? divisorsOf(rest / cp, rest / cp) : std::vector<int> { 1 }) {
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
                                        if (!candidate.prediction.fits)
                                            continue;
                                        if (isBeyondPhysics(candidate.prediction, s)) {
                                            ++result.beyondPhysics;
                                            continue;
                                        }
                                        ++result.fitting;
                                        dataParallelFits = dataParallelFits || (tp == 1 && pp == 1 && cp == 1);
                                        candidate.parallelism = p;
                                        candidate.microBatch = mb;
                                        candidate.activationCheckpointing = rc.mode;
                                        candidate.recomputeModules = rc.modules;
                                        candidate.fsdpShards = shards;
                                        keepTop(result.configs, candidate, keep);
                                        if (o.tieTolerance > 0) {
                                            const double speed = candidate.prediction.tokensPerSec;
                                            runningFastest = std::max(runningFastest, speed);
                                            if (speed >= runningFastest * (1.0 - o.tieTolerance))
                                                ties.push_back({ p, mb, rc.mode, rc.modules, shards,
                                                    tieKeyOf(p, rc.mode, rc.modules,
                                                        memoryHeadroomBytes(candidate.prediction),
                                                        candidate.prediction.memoryCapacityBytes, speed) });
                                            if (ties.size() >= pruneAt) {
                                                const double below = runningFastest * (1.0 - o.tieTolerance);
                                                std::erase_if(ties, [below](const TieCandidate& t) {
                                                    return t.key.tokensPerSec < below;
                                                });
                                                pruneAt = std::max<size_t>(4096, 2 * ties.size());
                                            }
                                        }
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
    const double fastest = rankTies(result.configs, ties, o.tieTolerance, o.topN, model, s);
    for (auto& c : result.configs)
        c.reason = reasonFor(c, result.configs.front(), fastest, s, o.tieTolerance, dataParallelFits);
    if (progress && !result.cancelled)
        progress(1.0);
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

std::string plannerRankingRule(double tolerance)
{
    if (!(tolerance > 0))
        return "Ranked by predicted tokens/s alone.";
    // The tolerance is the similar runs' band (plannerTieTolerance), not the one a barely validated class widens it
    // to: a class's bias moves every layout alike, so it is said apart from the ranking (e.g. "+-47%" beside 13%).
    return "Layouts within " + formatPercent(tolerance, 0)
        + " of the fastest (the error band of similar published runs; a class's wider band moves every layout alike) "
          "are ties, ranked simplest first: those that leave at least "
        + formatPercent(kTightMemoryFraction, 0)
        + " of the GPU's memory free, then the fewest GPUs in the model-parallel group "
          "(TP x PP x CP), then the least activation recomputation (none, selective, full), then the fewest "
          "expert-parallel ranks, then the fewest pipeline chunks, then the most memory headroom, then the faster. "
          "The rest follow by predicted tokens/s.";
}

std::string planOrderNote(const PlanResult& plan, double tolerance)
{
    if (plan.configs.size() < 2 || !(tolerance > 0))
        return {};
    for (const auto& c : plan.configs)
        if (!c.tiesWithBest)
            return {};
    return "All " + std::to_string(plan.configs.size()) + " layouts shown lie within the " + formatPercent(tolerance, 0)
        + " error band of the fastest: the prediction cannot tell them apart, so their order is the ranking rule's, "
          "not a ranking by speed; measure the first few before choosing";
}

double memoryHeadroomBytes(const StepPrediction& p)
{
    return p.memoryCapacityBytes - p.memory.total();
}

std::string memoryUseText(const StepPrediction& p)
{
    // One decimal on both figures: rounding is monotonic, so a peak at or below the capacity never prints above it.
    std::string out = formatNumber(p.memory.total() / kGiB, 1) + " of " + formatGiB(p.memoryCapacityBytes, 1);
    const double headroom = memoryHeadroomBytes(p);
    if (headroom < 0)
        return out + ", " + formatGiB(-headroom, 1) + " over";
    // Rounded down: the headroom is never said to be larger than it is.
    const double tenths = std::floor(headroom / kGiB * 10.0) / 10.0;
    return out + ", " + (tenths < 0.1 ? std::string("under 0.1 GiB") : formatNumber(tenths, 1) + " GiB") + " free";
}

bool runsBatch(int64_t globalBatchTokens, int64_t tokensPerMicroStep)
{
    if (globalBatchTokens <= 0 || tokensPerMicroStep <= 0 || tokensPerMicroStep > globalBatchTokens)
        return false;
    const int64_t steps = microStepsForBatch(globalBatchTokens, tokensPerMicroStep);
    return static_cast<double>(steps) * static_cast<double>(tokensPerMicroStep)
        <= static_cast<double>(globalBatchTokens) * (1.0 + kPlannedBatchTolerance);
}

std::string beyondPhysicsLeftOutNote(const PlanResult& plan)
{
    if (plan.beyondPhysics == 0)
        return {};
    const bool one = plan.beyondPhysics == 1;
    return formatNumber(double(plan.beyondPhysics)) + (one ? " layout that fits was" : " layouts that fit were")
        + " left out: under " + std::string(flopFormulaShortName(plan.formula)) + (one ? " its" : " their")
        + " MFU would pass 100% (the count charges attention the kernels skip), so "
        + (one ? "it may be the fastest" : "the fastest may be among them")
        + "; count with per_layer or per_component_causal to rank every layout";
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
    if (plan.beyondPhysics > 0)
        return beyondPhysicsLeftOutNote(plan);
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

namespace {

// The data-parallel ranks of a layout as its kind runs them: "FSDP 8", "2 HSDP replicas x FSDP 4", "ZeRO-1 8",
// "DDP 8"; empty for one rank. One shard is no sharding: "FSDP 1" named a data parallelism a lone GPU or an all-TP
// group does not run.
std::string dataParallelPhrase(DataParallelKind kind, int shards, int replicas)
{
    const std::string name = dataParallelName(kind) + " ";
    if (!shardsWeights(kind)) {
        const int ranks = shards * replicas;
        return ranks > 1 ? name + std::to_string(ranks) : std::string();
    }
    if (replicas > 1)
        return std::to_string(replicas) + " HSDP replicas x " + name + std::to_string(shards);
    return shards > 1 ? name + std::to_string(shards) : std::string();
}

} // namespace

std::string describeConfig(const PlannedConfig& c)
{
    const auto& p = c.parallelism;
    std::string d = dataParallelPhrase(p.dataParallel, c.fsdpShards, p.hsdpReplicas);
    const auto join = [&d](const std::string& part) { d += (d.empty() ? "" : " x ") + part; };
    if (p.tp > 1)
        join("TP " + std::to_string(p.tp));
    if (p.pp > 1)
        join("PP " + std::to_string(p.pp)
            + (p.virtualStages > 1 ? " (" + std::to_string(p.virtualStages) + " virtual)" : ""));
    if (p.cp > 1)
        join("CP " + std::to_string(p.cp));
    if (d.empty())
        d = "one GPU, no parallelism";
    if (p.ep > 1)
        d += ", EP " + std::to_string(p.ep) + (p.expertTp > 1 ? " x expert TP " + std::to_string(p.expertTp) : "");
    if (p.embeddingStage)
        d += ", embedding and loss in the split";
    d += ", " + checkpointingPhrase(c.activationCheckpointing, "AC");
    if (c.recomputeModules)
        d += " (" + recomputeModulesText(c.recomputeModules) + ")";
    d += ", micro-batch " + std::to_string(c.microBatch);
    return d;
}

std::string describeLayout(const Scenario& s)
{
    PlannedConfig c;
    c.parallelism = s.parallelism;
    c.microBatch = s.workload.microBatch;
    c.activationCheckpointing = s.activationCheckpointing;
    c.recomputeModules
        = s.activationCheckpointing == ActivationCheckpointing::Selective ? s.flags.recomputeModules : 0u;
    c.fsdpShards = std::max(1, dataParallelRanks(s) / std::max(1, s.parallelism.hsdpReplicas));
    return describeConfig(c);
}

} // namespace mfu
