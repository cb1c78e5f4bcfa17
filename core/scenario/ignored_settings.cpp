#include "core/scenario/ignored_settings.h"

#include <algorithm>

#include "core/scenario/settings.h"

namespace mfu {

namespace {

// Why a setting does nothing for this scenario; nullptr when it may act.
using WhyIgnored = const char* (*)(const Scenario&);

const char* withoutExperts(const Scenario& s)
{
    return s.model.isMoe() ? nullptr : "the model has no experts";
}

const char* withoutFp8(const Scenario& s)
{
    return s.precision == TrainingPrecision::BF16_FP8 ? nullptr : "the linear layers do not run in FP8";
}

const char* withoutFp4(const Scenario& s)
{
    return s.precision == TrainingPrecision::BF16_FP4 ? nullptr : "the linear layers do not run in FP4";
}

const char* withoutTensorParallelism(const Scenario& s)
{
    return s.parallelism.tp > 1 ? nullptr : "no tensor parallelism: tp 1";
}

const char* withoutPipeline(const Scenario& s)
{
    return s.parallelism.pp > 1 ? nullptr : "no pipeline: pp 1";
}

const char* withoutContextParallelism(const Scenario& s)
{
    return s.parallelism.cp > 1 ? nullptr : "no context parallelism: cp 1";
}

const char* withoutSelectiveCheckpointing(const Scenario& s)
{
    return s.activationCheckpointing == ActivationCheckpointing::Selective
        ? nullptr
        : "the modules are recomputed with selective checkpointing only";
}

const char* withoutCheckpointing(const Scenario& s)
{
    return s.activationCheckpointing != ActivationCheckpointing::None ? nullptr : "no activation checkpointing";
}

// Megatron's offload modules name the experts' saved tensors: none are saved when every layer is recomputed whole
// (full checkpointing of all layers) or the moe module rebuilds the MoE layer.
const char* withoutSavedExpertTensors(const Scenario& s)
{
    if (const char* why = withoutExperts(s))
        return why;
    // Megatron's block method recomputes recompute_layers of a stage's layers; none named, or as many as it holds,
    // is every layer.
    const int pp = std::max(1, s.parallelism.pp);
    const int stageLayers = (s.model.layers + pp - 1) / pp;
    if (s.activationCheckpointing == ActivationCheckpointing::Full
        && (s.flags.recomputeLayers <= 0 || s.flags.recomputeLayers >= stageLayers))
        return "full checkpointing recomputes every layer: no expert tensor is saved to offload";
    if (s.activationCheckpointing == ActivationCheckpointing::Selective && (s.flags.recomputeModules & RecomputeMoe))
        return "the moe recompute module rebuilds the MoE layer in backward: no expert tensor is saved to offload";
    return nullptr;
}

const char* withoutShardedWeights(const Scenario& s)
{
    return shardsWeights(s.parallelism.dataParallel) ? nullptr
                                                     : "HSDP replicates weight-sharded data parallelism (FSDP) only";
}

const char* withoutZero1(const Scenario& s)
{
    return s.parallelism.dataParallel == DataParallelKind::Zero1
        ? nullptr
        : "only ZeRO-1 all-gathers the updated weights once a step; FSDP gathers them layer by layer, DDP keeps them "
          "whole";
}

const char* withoutStepGradientSync(const Scenario& s)
{
    return shardsWeights(s.parallelism.dataParallel)
        ? "FSDP reduce-scatters the gradients layer by layer under the backward; the setting is DDP's and ZeRO-1's"
        : nullptr;
}

struct Rule {
    std::string_view key;
    WhyIgnored why;
};

// Settings the cost model reads only in some runs. Settings it refuses where they cannot apply (ep, expert TP,
// virtual stages, a pipeline layout, FP8 parameters) are not here: a refusal says so already.
constexpr Rule kRules[] = {
    { "sequence_parallel", withoutTensorParallelism },
    { "async_tp", withoutTensorParallelism },
    { "tp_overlap_kind", withoutTensorParallelism },
    { "schedule", withoutPipeline },
    { "cp_comm", withoutContextParallelism },
    { "expert_dispatcher", withoutExperts },
    { "expert_overlap", withoutExperts },
    { "expert_balance", withoutExperts },
    { "expert_capacity_factor", withoutExperts },
    { "expert_load_imbalance", withoutExperts },
    { "expert_host_sync", withoutExperts },
    { "expert_node_limit", withoutExperts },
    { "first_stage_layers", withoutPipeline },
    { "last_stage_layers", withoutPipeline },
    { "embedding_stage", withoutPipeline },
    { "loss_stage", withoutPipeline },
    { "hsdp_replicas", withoutShardedWeights },
    { "recompute_modules", withoutSelectiveCheckpointing },
    { "recompute_layers", withoutCheckpointing },
    { "fp8_recipe", withoutFp8 },
    { "fp4_recipe", withoutFp4 },
    { "fp4_bf16_layer_share", withoutFp4 },
    { "fused_expert_mlp", withoutExperts },
    { "moe_permute_fusion", withoutExperts },
    { "activation_offload_modules", withoutSavedExpertTensors },
    { "fp8_scales_in_backward", withoutFp8 },
    { "overlap_param_gather", withoutZero1 },
    { "overlap_grad_reduce", withoutStepGradientSync },
};

} // namespace

std::vector<IgnoredSetting> ignoredSettings(const Scenario& scenario)
{
    std::vector<IgnoredSetting> out;
    for (const Setting& setting : scenarioSettings())
        for (const Rule& rule : kRules)
            if (rule.key == setting.key && !isSettingDefault(setting, scenario))
                if (const char* why = rule.why(scenario))
                    out.push_back({ setting.key, setting.flag, why });
    return out;
}

std::vector<std::string_view> settingsSomeRunsIgnore()
{
    std::vector<std::string_view> keys;
    for (const Rule& rule : kRules)
        keys.push_back(rule.key);
    return keys;
}

std::string ignoredSettingsText(const std::vector<IgnoredSetting>& ignored)
{
    std::string text;
    for (const IgnoredSetting& i : ignored)
        text += (text.empty() ? "--" : "; --") + std::string(i.flag) + " (" + std::string(i.why) + ")";
    return text;
}

} // namespace mfu
