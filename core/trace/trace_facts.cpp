#include "core/trace/trace_facts.h"

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "core/trace/analysis.h"
#include "core/trace/op_flops.h"
#include "core/trace/steps.h"

namespace mfu::trace {

bool isEmbeddingLookup(std::string_view name)
{
    if (name == "aten::embedding")
        return true;
    return isInductorKernel(name) && name.find("embedding") != std::string_view::npos
        && name.find("backward") == std::string_view::npos;
}

namespace {

struct Interval {
    int64_t startNs;
    int64_t endNs;
};

// Per host thread, the operators that run a backward pass (autograd's evaluate_function: ...Backward,
// CompiledFunctionBackward, CheckpointFunctionBackward): a forward lookup inside one is a recomputation.
std::map<int32_t, std::vector<Interval>> backwardRegions(const Timeline& t)
{
    std::vector<int8_t> isBackward(t.names.size(), -1); // per name: unknown, no, yes
    std::map<int32_t, std::vector<Interval>> out;
    for (const CpuOp& op : t.cpuOps) {
        int8_t& known = isBackward[op.name];
        if (known < 0)
            known = t.names.name(op.name).find("Backward") != std::string::npos ? 1 : 0;
        if (known)
            out[op.thread].push_back({ op.startNs, op.endNs });
    }
    return out; // each thread's in start order: cpuOps are
}

bool inside(const std::vector<Interval>& regions, int64_t ns)
{
    // Regions nest and overlap; any that starts at or before ns and ends after it holds it.
    auto end = std::upper_bound(
        regions.begin(), regions.end(), ns, [](int64_t v, const Interval& i) { return v < i.startNs; });
    for (auto it = regions.begin(); it != end; ++it)
        if (it->endNs > ns)
            return true;
    return false;
}

} // namespace

std::optional<RecordedTokens> recordedTokens(const Timeline& t, const StepPlan& plan)
{
    if (plan.source != StepSource::CpuAnnotation || t.embeddingLookups.empty())
        return std::nullopt;
    const auto backward = backwardRegions(t);
    struct StepTokens {
        int64_t tokens = 0;
        int64_t lookups = 0;
        int64_t perLookup = 0;
        int64_t rows = 0;
        int64_t columns = 0;
    };
    std::vector<StepTokens> counted;
    for (const Step& step : plan.steps) {
        std::vector<const EmbeddingLookup*> in;
        for (const EmbeddingLookup& l : t.embeddingLookups) {
            if (l.startNs < step.annotationStartNs || l.startNs >= step.annotationEndNs)
                continue;
            if (const auto b = backward.find(l.thread); b != backward.end() && inside(b->second, l.startNs))
                continue;
            in.push_back(&l);
        }
        if (in.empty())
            continue;
        // The token embedding: the largest table, then the most ids (a position table is smaller, its ids fewer).
        const auto best = *std::max_element(in.begin(), in.end(), [](const auto* a, const auto* b) {
            return a->tableRows != b->tableRows ? a->tableRows < b->tableRows : a->tokens < b->tokens;
        });
        StepTokens s;
        s.perLookup = best->tokens;
        s.rows = best->rows;
        s.columns = best->columns;
        for (const EmbeddingLookup* l : in)
            if (l->tableRows == best->tableRows && l->tokens == best->tokens) {
                s.tokens += l->tokens;
                ++s.lookups;
            }
        counted.push_back(s);
    }
    if (counted.empty())
        return std::nullopt;
    std::vector<StepTokens> sorted = counted;
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.tokens < b.tokens; });
    const StepTokens& median = sorted[(sorted.size() - 1) / 2]; // the lower median: a step that ran
    RecordedTokens r;
    r.perStep = static_cast<double>(median.tokens);
    r.perMicroStep = median.perLookup;
    r.microSteps = median.lookups;
    r.seqLen = median.columns;
    r.microBatch = median.rows;
    r.stepsCounted = static_cast<int>(counted.size());
    r.varies = sorted.front().tokens != sorted.back().tokens;
    return r;
}

std::optional<ExecutionMode> executionModeOf(const std::vector<RankAnalysis>& ranks)
{
    int64_t allNs = 0, inductorNs = 0, inductorCalls = 0;
    for (const RankAnalysis& r : ranks)
        for (const KernelStat& k : r.kernels) {
            if (k.category != KernelCategory::Elementwise && k.category != KernelCategory::Normalization
                && k.category != KernelCategory::SoftmaxLoss)
                continue;
            allNs += k.totalNs;
            if (isInductorKernel(k.name)) {
                inductorNs += k.totalNs;
                inductorCalls += k.count;
            }
        }
    if (allNs <= 0)
        return std::nullopt;
    ExecutionMode m;
    m.inductorShare = static_cast<double>(inductorNs) / static_cast<double>(allNs);
    m.inductorKernelCalls = inductorCalls;
    m.compiled = m.inductorShare >= kCompiledInductorShare;
    return m;
}

std::string executionModeLabel(bool compiled)
{
    return compiled ? "compiled (torch.compile)" : "eager";
}

