#include "core/costmodel/levers.h"

#include <algorithm>
#include <exception>

#include "core/costmodel/compute_terms.h"
#include "core/costmodel/cost_model.h"
#include "core/costmodel/physical_bounds.h"
#include "core/errors.h"
#include "core/model/precision.h"
#include "core/scenario/scenario_facts.h"

namespace mfu {

namespace {

// `degree`: the EP the expert-parallelism lever sets when pulled.
void pull(Scenario& s, Lever lever, bool on, int degree)
{
    switch (lever) {
    case Lever::RemovePadding:
        // Pulled: the padding is gone. Released: the scenario's own padding (the lever only applies when it has one).
        if (on)
            s.workload.packing.paddingFraction = 0;
        return;
    case Lever::DocumentMasking:
        s.workload.packing.attention = on ? PackedAttention::PerDocument : PackedAttention::WholeSequence;
        return;
    case Lever::FusedLinearCrossEntropy:
        s.flags.fusedLinearCrossEntropy = on;
        return;
    case Lever::FusedNormActivation:
        s.flags.fusedNormActivation = on;
        return;
    case Lever::FusedExpertMlp:
        s.flags.fusedExpertMlp = on;
        return;
    case Lever::MoePermuteFusion:
        s.flags.moePermuteFusion = on;
        return;
    case Lever::Fp8ParamGather:
        s.flags.fp8ParamGather = on;
        return;
    case Lever::QuantizedWeightCache:
        s.flags.quantizedWeightCache = on;
        return;
    case Lever::OverlapGradReduce:
        s.flags.overlapGradReduce = on;
        return;
    case Lever::OverlapParamGather:
        s.flags.overlapParamGather = on;
        return;
    case Lever::ExpertParallelism:
        s.parallelism.ep = on ? degree : 1;
        if (!on && s.parallelism.expertTp > 1)
            s.parallelism.expertTp = 0; // the experts then follow the dense layers' TP, as without EP
        return;
    }
}

bool pulled(const Scenario& s, Lever lever)
{
    switch (lever) {
    case Lever::RemovePadding:
        return !s.workload.packing.padded();
    case Lever::DocumentMasking:
        return s.workload.packing.attention == PackedAttention::PerDocument;
    case Lever::FusedLinearCrossEntropy:
        return s.flags.fusedLinearCrossEntropy;
    case Lever::FusedNormActivation:
        return s.flags.fusedNormActivation;
    case Lever::FusedExpertMlp:
        return s.flags.fusedExpertMlp;
    case Lever::MoePermuteFusion:
        return s.flags.moePermuteFusion;
    case Lever::Fp8ParamGather:
        return s.flags.fp8ParamGather;
    case Lever::QuantizedWeightCache:
        return s.flags.quantizedWeightCache;
    case Lever::OverlapGradReduce:
        return s.flags.overlapGradReduce;
    case Lever::OverlapParamGather:
        return s.flags.overlapParamGather;
    case Lever::ExpertParallelism:
        return s.parallelism.ep > 1;
    }
    return false;
}

// DDP and ZeRO-1 over more than one data-parallel rank (context-parallel ranks reduce with them): the whole
// gradients synchronised once a step, which the overlap levers hide.
bool syncsWholeGradients(const Scenario& s)
{
    if (shardsWeights(s.parallelism.dataParallel) || parallelLayoutError(s))
        return false;
    return static_cast<long long>(dataParallelRanks(s)) * s.parallelism.cp > 1;
}

LeverOutcome outcomeOf(const CostModel& model, const Scenario& s)
{
    if (const auto reason = model.invalidReasonText(s))
        throw InputError("cost model: " + *reason);
    const StepPrediction p = model.evaluateValid(s);
    LeverOutcome o;
    if (!isBeyondPhysics(p, s)) { // an MFU the count cannot support is not given; the throughput still compares
        o.mfu = p.mfu;
        o.hfu = p.hfu;
    }
    o.usefulTokensPerSecPerGpu = p.tokensPerSecPerGpu * usefulTokenFraction(s.workload.packing);
    o.stepTimeSeconds = p.stepTimeSeconds;
    o.peakMemoryBytes = p.memory.total();
    o.fits = p.fits;
    return o;
}

// Whether the cost model evaluates `s` (a layout it admits), without throwing.
bool evaluable(const CostModel& model, const Scenario& s)
{
    return !parallelLayoutError(s) && !model.invalidReason(s);
}

// expertParallelismToTry with the scenario's cost model already built.
int largestExpertParallelism(const CostModel& model, const Scenario& scenario)
{
    const int experts = scenario.model.moe.experts;
    const int expertTp = std::max(1, scenario.parallelism.expertTp);
    for (int ep = std::min(experts, scenario.cluster.domainSize() / expertTp); ep >= 2; --ep) {
        if (experts % ep != 0)
            continue;
        Scenario s = scenario;
        s.parallelism.ep = ep;
        if (evaluable(model, s))
            return ep;
    }
    return 0;
}

} // namespace

int expertParallelismToTry(const Scenario& scenario)
{
    if (scenario.model.moe.experts <= 0)
        return 0;
    try {
        return largestExpertParallelism(CostModel(scenario), scenario);
    } catch (const std::exception&) {
        return 0; // the prediction itself says why the scenario cannot be evaluated
    }
}

std::vector<LeverEffect> leverEffects(const Scenario& scenario)
{
    std::vector<Lever> levers;
    if (scenario.workload.packing.padded())
        levers.push_back(Lever::RemovePadding);
    if (scenario.workload.packing.packed())
        levers.push_back(Lever::DocumentMasking);
    levers.push_back(Lever::FusedLinearCrossEntropy);
    // torch.compile fuses the norms, SwiGLU and RoPE itself: the same prediction with and without the lever, a row
    // that would only say so.
    if (!scenario.flags.compiled)
        levers.push_back(Lever::FusedNormActivation);
    if (scenario.model.isMoe()) {
        levers.push_back(Lever::FusedExpertMlp);
        levers.push_back(Lever::MoePermuteFusion);
    }
    if (scenario.precision == TrainingPrecision::BF16_FP8 && fp8RecipeGathersFp8(scenario.flags.fp8Recipe))
        levers.push_back(Lever::Fp8ParamGather);
    if (linearLayerFormat(scenario.precision) != NumberFormat::BF16)
        levers.push_back(Lever::QuantizedWeightCache);
    if (syncsWholeGradients(scenario)) {
        levers.push_back(Lever::OverlapGradReduce);
        if (scenario.parallelism.dataParallel == DataParallelKind::Zero1)
            levers.push_back(Lever::OverlapParamGather);
    }

    std::vector<LeverEffect> out;
    try {
        const CostModel model(scenario);
        if (model.invalidReason(scenario))
            return {};
        const int expertParallelism = !scenario.model.isMoe() ? 0
            : scenario.parallelism.ep > 1                     ? scenario.parallelism.ep
                                                              : largestExpertParallelism(model, scenario);
        if (expertParallelism > 1)
            levers.push_back(Lever::ExpertParallelism);
        for (Lever lever : levers) {
            LeverEffect e;
            e.lever = lever;
            e.inScenario = pulled(scenario, lever);
            e.degree = lever == Lever::ExpertParallelism ? expertParallelism : 0;
            Scenario with = scenario;
            pull(with, lever, true, e.degree);
            Scenario without = scenario;
            pull(without, lever, false, e.degree);
            // A layout change may leave one side unevaluable (EP 1 where the expert TP does not divide the dense
            // ranks): that lever says nothing rather than taking the others with it.
            if (lever == Lever::ExpertParallelism && (!evaluable(model, with) || !evaluable(model, without)))
                continue;
            e.with = outcomeOf(model, with);
            e.without = outcomeOf(model, without);
            out.push_back(e);
        }
    } catch (const std::exception&) {
        return {}; // the prediction itself says why the scenario cannot be evaluated
    }
    return out;
}

std::string_view leverKey(Lever lever)
{
    switch (lever) {
    case Lever::RemovePadding:
        return "remove_padding";
    case Lever::DocumentMasking:
        return "document_masking";
    case Lever::FusedLinearCrossEntropy:
        return "fused_linear_cross_entropy";
    case Lever::FusedNormActivation:
        return "fused_norm_activation";
    case Lever::FusedExpertMlp:
        return "fused_expert_mlp";
    case Lever::MoePermuteFusion:
        return "moe_permute_fusion";
    case Lever::Fp8ParamGather:
        return "fp8_param_gather";
    case Lever::QuantizedWeightCache:
        return "quantized_weight_cache";
    case Lever::OverlapGradReduce:
        return "overlap_grad_reduce";
    case Lever::OverlapParamGather:
        return "overlap_param_gather";
    case Lever::ExpertParallelism:
        return "expert_parallelism";
    }
    return "";
}

std::string_view leverLabel(Lever lever)
{
    switch (lever) {
    case Lever::RemovePadding:
        return "Remove padding";
    case Lever::DocumentMasking:
        return "Attention per document";
    case Lever::FusedLinearCrossEntropy:
        return "Fused linear cross-entropy";
    case Lever::FusedNormActivation:
        return "Fused RMSNorm/SwiGLU/RoPE";
    case Lever::FusedExpertMlp:
        return "Fused expert MLP";
    case Lever::MoePermuteFusion:
        return "Fused MoE permutation";
    case Lever::Fp8ParamGather:
        return "FP8 parameters";
    case Lever::QuantizedWeightCache:
        return "Cached FP8/FP4 weights";
    case Lever::OverlapGradReduce:
        return "Overlapped gradient reduce";
    case Lever::OverlapParamGather:
        return "Overlapped parameter gather";
    case Lever::ExpertParallelism:
        return "Expert parallelism";
    }
    return "";
}

std::string leverName(const LeverEffect& effect)
{
    std::string name(leverLabel(effect.lever));
    if (effect.degree > 0 && effect.lever == Lever::ExpertParallelism)
        name += " (EP " + std::to_string(effect.degree) + ")";
    return name;
}

} // namespace mfu
