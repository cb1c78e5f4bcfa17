#include "core/model/cost_model_constants_json.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/errors.h"

namespace mfu {

namespace {

// FractionOrUnset: a fraction, or 0 where nothing was measured (isolatedGemmEfficiency).
enum class Range { Fraction, FractionOrUnset, NonNegative };

struct NumberField {
    std::string_view key;
    double CostModelConstants::*member;
    Range range;
};

constexpr NumberField kNumbers[] = {
    { "gemm_efficiency", &CostModelConstants::gemmEfficiency, Range::Fraction },
    { "gemm_half_saturation_dim", &CostModelConstants::gemmHalfSaturationDim, Range::NonNegative },
    { "fast_format_gemm_half_saturation_dim", &CostModelConstants::fastFormatGemmHalfSaturationDim,
        Range::NonNegative },
    { "isolated_gemm_efficiency", &CostModelConstants::isolatedGemmEfficiency, Range::FractionOrUnset },
    { "isolated_gemm_half_saturation_dim", &CostModelConstants::isolatedGemmHalfSaturationDim, Range::NonNegative },
    { "isolated_tensor_core_slowdown", &CostModelConstants::isolatedTensorCoreSlowdown, Range::NonNegative },
    { "isolated_tensor_core_share_knee", &CostModelConstants::isolatedTensorCoreShareKnee, Range::FractionOrUnset },
    { "fp8_gemm_efficiency_ratio", &CostModelConstants::fp8GemmEfficiencyRatio, Range::Fraction },
    { "fp8_cast_bytes_per_element", &CostModelConstants::fp8CastBytesPerElement, Range::NonNegative },
    { "attention_forward_efficiency", &CostModelConstants::attentionForwardEfficiency, Range::Fraction },
    { "attention_backward_efficiency", &CostModelConstants::attentionBackwardEfficiency, Range::Fraction },
    { "context_parallel_attention_efficiency", &CostModelConstants::contextParallelAttentionEfficiency,
        Range::Fraction },
    { "context_parallel_ring_attention_efficiency", &CostModelConstants::contextParallelRingAttentionEfficiency,
        Range::Fraction },
    { "attention_half_saturation_seq", &CostModelConstants::attentionHalfSaturationSeq, Range::NonNegative },
    { "unfused_attention_bytes_per_score", &CostModelConstants::unfusedAttentionBytesPerScore, Range::NonNegative },
    { "recurrent_mixer_efficiency", &CostModelConstants::recurrentMixerEfficiency, Range::Fraction },
    { "sparse_indexer_efficiency", &CostModelConstants::sparseIndexerEfficiency, Range::Fraction },
    { "hbm_efficiency", &CostModelConstants::hbmEfficiency, Range::Fraction },
    { "elementwise_hidden_passes_compiled", &CostModelConstants::elementwiseHiddenPassesCompiled, Range::NonNegative },
    { "elementwise_ffn_passes_compiled", &CostModelConstants::elementwiseFfnPassesCompiled, Range::NonNegative },
    { "elementwise_hidden_passes_eager", &CostModelConstants::elementwiseHiddenPassesEager, Range::NonNegative },
    { "elementwise_ffn_passes_eager", &CostModelConstants::elementwiseFfnPassesEager, Range::NonNegative },
    { "elementwise_hidden_passes_fused_kernels", &CostModelConstants::elementwiseHiddenPassesFusedKernels,
        Range::NonNegative },
    { "elementwise_ffn_passes_fused_kernels", &CostModelConstants::elementwiseFfnPassesFusedKernels,
        Range::NonNegative },
    { "loss_bytes_per_logit_compiled", &CostModelConstants::lossBytesPerLogitCompiled, Range::NonNegative },
    { "loss_bytes_per_logit_eager", &CostModelConstants::lossBytesPerLogitEager, Range::NonNegative },
    { "optimizer_bytes_per_param_fused", &CostModelConstants::optimizerBytesPerParamFused, Range::NonNegative },
    { "optimizer_bytes_per_param_unfused", &CostModelConstants::optimizerBytesPerParamUnfused, Range::NonNegative },
    { "autocast_eager_bytes_per_hidden", &CostModelConstants::autocastEagerBytesPerHidden, Range::NonNegative },
    { "autocast_eager_bytes_per_ffn", &CostModelConstants::autocastEagerBytesPerFfn, Range::NonNegative },
    { "autocast_eager_bytes_per_query", &CostModelConstants::autocastEagerBytesPerQuery, Range::NonNegative },
    { "autocast_eager_loss_bytes_per_logit", &CostModelConstants::autocastEagerLossBytesPerLogit, Range::NonNegative },
    { "autocast_compiled_bytes_per_hidden", &CostModelConstants::autocastCompiledBytesPerHidden, Range::NonNegative },
    { "autocast_compiled_bytes_per_ffn", &CostModelConstants::autocastCompiledBytesPerFfn, Range::NonNegative },
    { "autocast_compiled_bytes_per_query", &CostModelConstants::autocastCompiledBytesPerQuery, Range::NonNegative },
    { "autocast_compiled_loss_bytes_per_logit", &CostModelConstants::autocastCompiledLossBytesPerLogit,
        Range::NonNegative },
    { "autocast_eager_bytes_per_qk_norm_element", &CostModelConstants::autocastEagerBytesPerQkNormElement,
        Range::NonNegative },
    { "autocast_weight_cast_bytes_per_param", &CostModelConstants::autocastWeightCastBytesPerParam,
        Range::NonNegative },
    { "eager_hbm_efficiency", &CostModelConstants::eagerHbmEfficiency, Range::Fraction },
    { "scale_up_efficiency", &CostModelConstants::scaleUpEfficiency, Range::Fraction },
    { "scale_out_efficiency", &CostModelConstants::scaleOutEfficiency, Range::Fraction },
    { "scale_up_latency_seconds", &CostModelConstants::scaleUpLatencySeconds, Range::NonNegative },
    { "scale_out_latency_seconds", &CostModelConstants::scaleOutLatencySeconds, Range::NonNegative },
    { "fsdp_prefetch_exposed_fraction", &CostModelConstants::fsdpPrefetchExposedFraction, Range::Fraction },
    { "host_link_efficiency", &CostModelConstants::hostLinkEfficiency, Range::Fraction },
    { "host_offload_exposed_fraction", &CostModelConstants::hostOffloadExposedFraction, Range::Fraction },
    { "cpu_optimizer_bytes_per_sec", &CostModelConstants::cpuOptimizerBytesPerSec, Range::NonNegative },
    { "async_tp_exposed_fraction", &CostModelConstants::asyncTpExposedFraction, Range::Fraction },
    { "tp_comm_overlap_exposed_fraction", &CostModelConstants::tpCommOverlapExposedFraction, Range::Fraction },
    { "context_parallel_exposed_fraction", &CostModelConstants::contextParallelExposedFraction, Range::Fraction },
    { "context_parallel_ring_exposed_fraction", &CostModelConstants::contextParallelRingExposedFraction,
        Range::Fraction },
    { "pipeline_p2p_exposed_fraction", &CostModelConstants::pipelineP2pExposedFraction, Range::Fraction },
    { "expert_all_to_all_exposed_fraction", &CostModelConstants::expertAllToAllExposedFraction, Range::Fraction },
    { "expert_overlap_exposed_fraction", &CostModelConstants::expertOverlapExposedFraction, Range::Fraction },
    { "expert_load_imbalance", &CostModelConstants::expertLoadImbalance, Range::NonNegative },
    { "grouped_gemm_half_saturation_dim_per_pflops", &CostModelConstants::groupedGemmHalfSaturationDimPerPflops,
        Range::NonNegative },
    { "grouped_gemm_weight_stream_share", &CostModelConstants::groupedGemmWeightStreamShare, Range::NonNegative },
    { "grouped_gemm_kernel_plateau_share", &CostModelConstants::groupedGemmKernelPlateauShare, Range::Fraction },
    { "all_to_all_max_bytes_per_sec", &CostModelConstants::allToAllMaxBytesPerSec, Range::NonNegative },
    { "moe_permute_bytes_per_element", &CostModelConstants::moePermuteBytesPerElement, Range::NonNegative },
    { "moe_router_bytes_per_expert", &CostModelConstants::moeRouterBytesPerExpert, Range::NonNegative },
    { "unfused_permutation_bytes_per_routed_element", &CostModelConstants::unfusedPermutationBytesPerRoutedElement,
        Range::NonNegative },
    { "all_to_all_scale_up_efficiency", &CostModelConstants::allToAllScaleUpEfficiency, Range::Fraction },
    { "all_to_all_scale_out_efficiency", &CostModelConstants::allToAllScaleOutEfficiency, Range::Fraction },
    { "deep_ep_scale_up_efficiency", &CostModelConstants::deepEpScaleUpEfficiency, Range::Fraction },
    { "deep_ep_scale_out_efficiency", &CostModelConstants::deepEpScaleOutEfficiency, Range::Fraction },
    { "expert_dispatch_latency_seconds", &CostModelConstants::expertDispatchLatencySeconds, Range::NonNegative },
    { "expert_1f1b_exposed_fraction", &CostModelConstants::expertOneFOneBExposedFraction, Range::Fraction },
    { "fp8_blockwise_gemm_ratio", &CostModelConstants::fp8BlockwiseGemmRatio, Range::Fraction },
    { "fp8_mx_gemm_ratio", &CostModelConstants::fp8MxGemmRatio, Range::Fraction },
    { "fp8_rowwise_gemm_ratio", &CostModelConstants::fp8RowwiseGemmRatio, Range::Fraction },
    { "fp8_block_cast_bytes_per_element", &CostModelConstants::fp8BlockCastBytesPerElement, Range::NonNegative },
    { "fp4_gemm_efficiency_ratio", &CostModelConstants::fp4GemmEfficiencyRatio, Range::Fraction },
    { "nvfp4_cast_bytes_per_element", &CostModelConstants::nvfp4CastBytesPerElement, Range::NonNegative },
    { "mxfp4_cast_bytes_per_element", &CostModelConstants::mxfp4CastBytesPerElement, Range::NonNegative },
    { "zero_bubble_residual", &CostModelConstants::zeroBubbleResidual, Range::Fraction },
    { "per_layer_overhead_seconds_compiled", &CostModelConstants::perLayerOverheadSecondsCompiled, Range::NonNegative },
    { "per_layer_overhead_seconds_eager", &CostModelConstants::perLayerOverheadSecondsEager, Range::NonNegative },
    { "moe_layer_host_seconds", &CostModelConstants::moeLayerHostSeconds, Range::NonNegative },
    { "per_step_overhead_seconds", &CostModelConstants::perStepOverheadSeconds, Range::NonNegative },
    { "runtime_reserved_bytes", &CostModelConstants::runtimeReservedBytes, Range::NonNegative },
    { "allocator_fragmentation", &CostModelConstants::allocatorFragmentation, Range::Fraction },
    { "selective_kept_matmul_fraction", &CostModelConstants::selectiveKeptMatmulFraction, Range::Fraction },
};

struct IntegerField {
    std::string_view key;
    int CostModelConstants::*member;
};

constexpr IntegerField kIntegers[] = {
    { "cross_domain_rings", &CostModelConstants::crossDomainRings },
    { "gpus_per_node", &CostModelConstants::gpusPerNode },
};

// Keys of constants whose law has since been replaced. A scenario or preset saved before carries them (the writer
// puts every constant in): it still opens, the retired value read and dropped, the current law's constant at its
// base value.
constexpr std::string_view kRetired[] = {
    "grouped_gemm_half_saturation_tokens_per_pflops", // m / (m + M): now the weight-streaming ridge
};

bool isRetired(const std::string& key)
{
    return std::find(std::begin(kRetired), std::end(kRetired), key) != std::end(kRetired);
}

} // namespace

nlohmann::json costModelConstantsToJson(const CostModelConstants& c)
{
    nlohmann::json out = nlohmann::json::object();
    for (const auto& f : kNumbers)
        out[std::string(f.key)] = c.*(f.member);
    for (const auto& f : kIntegers)
        out[std::string(f.key)] = c.*(f.member);
    if (!c.basis.empty())
        out["basis"] = c.basis;
    return out;
}

CostModelConstants costModelConstantsFromJson(
    const nlohmann::json& object, const CostModelConstants& base, const std::string& path)
{
    if (!object.is_object())
        throw InputError(path + ": must be an object of cost-model constants");
    CostModelConstants c = base;
    for (auto it = object.begin(); it != object.end(); ++it) {
        const std::string where = path + "." + it.key();
        if (it.key() == "basis") {
            if (!it->is_string())
                throw InputError(where + ": must be text");
            c.basis = it->get<std::string>();
            continue;
        }
        if (isRetired(it.key()))
            continue;
        bool known = false;
        for (const auto& f : kNumbers) {
            if (f.key != it.key())
                continue;
            known = true;
            if (!it->is_number() || !std::isfinite(it->get<double>()))
                throw InputError(where + ": must be a number");
            const double v = it->get<double>();
            if (f.range == Range::Fraction && !(v > 0 && v <= 1))
                throw InputError(where + ": must lie in (0, 1]");
            if (f.range == Range::FractionOrUnset && !(v >= 0 && v <= 1))
                throw InputError(where + ": must lie in [0, 1] (0: not measured)");
            if (f.range == Range::NonNegative && v < 0)
                throw InputError(where + ": must not be negative");
            c.*(f.member) = v;
        }
        for (const auto& f : kIntegers) {
            if (f.key != it.key())
                continue;
            known = true;
            if (!it->is_number_integer() || it->get<long long>() < 1 || it->get<long long>() > 1'000'000)
                throw InputError(where + ": must be a whole number of at least 1");
            c.*(f.member) = static_cast<int>(it->get<long long>());
        }
        if (!known)
            throw InputError(where + ": unknown cost-model constant");
    }
    return c;
}

} // namespace mfu
