#include "core/costmodel/cost_model.h"

#include "core/costmodel/attention_kernels.h"
#include "core/costmodel/physical_bounds.h"

#include <algorithm>
#include <cmath>

#include "core/costmodel/collectives.h"
#include "core/costmodel/compute_terms.h"
#include "core/costmodel/step_context.h"
#include "core/errors.h"
#include "core/model/precision.h"
#include "core/number_format.h"
#include "core/scenario/pipeline_layout.h"

namespace mfu {

namespace {

// ceil(layers / pp): the layers the fullest pipeline stage holds, as the step time counts them (step_context.cpp).
long long layersPerStageRoundedUp(long long layers, long long pp)
{
    return (layers + pp - 1) / pp;
}
std::string n(double v, int decimals = 0)
{
    return formatNumber(v, decimals);
}

// A refusal's figures are written only when asked for (figures not null): the planner's hot path asks for none and
// so allocates nothing (tst_costmodel_allocation).
template <typename Describe> const char* refuse(std::string* figures, const char* reason, Describe&& describe)
{
    if (figures)
        *figures = describe();
    return reason;
}

double peakOf(const HardwareSpec& hw, NumberFormat f)
{
    return hw.densePeak(f).value_or(0.0);
}

// Offload shares are fractions, and the CPU's update cannot run inside backward (optimizer-in-backward runs each
// layer's update on the GPU as its gradients arrive).
const char* offloadProblem(const FrameworkFlags& f, std::string* figures)
{
    if (!isOffloadFraction(f.optimizerOffloadFraction) || !isOffloadFraction(f.activationOffloadFraction))
        return refuse(figures, "offload fractions must lie between 0 (none) and 1 (all)", [&] {
            return "optimizer " + n(f.optimizerOffloadFraction, 2) + ", activations "
                + n(f.activationOffloadFraction, 2);
        });
    if (f.optimizerOffloadFraction > 0 && f.optimizerInBackward)
        return "optimizer offload runs the update on the CPU after backward: it cannot run inside backward "
               "(turn one of them off)";
    return nullptr;
}
} // namespace

int fsdpShards(const Scenario& s)
{
    const auto& p = s.parallelism;
    const long long fixed = static_cast<long long>(p.tp) * p.pp * p.cp * p.hsdpReplicas;
    if (fixed <= 0 || s.cluster.gpuCount <= 0 || s.cluster.gpuCount % fixed != 0)
        return 0;
    return static_cast<int>(s.cluster.gpuCount / fixed);
}

CostModel::CostModel(const Scenario& scenario)
    : CostModel(scenario.model, scenario.cluster.hardware, costModelConstantsFor(scenario))
{
}

CostModel::CostModel(const ModelSpec& model, const HardwareSpec& hardware, const CostModelConstants& constants)
    : m_shape(modelShapeOf(model))
    , m_c(constants)
    , m_peakBf16(hardware.mfuPeak().value_or(0.0)) // FP16 on a device without BF16
    , m_peakFp8(peakOf(hardware, NumberFormat::FP8))
    , m_peakFp4(peakOf(hardware, NumberFormat::FP4))
    , m_family(acceleratorFamilyOf(hardware))
    , m_model(model)
{
    if (m_peakBf16 <= 0)
        throw InputError("cost model: hardware '" + hardware.id + "' has no dense BF16 peak");
    if (hardware.hbmBandwidthBytesPerSec <= 0)
        throw InputError("cost model: hardware '" + hardware.id + "' has no HBM bandwidth");
    if (hardware.scaleUpBandwidthBytesPerSec <= 0 && hardware.scaleUpDomainGpus > 1)
        throw InputError("cost model: hardware '" + hardware.id + "' has no scale-up bandwidth");
}

const char* CostModel::invalidReason(const Scenario& s) const
{
    return firstProblem(s, nullptr);
}

std::optional<std::string> CostModel::invalidReasonText(const Scenario& s) const
{
    std::string figures;
    const char* reason = firstProblem(s, &figures);
    if (!reason)
        return std::nullopt;
    return figures.empty() ? std::string(reason) : std::string(reason) + " (" + figures + ")";
}

const char* CostModel::fp4Unavailable(const Scenario& s) const
{
    if (m_peakFp4 <= 0)
        return "BF16+FP4 needs a dense FP4 peak for this hardware (FP4 tensor cores: NVIDIA Blackwell, AMD MI350 "
               "series); A100, H100, H200 and MI300X have none";
    // NVFP4's E4M3 block scales are NVIDIA's (Blackwell's block-scaled MMA); AMD's CDNA 4 scales FP4 with E8M0 only.
    if (s.flags.fp4Recipe == Fp4Recipe::Nvfp4 && m_family != AcceleratorFamily::Blackwell)
        return "NVFP4 needs NVIDIA Blackwell tensor cores (E4M3 block scales): use the mxfp4 recipe";
    if (!(s.flags.fp4Bf16LayerShare >= 0 && s.flags.fp4Bf16LayerShare <= 1))
        return "the share of linear layers kept in BF16 must be between 0 and 1";
    return nullptr;
}

const char* CostModel::firstProblem(const Scenario& s, std::string* figures) const
{
    const auto& p = s.parallelism;
    const int gpus = s.cluster.gpuCount;
    if (gpus < 1)
        return refuse(figures, "GPU count must be at least 1", [&] { return "it is " + n(gpus); });
    if (p.tp < 1 || p.pp < 1 || p.cp < 1 || p.ep < 1 || p.hsdpReplicas < 1 || p.virtualStages < 1)
        return refuse(
            figures, "parallel degrees (tp, pp, cp, ep, hsdp replicas, virtual stages) must be at least 1", [&] {
                return "tp " + n(p.tp) + ", pp " + n(p.pp) + ", cp " + n(p.cp) + ", ep " + n(p.ep) + ", hsdp replicas "
                    + n(p.hsdpReplicas) + ", virtual stages " + n(p.virtualStages);
            });
    if (s.workload.seqLen < 1)
        return refuse(figures, "sequence length must be at least 1", [&] { return "it is " + n(s.workload.seqLen); });
    if (s.workload.microBatch < 1)
        return refuse(
            figures, "micro-batch must be at least 1 sequence", [&] { return "it is " + n(s.workload.microBatch); });
    if (const char* packing = packingProblem(s.workload.packing, s.workload.seqLen, figures))
        return packing;
    if (s.workload.vision.tokensPerSequence > s.workload.seqLen)
        return refuse(figures, "the vision tokens per sequence exceed the sequence length", [&] {
            return n(s.workload.vision.tokensPerSequence) + " vision tokens, sequence " + n(s.workload.seqLen);
        });
    if (s.workload.vision.tokensPerSequence < 0 || s.workload.vision.tokensPerImage < 0
        || (s.workload.vision.tokensPerSequence > 0
            && s.workload.vision.tokensPerImage > s.workload.vision.tokensPerSequence))
        return refuse(figures, "the vision tokens per image exceed the vision tokens per sequence", [&] {
            return n(s.workload.vision.tokensPerImage) + " per image, " + n(s.workload.vision.tokensPerSequence)
                + " per sequence";
        });
    if (fsdpShards(s) == 0)
        return refuse(figures, "tp x pp x cp x hsdp replicas must divide the GPU count", [&] {
            return n(p.tp) + " x " + n(p.pp) + " x " + n(p.cp) + " x " + n(p.hsdpReplicas) + " = "
                + n(static_cast<double>(p.tp) * p.pp * p.cp * p.hsdpReplicas) + " of " + n(gpus) + " GPUs";
        });
    const auto& x = m_shape.layer;
    if (static_cast<int>(x.heads) % p.tp != 0)
        return refuse(figures, "tp must divide the number of attention heads",
            [&] { return "tp " + n(p.tp) + ", " + n(x.heads) + " heads"; });
    if (static_cast<int>(x.kvHeads) % p.tp != 0 && p.tp % static_cast<int>(x.kvHeads) != 0)
        return refuse(figures, "tp and the number of KV heads must divide one another",
            [&] { return "tp " + n(p.tp) + ", " + n(x.kvHeads) + " KV heads"; });
    const bool uneven = hasUnevenPipeline(p);
    if (p.pp > m_shape.layers + (uneven ? 2 : 0))
        return refuse(figures, "pp cannot exceed the number of layers",
            [&] { return "pp " + n(p.pp) + ", " + n(m_shape.layers) + " layers"; });
    if (p.virtualStages > 1 && p.pp < 2)
        return refuse(figures, "virtual stages need pp > 1",
            [&] { return n(p.virtualStages) + " virtual stages, pp " + n(p.pp); });
    // An uneven layout may give the embedding and the loss stages of their own (pipeline_layout.h checks it).
    if (!uneven && static_cast<long long>(p.pp) * p.virtualStages > m_shape.layers)
        return refuse(figures, "virtual stages need at least pp x virtual stages layers (or a pipeline layout)", [&] {
            return "pp " + n(p.pp) + " x " + n(p.virtualStages) + " = " + n(static_cast<double>(p.pp) * p.virtualStages)
                + ", " + n(m_shape.layers) + " layers";
        });
    if (s.workload.mtpLayers < 0 || s.workload.mtpLayers > 64)
        return refuse(figures, "multi-token-prediction layers must lie between 0 and 64",
            [&] { return "it is " + n(s.workload.mtpLayers); });
    if (const char* layout = pipelineLayoutProblem(p, m_shape.layers, s.workload.mtpLayers, figures))
        return layout;
    if (s.workload.seqLen % p.cp != 0)
        return refuse(figures, "cp must divide the sequence length",
            [&] { return "cp " + n(p.cp) + ", sequence " + n(s.workload.seqLen); });
    // FSDP can gather at most the layers a GPU holds ahead; more would count memory for layers that do not exist.
    // Stages hold ceil(layers / pp) layers, as the step time counts them (step_context.cpp).
    if (s.flags.fsdpPrefetchLayers < 0
        || static_cast<long long>(s.flags.fsdpPrefetchLayers) > layersPerStageRoundedUp(m_shape.layers, p.pp))
        return refuse(
            figures, "FSDP prefetch cannot exceed the layers of a pipeline stage (layers / pp, rounded up)", [&] {
                return "prefetch " + n(s.flags.fsdpPrefetchLayers) + ", "
                    + n(double(layersPerStageRoundedUp(m_shape.layers, p.pp))) + " layers per stage";
            });
    if (const char* offload = offloadProblem(s.flags, figures))
        return offload;
    if (!isExpertCapacityFactor(p.expertCapacityFactor))
        return "the expert capacity factor must be 0 (dropless) or between 1 and 16";
    if (!isExpertLoadImbalance(p.expertLoadImbalance))
        return "the busiest expert's load must be 0 (the model's own) or between 1 and 16 times the mean";
    // A stated load contradicts a router that is forced to balance or a capacity that pads every expert: refused,
    // not silently ignored.
    if (p.expertLoadImbalance > 0 && (p.expertBalance == ExpertBalance::Forced || p.expertCapacityFactor > 0))
        return "the busiest expert's load applies to dropless routing only (forced balance runs every expert at "
               "the mean; a capacity factor pads every expert to it)";
    if (p.expertTp < 0 || p.expertNodeLimit < 0)
        return "the expert TP degree and the expert node limit cannot be negative";
    if (p.ep > 1 || p.expertTp > 1) {
        if (m_shape.experts <= 0)
            return "ep and expert TP need a mixture-of-experts model";
        if (static_cast<int>(m_shape.experts) % p.ep != 0)
            return refuse(figures, "ep must divide the number of experts",
                [&] { return "ep " + n(p.ep) + ", " + n(m_shape.experts) + " experts"; });
        // MoE Parallel Folding: the expert group (EP x expert TP) is drawn from the stage's TP x CP x data-parallel
        // ranks.
        const long long stageRanks = static_cast<long long>(p.tp) * p.cp * fsdpShards(s) * p.hsdpReplicas;
        const long long expertBlock = static_cast<long long>(p.ep) * resolvedExpertTp(p);
        if (stageRanks % expertBlock != 0)
            return refuse(figures,
                "ep x expert TP must divide tp x cp x data-parallel ranks (experts are folded over them)", [&] {
                    return "ep x expert TP = " + n(static_cast<double>(expertBlock))
                        + ", tp x cp x data-parallel = " + n(static_cast<double>(stageRanks));
                });
        if (static_cast<long long>(m_shape.ffnWidth) % resolvedExpertTp(p) != 0)
            return refuse(figures, "expert TP must divide the experts' FFN width",
                [&] { return "expert TP " + n(resolvedExpertTp(p)) + ", width " + n(m_shape.ffnWidth); });
    }
    if (const char* kernel = attentionKernelUnavailable(s.flags.attentionKernel, m_family))
        return kernel;
    if (s.precision == TrainingPrecision::BF16_FP8 && m_peakFp8 <= 0)
        return "BF16+FP8 needs a dense FP8 peak for this hardware";
    if (s.flags.fp8ParamGather && s.precision != TrainingPrecision::BF16_FP8)
        return "FP8 parameters need BF16+FP8 linear layers";
    if (s.flags.quantizedWeightCache && linearLayerFormat(s.precision) == NumberFormat::BF16)
        return "Cached quantised weights need BF16+FP8 or BF16+FP4 linear layers";
    if (s.flags.fp8ParamGather && !fp8RecipeGathersFp8(s.flags.fp8Recipe))
        return "FP8 parameters need a tensorwise, blockwise or MXFP8 recipe (rowwise scaling gathers BF16)";
    if (s.flags.fp8Attention && m_peakFp8 <= 0)
        return "FP8 attention needs a dense FP8 peak for this hardware";
    if (s.flags.fp8Attention) {
        // The FP8 attention kernels modelled are cuDNN's (NVIDIA Hopper and Blackwell) and FlashAttention 3's
        // (Hopper): off those GPUs no kernel choice helps, so the refusal says so rather than naming kernels the GPU
        // then refuses in turn.
        if (m_family != AcceleratorFamily::Hopper && m_family != AcceleratorFamily::Blackwell)
            return "FP8 attention is modelled for NVIDIA Hopper and Blackwell GPUs only (cuDNN, FlashAttention 3)";
        const AttentionKernel kernel = resolveAttentionKernel(s.flags.attentionKernel, m_family);
        if (kernel != AttentionKernel::Cudnn && kernel != AttentionKernel::FlashAttention3)
            return "FP8 attention needs the cuDNN or FlashAttention 3 kernel";
    }
    // Block-scaled MX formats: NVIDIA Blackwell's tensor cores, and AMD's CDNA 4 (MI350 series), whose scaled MFMA
    // instructions came with its FP4 (AMD CDNA 4 Instruction Set Architecture): an AMD preset with a dense FP4 peak.
    const bool mxFormats
        = m_family == AcceleratorFamily::Blackwell || (m_family == AcceleratorFamily::Amd && m_peakFp4 > 0);
    if (s.precision == TrainingPrecision::BF16_FP8 && s.flags.fp8Recipe == Fp8Recipe::Mxfp8 && !mxFormats)
        return "MXFP8 needs block-scaled FP8 tensor cores (NVIDIA Blackwell, AMD MI350 series)";
    // A graph replays what it captured: a dispatch that copies its token counts to the host cannot be in it.
    if (s.flags.cudaGraphs == CudaGraphs::FullIteration && p.expertHostSync == ExpertHostSync::PerLayer
        && m_shape.experts > 0)
        return "a full-iteration CUDA graph cannot capture an expert dispatch that copies its token counts to the "
               "host (expert host sync per_layer): graph per module, or use a sync-free dispatch (HybridEP, a "
               "capacity factor)";
    if (const char* fp4 = s.precision == TrainingPrecision::BF16_FP4 ? fp4Unavailable(s) : nullptr)
        return fp4;
    if (gpus > s.cluster.domainSize() && s.cluster.hardware.scaleOutBandwidthBytesPerSec <= 0)
        return refuse(figures,
            "the GPUs span several scale-up domains but the hardware has no scale-out bandwidth (state the cluster's "
            "network per GPU: Network per GPU in the window, --scale-out-gbps on the command line)",
            [&] { return n(gpus) + " GPUs, " + n(s.cluster.domainSize()) + " per domain"; });
    if (s.cluster.hardware.hbmBytes <= 0)
        return "hardware memory capacity is missing";
    return nullptr;
}

StepPrediction CostModel::evaluate(const Scenario& s) const
{
    return evaluate(s, TermScales {});
}

StepPrediction CostModel::evaluate(const Scenario& s, const TermScales& scales) const
{
    if (const char* reason = invalidReason(s))
        throw InputError("cost model: " + invalidReasonText(s).value_or(reason));
    StepPrediction p = evaluateValid(s, scales);
    if (const auto beyond = beyondPhysics(p, s)) // refused, never printed (core/costmodel/physical_bounds.h)
        throw InputError("cost model: " + *beyond);
    return p;
}

StepPrediction evaluate(const Scenario& scenario)
{
    return CostModel(scenario).evaluate(scenario);
}

} // namespace mfu
