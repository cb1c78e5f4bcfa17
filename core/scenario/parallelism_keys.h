#pragma once
// The words scenario files, the command line and validation tables use for the MoE and pipeline settings of a
// Scenario (docs/json-keys.md, docs/cli.md): each enum's key, and back.
#include <optional>
#include <string>
#include <string_view>

#include "core/scenario/scenario.h"

namespace mfu {

std::string_view expertDispatcherKey(ExpertDispatcher d); // "alltoall", "allgather", "deepep", "hybridep"
std::optional<ExpertDispatcher> expertDispatcherFromKey(std::string_view key);
std::string_view contextParallelCommKey(ContextParallelComm c); // "allgather", "p2p"
std::string_view tpOverlapKey(TpOverlap o); // "symmetric_memory", "userbuffers"
std::string_view expertOverlapKey(ExpertOverlap o); // "none", "1f1b", "dualpipe"
std::optional<ExpertOverlap> expertOverlapFromKey(std::string_view key);
std::string_view expertBalanceKey(ExpertBalance b); // "dropless", "forced"
std::optional<ExpertBalance> expertBalanceFromKey(std::string_view key);
std::string_view expertHostSyncKey(ExpertHostSync h); // "auto", "per_layer", "none"
std::string_view fp8RecipeKey(Fp8Recipe r); // "tensorwise", "blockwise", "mxfp8", "rowwise", "rowwise_with_gw_hp"
std::optional<Fp8Recipe> fp8RecipeFromKey(std::string_view key);
std::string_view fp4RecipeKey(Fp4Recipe r); // "nvfp4", "mxfp4"
std::string_view cudaGraphsKey(CudaGraphs g); // "none", "modules", "full_iteration"

// Megatron-Core's module names: "core_attn", "mlp", "moe", "moe_act", "layernorm", "mla_up_proj", "shared_experts".
std::string_view recomputeModuleKey(RecomputeModule m);
std::optional<RecomputeModule> recomputeModuleFromKey(std::string_view key);
inline constexpr RecomputeModule kAllRecomputeModules[] = { RecomputeCoreAttention, RecomputeMlp, RecomputeMoe,
    RecomputeMoeActivation, RecomputeLayernorm, RecomputeMlaUpProjection, RecomputeSharedExperts };
// "moe_act,layernorm" <-> bits; throws InputError naming an unknown module.
unsigned parseRecomputeModules(std::string_view commaSeparated);
std::string recomputeModulesText(unsigned modules);

// Megatron-Core's --offload-modules names the cost model sizes: "expert_fc1", "moe_act".
std::string_view offloadModuleKey(OffloadModule m);
inline constexpr OffloadModule kAllOffloadModules[] = { OffloadExpertFc1, OffloadMoeActivation };
// "expert_fc1,moe_act" <-> bits; throws InputError naming an unknown module.
unsigned parseOffloadModules(std::string_view commaSeparated);
std::string offloadModulesText(unsigned modules);

} // namespace mfu
