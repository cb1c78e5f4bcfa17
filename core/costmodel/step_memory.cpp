#include "core/costmodel/step_memory.h"

#include <algorithm>
#include <cmath>

#include "core/costmodel/compute_terms.h"
#include "core/costmodel/offload_terms.h"

namespace mfu {

double moeActivationBytesPerToken(
    const ModelShape& sh, const ActivationLayout& layout, double expertLoad, double expertTp)
{
    if (!(sh.experts > 0))
        return 0;
    const double t = layout.tp > 1 ? static_cast<double>(layout.tp) : 1.0;
    const double copies = sh.expertsPerToken * expertLoad * expertTp / t; // routed copies on this GPU per token
    const double vector = layout.linearInputBytes * sh.expertDispatchWidth;
    const double interiorPerWidth = sh.layer.gatedFfn ? 6.0 : 4.0;
    const double busiest = (expertLoad - 1.0) * interiorPerWidth * sh.layer.routedFfnDim / t;
    double perMoeLayer = 0;
    switch (layout.recompute) {
    case ActivationRecompute::None:
    case ActivationRecompute::AttentionCore:
    case ActivationRecompute::OpLevel: // TorchTitan's SAC saves the all-to-all's output
        perMoeLayer = copies * vector + busiest;
        break;
    case ActivationRecompute::Modules:
        perMoeLayer = (layout.recomputeModules & RecomputeMoe) ? 0.0 : copies * vector + busiest;
        break;
    case ActivationRecompute::Full:
        perMoeLayer = 0;
        break;
    }
    return sh.moeLayerShare * perMoeLayer;
}

double largestLayerParamsOnRank(const StepMemoryInputs& in)
{
    const ModelShape& sh = *in.shape;
    const double tp = std::max(1, in.scenario->parallelism.tp);
    if (!(sh.experts > 0) || !(sh.moeLayerShare > 0))
        return sh.paramsPerLayer / tp;
    // A MoE block: its attention, norms, router and shared experts split by TP, and the routed experts of one MoE
    // layer (the average over all layers divided by their share) by the EP x expert-TP ranks that hold them.
    const double routed = sh.expertParamsPerLayer / sh.moeLayerShare;
    const double rest = sh.paramsPerLayer - sh.expertParamsPerLayer;
    return rest / tp + routed / (std::max(1.0, in.ep) * std::max(1.0, in.expertTp));
}

namespace {

// How the layers save activations for backward in this scenario: the layout and the layer shape it applies to.
struct ActivationSetup {
    ActivationLayout layout;
    LayerShape layer;
};

ActivationSetup activationSetup(const StepMemoryInputs& in)
{
    const Scenario& s = *in.scenario;
    ActivationSetup a;
    ActivationLayout& layout = a.layout;
    layout.tp = s.parallelism.tp;
    layout.sequenceParallel = s.parallelism.sequenceParallel;
    layout.recompute = activationRecomputeFor(s.activationCheckpointing, s.flags.recomputeModules);
    layout.recomputeModules = s.flags.recomputeModules;
    // DeepSeek-V3's blockwise FP8 recipe caches the GEMM inputs it saves for backward in FP8 (report, 3.3.2).
    if (s.precision == TrainingPrecision::BF16_FP8 && s.flags.fp8Recipe == Fp8Recipe::Blockwise)
        layout.linearInputBytes = 1.0;
    layout.keptMatmulFraction = in.constants->selectiveKeptMatmulFraction;
    layout.compiledRematerialisation = s.flags.compiled;
    layout.unfusedPointwise = !s.flags.compiled && !s.flags.fusedNormActivation;
    layout.qkNormSavedBytes = s.flags.compiled ? 0.0 : layout.unfusedPointwise && s.flags.autocast ? 6.0 : 2.0;
    a.layer = in.shape->layer;
    a.layer.flashAttention = !in.unfusedAttention;
    // With Megatron's modules named, MLA keeps its full queries, keys and values unless mla_up_proj is one of them.
    if (layout.recompute == ActivationRecompute::Modules && !(layout.recomputeModules & RecomputeMlaUpProjection))
        a.layer.latentQkvWidth = 0;
    return a;
}

// Bytes per token and layer saved for backward, MoE layers' dispatched copies included, with Megatron's block
// method of full checkpointing blended in.
double savedBytesPerTokenLayer(const StepMemoryInputs& in, const ActivationSetup& a)
{
    const ModelShape& sh = *in.shape;
    const double seq = static_cast<double>(in.scenario->workload.seqLen);
    double perTokenLayer = activationBytesPerTokenLayer(a.layer, seq, a.layout);
    if (sh.experts > 0)
        perTokenLayer += moeActivationBytesPerToken(sh, a.layout, in.expertLoad, in.expertTp);
    if (a.layout.recompute == ActivationRecompute::Full && in.fullRecomputeShare < 1.0) {
        // Megatron's block method: the other layers keep everything.
        ActivationLayout kept = a.layout;
        kept.recompute = ActivationRecompute::None;
        double keptBytes = activationBytesPerTokenLayer(a.layer, seq, kept);
        if (sh.experts > 0)
            keptBytes += moeActivationBytesPerToken(sh, kept, in.expertLoad, in.expertTp);
        perTokenLayer = in.fullRecomputeShare * perTokenLayer + (1.0 - in.fullRecomputeShare) * keptBytes;
    }
    return perTokenLayer;
}

} // namespace

double offloadedModuleBytesPerToken(
    const ModelShape& sh, const ActivationLayout& layout, double expertLoad, double expertTp, unsigned modules)
{
    if (modules == 0 || !(sh.experts > 0) || layout.recompute == ActivationRecompute::Full)
        return 0;
    if (layout.recompute == ActivationRecompute::Modules && (layout.recomputeModules & RecomputeMoe))
        return 0; // the whole MoE layer is rebuilt in backward: nothing of it is saved
    const double t = layout.tp > 1 ? static_cast<double>(layout.tp) : 1.0;
    double bytes = 0;
    if (modules & OffloadExpertFc1) {
        // The dispatched copies each expert keeps for its FC1 weight gradient (moeActivationBytesPerToken).
        const double copies = sh.expertsPerToken * expertLoad * expertTp / t;
        bytes += sh.moeLayerShare * copies * layout.linearInputBytes * sh.expertDispatchWidth;
    }
    if (modules & OffloadMoeActivation) {
        // The activation function's input, FC1's output: gate and up (4F bytes in BF16) or GELU's input (2F), at the
        // busiest expert rank's load as the saved activations count it; TorchTitan's op-level policy keeps only its
        // share of the matmul outputs (activation_memory.cpp), and only that can leave.
        const double perWidth = sh.layer.gatedFfn ? 4.0 : 2.0;
        const double kept = layout.recompute == ActivationRecompute::OpLevel ? layout.keptMatmulFraction : 1.0;
        bytes += kept * expertLoad * layout.linearInputBytes / 2.0 * perWidth * sh.layer.routedFfnDim / t;
    }
    return bytes;
}

namespace {

// What the named modules hold per token and layer. Under Megatron's block method of full checkpointing the layers it
// does not recompute keep every tensor, the modules' among them, and offload those.
double namedModuleBytesPerTokenLayer(const StepMemoryInputs& in, const ActivationSetup& a)
{
    const unsigned modules = in.scenario->flags.activationOffloadModules;
    if (a.layout.recompute != ActivationRecompute::Full)
        return offloadedModuleBytesPerToken(*in.shape, a.layout, in.expertLoad, in.expertTp, modules);
    ActivationLayout kept = a.layout;
    kept.recompute = ActivationRecompute::None;
    return (1.0 - in.fullRecomputeShare)
        * offloadedModuleBytesPerToken(*in.shape, kept, in.expertLoad, in.expertTp, modules);
}

} // namespace

double offloadedActivationBytesPerTokenLayer(const StepMemoryInputs& in)
{
    const FrameworkFlags& flags = in.scenario->flags;
    if (!(flags.activationOffloadFraction > 0) && flags.activationOffloadModules == 0)
        return 0;
    const ActivationSetup a = activationSetup(in);
    const double saved = savedBytesPerTokenLayer(in, a);
    const double modules = std::min(saved, namedModuleBytesPerTokenLayer(in, a));
    // The fraction applies to what the named modules leave on the GPU.
    return modules + std::clamp(flags.activationOffloadFraction, 0.0, 1.0) * (saved - modules);
}

MemoryBreakdown stepMemory(const StepMemoryInputs& in)
{
    const ModelShape& sh = *in.shape;
    const CostModelConstants& c = *in.constants;
    const Scenario& s = *in.scenario;
    const auto& par = s.parallelism;
    const double tp = par.tp;
    const bool fsdp = shardsWeights(par.dataParallel);
    const double shard
        = (in.modelParallelParams - in.expertParams) / std::max(1, fsdp ? in.fsdpGroup : in.optimizerGroup)
        + in.expertParams / std::max(1, in.expertOptimizerGroup);
    const double reduceBytes = s.flags.reduceInBf16 ? 2.0 : 4.0;
    // The working weights' bytes per parameter: BF16, or FP8 for the linear layers with FP8 parameters.
    const double denseWeightBytes = workingWeightBytes(sh, s, false);
    const double linearWeightBytes = workingWeightBytes(sh, s, true); // all-linear weights: the experts, a layer
    const double workingWeights
        = denseWeightBytes * (in.modelParallelParams - in.expertParams) + linearWeightBytes * in.expertParams;
    // Optimizer-state offload: this share of the FP32 master weights and the moments lives in host memory.
    const double onDevice = 1.0 - std::clamp(s.flags.optimizerOffloadFraction, 0.0, 1.0);

    MemoryBreakdown m;
    m.parameters = 4.0 * shard * onDevice;
    // torch FSDP's CPUOffload keeps the reduced gradient shard in host memory too (the unit's unsharded gradients
    // being reduced are among the temporaries); Megatron's offloaded optimizer reduces on the GPU and keeps them.
    m.gradients = s.flags.optimizerInBackward ? 0.0 : 4.0 * shard * (1.0 - fsdpHostShardShare(s));
    m.optimizerState = 8.0 * shard * onDevice;
    if (!fsdp) {
        // Whole working weights and whole gradients on every data-parallel rank.
        m.parameters += workingWeights;
        m.gradients = reduceBytes * in.modelParallelParams;
    }
    // Cached FP8/FP4 weight copies live for the whole step, beside the BF16 ones.
    m.parameters += cachedQuantizedWeightBytes(sh, s, false) * (in.modelParallelParams - in.expertParams)
        + cachedQuantizedWeightBytes(sh, s, true) * in.expertParams;
    m.reserved = c.runtimeReservedBytes;

    const ActivationSetup setup = activationSetup(in);
    const ActivationLayout& layout = setup.layout;
    const LayerShape& layer = setup.layer;
    const double seq = static_cast<double>(s.workload.seqLen);
    const double perTokenLayer = savedBytesPerTokenLayer(in, setup);
    double inFlight = 1.0;
    if (par.pp > 1) {
        inFlight = std::min(static_cast<double>(par.pp - in.pipelineRank), in.microBatchesPerStep);
        if (par.virtualStages > 1)
            inFlight *= 1.0 + (par.pp - 1.0) / (static_cast<double>(par.pp) * par.virtualStages);
    }
    m.activations = perTokenLayer * in.tokensPerMicroBatch * in.layersPerStage * inFlight;
    // Activation offload: what goes to the host leaves the GPU but for the layer being copied out and the one being
    // copied back ahead of its backward (a double buffer), never more than was saved.
    if (const double offloaded = offloadedActivationBytesPerTokenLayer(in); offloaded > 0) {
        const double buffers = 2.0 * offloaded * in.tokensPerMicroBatch;
        m.activations = std::min(m.activations,
            (perTokenLayer - offloaded) * in.tokensPerMicroBatch * in.layersPerStage * inFlight + buffers);
    }
    // A vision-language run's encoder: its weights, gradients and optimizer state sharded like the model's, and the
    // activations its blocks save for the micro-batch's patches (merge^2 per vision token): per patch and block the
    // inputs of Q/K/V, the output projection and the MLP, Q/K/V themselves, the MLP interior and two norm inputs,
    // 16h + 2(2 or 3)I bytes in BF16; the block input alone (2h) under full checkpointing; none when it is frozen.
    // Unvalidated: the reference that lowers its packing length for images names this memory but gives no figure.
    if (s.model.vision && s.workload.vision.tokensPerSequence > 0 && s.workload.seqLen > 0) {
        const VisionEncoderSpec& v = *s.model.vision;
        const double params = static_cast<double>(visionParameters(v));
        const double shardV = params / std::max(1, in.fsdpGroup);
        const bool trained = s.workload.vision.encoderTrained;
        m.parameters += (trained ? 4.0 : 2.0) * shardV;
        if (trained) {
            m.gradients += s.flags.optimizerInBackward ? 0.0 : 4.0 * shardV;
            m.optimizerState += 8.0 * shardV;
            const double patches = in.tokensPerMicroBatch * static_cast<double>(s.workload.vision.tokensPerSequence)
                / static_cast<double>(s.workload.seqLen) * static_cast<double>(v.spatialMerge * v.spatialMerge);
            const double h = static_cast<double>(v.hidden);
            const double perPatchBlock = s.activationCheckpointing == ActivationCheckpointing::Full
                ? 2.0 * h
                : 16.0 * h + 2.0 * (v.gatedMlp ? 3.0 : 2.0) * static_cast<double>(v.mlpDim);
            m.activations += patches * static_cast<double>(v.depth) * perPatchBlock;
        }
    }

    // Temporary buffers.
    double temp = 0;
    const double layerParams = largestLayerParamsOnRank(in);
    const double unitParams = std::max(layerParams, (sh.embeddingParams + sh.lmHeadParams) / tp / 2.0);
    if (!fsdp) {
        // Nothing is gathered: the weights and gradients above are whole.
    } else if (in.fsdpGroup > 1 && par.pp > 1) {
        // PP keeps the stage's weights (BF16) and gradients unsharded across the step's micro-batches.
        temp += workingWeights + in.modelParallelParams * reduceBytes;
    } else if (in.fsdpGroup > 1) {
        // The largest unit gathered: a layer (all linear: FP8 with FP8 parameters) or the embedding and LM head (BF16).
        const double layerUnitBytes = layerParams * linearWeightBytes;
        const double edgeUnitBytes = (sh.embeddingParams + sh.lmHeadParams) / tp / 2.0 * 2.0;
        const double gathered
            = (std::max(1, s.flags.fsdpPrefetchLayers) + 1.0) * std::max(layerUnitBytes, edgeUnitBytes);
        // One unit's unsharded BF16 gradients, plus their FP32 copy when the reduction runs in FP32.
        const double reducing = unitParams * (2.0 + (reduceBytes > 2.0 ? reduceBytes : 0.0));
        temp += gathered + reducing;
    } else if (s.flags.optimizerInBackward) {
        temp += 2.0 * unitParams * 4.0;
    }
    // Logits (BF16) and their gradient; eager mode upcasts to FP32 for the loss. A fused linear cross-entropy holds one
    // chunk of them: Liger Kernel's chunk is the tokens over ceil(vocab / hidden) chunks, rounded up to a power of two
    // (liger_kernel/ops/fused_linear_cross_entropy.py), with FP32 logits and their gradient.
    double logitTokens = in.tokensPerMicroBatch;
    double logitBytes = s.flags.compiled ? 4.0 : 10.0;
    if (s.flags.fusedLinearCrossEntropy && sh.layer.hidden > 0) {
        const double chunks = std::ceil(sh.vocab / sh.layer.hidden);
        logitTokens = std::min(logitTokens, std::exp2(std::ceil(std::log2(std::max(1.0, logitTokens / chunks)))));
        logitBytes = 8.0;
    }
    if (in.holdsLogits)
        temp += logitTokens * sh.vocab / tp * logitBytes;
    // Recomputation rebuilds one layer's activations at a time.
    if (layout.recompute != ActivationRecompute::None) {
        ActivationLayout whole = layout;
        whole.recompute = ActivationRecompute::None;
        temp += (activationBytesPerTokenLayer(layer, seq, whole) - perTokenLayer) * in.tokensPerMicroBatch;
    }
    temp += c.allocatorFragmentation * (m.activations + temp);
    m.temporary = temp;
    return m;
}

void classifyBottleneck(StepPrediction& p)
{
    const TimeBreakdown& t = p.time;
    double worst = -1;
    for (CommKind k : kAllCommKinds) {
        if (t.comm(k) > worst) {
            worst = t.comm(k);
            p.worstComm = k;
        }
    }
    if (!p.fits) {
        p.bottleneck = Bottleneck::Memory;
        return;
    }
    struct Part {
        Bottleneck b;
        double seconds;
    };
    const Part parts[] = { { Bottleneck::Compute, t.matmul }, { Bottleneck::Attention, t.attention },
        { Bottleneck::MemoryBandwidth, t.memoryBound }, { Bottleneck::Recompute, t.recompute },
        { Bottleneck::Communication, t.exposedCommTotal() }, { Bottleneck::PipelineBubble, t.pipelineBubble },
        { Bottleneck::Overhead, t.overhead } };
    // Compute is the healthy limit; name another part when it costs at least a tenth of the step.
    p.bottleneck = Bottleneck::Compute;
    double largest = 0;
    for (const Part& part : parts) {
        if (part.b == Bottleneck::Compute || part.b == Bottleneck::Attention)
            continue;
        if (part.seconds > largest) {
            largest = part.seconds;
            p.bottleneck = part.b;
        }
    }
    if (largest < 0.1 * p.stepTimeSeconds)
        p.bottleneck = t.attention > t.matmul ? Bottleneck::Attention : Bottleneck::Compute;
}

} // namespace mfu
