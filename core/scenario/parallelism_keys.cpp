#include "core/scenario/parallelism_keys.h"

#include "core/errors.h"

namespace mfu {

namespace {
template <typename Enum, size_t N>
std::optional<Enum> fromKey(std::string_view key, const Enum (&all)[N], std::string_view (*keyOf)(Enum))
{
    for (const Enum e : all)
        if (key == keyOf(e))
            return e;
    return std::nullopt;
}

template <typename Module, size_t N>
std::string moduleListText(unsigned modules, const Module (&all)[N], std::string_view (*keyOf)(Module))
{
    std::string out;
    for (const Module m : all)
        if (modules & m)
            out += (out.empty() ? "" : ",") + std::string(keyOf(m));
    return out;
}

// A comma- or space-separated list of module names as bits; an unknown name is refused with the names known.
template <typename Module, size_t N>
unsigned parseModuleList(
    std::string_view text, const Module (&all)[N], std::string_view (*keyOf)(Module), std::string_view what)
{
    unsigned bits = 0;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find_first_of(", ", pos);
        if (end == std::string_view::npos)
            end = text.size();
        const std::string_view word = text.substr(pos, end - pos);
        if (!word.empty()) {
            const auto m = fromKey(word, all, keyOf);
            if (!m) {
                std::string known = moduleListText(~0u, all, keyOf);
                for (size_t i = known.find(','); i != std::string::npos; i = known.find(',', i + 2))
                    known.replace(i, 1, ", ");
                throw InputError(std::string(what) + " '" + std::string(word) + "' is not one of " + known);
            }
            bits |= *m;
        }
        pos = end + 1;
    }
    return bits;
}
} // namespace

std::string_view expertDispatcherKey(ExpertDispatcher d)
{
    switch (d) {
    case ExpertDispatcher::AllToAll:
        return "alltoall";
    case ExpertDispatcher::AllGather:
        return "allgather";
    case ExpertDispatcher::DeepEp:
        return "deepep";
    case ExpertDispatcher::HybridEp:
        return "hybridep";
    }
    return "alltoall";
}

std::optional<ExpertDispatcher> expertDispatcherFromKey(std::string_view key)
{
    static constexpr ExpertDispatcher all[] = { ExpertDispatcher::AllToAll, ExpertDispatcher::AllGather,
        ExpertDispatcher::DeepEp, ExpertDispatcher::HybridEp };
    return fromKey(key, all, expertDispatcherKey);
}

std::string_view contextParallelCommKey(ContextParallelComm c)
{
    return c == ContextParallelComm::P2p ? "p2p" : "allgather";
}

std::string_view tpOverlapKey(TpOverlap o)
{
    return o == TpOverlap::Userbuffers ? "userbuffers" : "symmetric_memory";
}

std::string_view expertOverlapKey(ExpertOverlap o)
{
    switch (o) {
    case ExpertOverlap::None:
        return "none";
    case ExpertOverlap::OneFOneB:
        return "1f1b";
    case ExpertOverlap::DualPipe:
        return "dualpipe";
    }
    return "none";
}

std::optional<ExpertOverlap> expertOverlapFromKey(std::string_view key)
{
    static constexpr ExpertOverlap all[] = { ExpertOverlap::None, ExpertOverlap::OneFOneB, ExpertOverlap::DualPipe };
    return fromKey(key, all, expertOverlapKey);
}

std::string_view expertBalanceKey(ExpertBalance b)
{
    return b == ExpertBalance::Forced ? "forced" : "dropless";
}

std::optional<ExpertBalance> expertBalanceFromKey(std::string_view key)
{
    static constexpr ExpertBalance all[] = { ExpertBalance::Dropless, ExpertBalance::Forced };
    return fromKey(key, all, expertBalanceKey);
}

std::string_view expertHostSyncKey(ExpertHostSync h)
{
    switch (h) {
    case ExpertHostSync::Auto:
        return "auto";
    case ExpertHostSync::PerLayer:
        return "per_layer";
    case ExpertHostSync::None:
        return "none";
    }
    return "auto";
}

std::string_view fp8RecipeKey(Fp8Recipe r)
{
    switch (r) {
    case Fp8Recipe::Tensorwise:
        return "tensorwise";
    case Fp8Recipe::Blockwise:
        return "blockwise";
    case Fp8Recipe::Mxfp8:
        return "mxfp8";
    case Fp8Recipe::Rowwise:
        return "rowwise";
    case Fp8Recipe::RowwiseWithGwHp:
        return "rowwise_with_gw_hp"; // TorchAO's recipe name
    }
    return "tensorwise";
}

std::optional<Fp8Recipe> fp8RecipeFromKey(std::string_view key)
{
    static constexpr Fp8Recipe all[] = { Fp8Recipe::Tensorwise, Fp8Recipe::Blockwise, Fp8Recipe::Mxfp8,
        Fp8Recipe::Rowwise, Fp8Recipe::RowwiseWithGwHp };
    return fromKey(key, all, fp8RecipeKey);
}

std::string_view fp4RecipeKey(Fp4Recipe r)
{
    return r == Fp4Recipe::Mxfp4 ? "mxfp4" : "nvfp4";
}

std::string_view cudaGraphsKey(CudaGraphs g)
{
    switch (g) {
    case CudaGraphs::None:
        return "none";
    case CudaGraphs::Modules:
        return "modules";
    case CudaGraphs::FullIteration:
        return "full_iteration";
    }
    return "none";
}

std::string_view recomputeModuleKey(RecomputeModule m)
{
    switch (m) {
    case RecomputeCoreAttention:
        return "core_attn";
    case RecomputeMlp:
        return "mlp";
    case RecomputeMoe:
        return "moe";
    case RecomputeMoeActivation:
        return "moe_act";
    case RecomputeLayernorm:
        return "layernorm";
    case RecomputeMlaUpProjection:
        return "mla_up_proj";
    case RecomputeSharedExperts:
        return "shared_experts";
    }
    return "";
}

std::optional<RecomputeModule> recomputeModuleFromKey(std::string_view key)
{
    return fromKey(key, kAllRecomputeModules, recomputeModuleKey);
}

unsigned parseRecomputeModules(std::string_view text)
{
    return parseModuleList(text, kAllRecomputeModules, recomputeModuleKey, "recompute module");
}

std::string recomputeModulesText(unsigned modules)
{
    return moduleListText(modules, kAllRecomputeModules, recomputeModuleKey);
}

std::string_view offloadModuleKey(OffloadModule m)
{
    switch (m) {
    case OffloadExpertFc1:
        return "expert_fc1";
    case OffloadMoeActivation:
        return "moe_act";
    }
    return "";
}

unsigned parseOffloadModules(std::string_view text)
{
    return parseModuleList(text, kAllOffloadModules, offloadModuleKey, "offload module");
}

std::string offloadModulesText(unsigned modules)
{
    return moduleListText(modules, kAllOffloadModules, offloadModuleKey);
}

} // namespace mfu