namespace {

// Half or more of the matrix work the shapes count ran in BF16 or FP16: a run whose weights could be 16-bit (an FP32
// or TF32 run casts nothing and is no 16-bit one; an FP8 run's weights are another question).
bool sixteenBitGemms(const OpFlops& f)
{
    double all = 0, sixteen = 0;
    for (const PrecisionFlops& p : f.byPrecision) {
        all += p.flops;
        if (p.known && (p.precision.format == NumberFormat::BF16 || p.precision.format == NumberFormat::FP16))
            sixteen += p.flops;
    }
    return all > 0 && sixteen >= 0.5 * all;
}

} // namespace

std::optional<bool> ranUnderAutocast(const RankAnalysis& r)
{
    if (!r.fp32MatrixCasts)
        return std::nullopt;
    if (castsWeightsEveryStep(*r.fp32MatrixCasts))
        return true;
    if (castsNoWeight(*r.fp32MatrixCasts) && r.opFlops.shapesReachMatrixKernels() && sixteenBitGemms(r.opFlops))
        return false;
    return std::nullopt;
}

TraceFacts traceFacts(const RunAnalysis& run)
{
    TraceFacts f;
    for (const RankAnalysis& r : run.ranks)
        if (r.recordedTokens) {
            f.tokens = r.recordedTokens;
            break;
        }
    const bool singleProcess = run.ranks.size() == 1 && (!run.ranks[0].worldSize || *run.ranks[0].worldSize == 1);
    if (f.tokens && singleProcess)
        f.tokensPerStep = f.tokens->perStep;
    f.execution = executionModeOf(run.ranks);
    // Every rank that can tell must agree: ranks of one job run one program, and two answers mean the trace cannot
    // say which the scenario should state.
    bool disagree = false;
    for (const RankAnalysis& r : run.ranks)
        if (const auto autocast = ranUnderAutocast(r)) {
            disagree = disagree || (f.autocast && *f.autocast != *autocast);
            if (!f.autocast) {
                f.casts = r.fp32MatrixCasts;
                f.autocast = autocast;
            }
        }
    if (disagree) {
        f.autocast.reset();
        f.casts.reset();
    }
    return f;
}

namespace {

nlohmann::json orNull(const std::optional<RecordedTokens>& t, auto field)
{
    return t ? nlohmann::json(field(*t)) : nlohmann::json(nullptr);
}

} // namespace

void addTraceFactsJson(nlohmann::json& j, const RankAnalysis& r)
{
    const auto& t = r.recordedTokens;
    j["tokens_per_step_recorded"] = orNull(t, [](const RecordedTokens& x) { return x.perStep; });
    j["tokens_per_micro_step_recorded"] = orNull(t, [](const RecordedTokens& x) { return x.perMicroStep; });
    j["micro_steps_recorded"] = orNull(t, [](const RecordedTokens& x) { return x.microSteps; });
    j["seq_len_recorded"] = orNull(t, [](const RecordedTokens& x) { return x.seqLen; });
    j["micro_batch_recorded"] = orNull(t, [](const RecordedTokens& x) { return x.microBatch; });
    const auto mode = executionModeOf({ r });
    j["compiled"] = mode ? nlohmann::json(mode->compiled) : nlohmann::json(nullptr);
    j["compiled_share"] = mode ? nlohmann::json(mode->inductorShare) : nlohmann::json(nullptr);
    const auto& casts = r.fp32MatrixCasts;
    j["fp32_matrix_casts_per_step"] = casts ? nlohmann::json(casts->perStep) : nlohmann::json(nullptr);
    const auto autocast = ranUnderAutocast(r);
    j["autocast"] = autocast ? nlohmann::json(*autocast) : nlohmann::json(nullptr);
}

void addRunTraceFactsJson(nlohmann::json& j, const RunAnalysis& run)
{
    const TraceFacts f = traceFacts(run);
    j["tokens_per_step_recorded"] = f.tokensPerStep ? nlohmann::json(*f.tokensPerStep) : nlohmann::json(nullptr);
    j["compiled"] = f.execution ? nlohmann::json(f.execution->compiled) : nlohmann::json(nullptr);
    j["autocast"] = f.autocast ? nlohmann::json(*f.autocast) : nlohmann::json(nullptr);
}

nlohmann::json recordedTokensToJson(const std::optional<RecordedTokens>& t)
{
    if (!t)
        return nullptr;
    return { { "per_step", t->perStep }, { "per_micro_step", t->perMicroStep }, { "micro_steps", t->microSteps },
        { "seq_len", t->seqLen }, { "micro_batch", t->microBatch }, { "steps_counted", t->stepsCounted },
        { "varies", t->varies } };
}

nlohmann::json fp32MatrixCastsToJson(const std::optional<Fp32MatrixCasts>& c)
{
    if (!c)
        return nullptr;
    return { { "per_step", c->perStep }, { "shapes", c->shapes }, { "rows", c->rows }, { "columns", c->columns },
        { "steps_counted", c->stepsCounted }, { "casts_read", c->castsRead } };
}

} // namespace mfu::trace
