#include "core/costmodel/memory_bound_terms.h"

#include <algorithm>

#include "core/costmodel/compute_terms.h"
#include "core/costmodel/cost_model.h"
#include "core/costmodel/data_parallel_comm.h"

namespace mfu {

namespace {

// Weights a rank casts to BF16 each micro-step under autocast: its layers' linear weights and the LM head (the
// embedding lookup is not autocast).
double autocastCastParams(const StepContext& x)
{
    const ModelShape& sh = *x.shape;
    const double dense = (sh.paramsPerLayer - sh.expertParamsPerLayer) / x.tp;
    const double experts = sh.expertParamsPerLayer / (x.ep * x.expertTp);
    return x.layersPerStage * (dense + experts) + x.headPassesOnStage * sh.layer.hidden * sh.vocab / x.tp;
}

// The FFN width whose elementwise passes and quantisation run as kernels of their own: all of it, less the routed
// experts' share when their activation and its quantisation are fused into the grouped GEMMs' epilogues.
double unfusedFfnDim(const StepContext& x)
{
    const LayerShape& l = x.shape->layer;
    return x.scenario->flags.fusedExpertMlp ? l.ffnDim - l.routedFfnDim : l.ffnDim;
}

// The hidden vector's passes (norms, residual adds) are counted for a transformer layer's two sublayers; a layer of
// one sublayer (a Nemotron-H block) makes half of them.
double sublayerShare(const ModelShape& sh)
{
    return sh.layer.sublayersPerLayer / 2.0;
}

// Elementwise work and the loss under torch.autocast over FP32 weights, eager or compiled, without fused norm
// kernels: the op-by-op byte count of docs/cost-model.md, "Memory-bound work under autocast". Eager kernels move it at
// eagerHbmEfficiency.
MemoryBoundTime autocastElementwiseAndLoss(const StepContext& x)
{
    const CostModelConstants& c = *x.constants;
    const ModelShape& sh = *x.shape;
    const bool eager = !x.scenario->flags.compiled;
    const double tokens = x.tokensPerMicroBatch;
    const double perHidden = eager ? c.autocastEagerBytesPerHidden : c.autocastCompiledBytesPerHidden;
    const double perFfn = eager ? c.autocastEagerBytesPerFfn : c.autocastCompiledBytesPerFfn;
    const double perQuery = eager ? c.autocastEagerBytesPerQuery : c.autocastCompiledBytesPerQuery;
    // Compiled, Inductor fuses a q/k RMSNorm with RoPE (in perQuery); eager, PyTorch runs its composite form.
    const double perQkNormElement = eager ? c.autocastEagerBytesPerQkNormElement : 0.0;
    const double perLogit = x.scenario->flags.fusedLinearCrossEntropy ? c.lossBytesPerLogitCompiled
        : eager                                                       ? c.autocastEagerLossBytesPerLogit
                                                                      : c.autocastCompiledLossBytesPerLogit;
    MemoryBoundTime m;
    m.elementwiseBytes = tokens * x.layersPerStage
        * (perHidden * sublayerShare(sh) * sh.layer.hidden / x.sequenceParallelSplit()
            + perFfn * unfusedFfnDim(x) / x.tp + perQuery * sh.attnOut / x.tp
            + perQkNormElement * sh.layer.qkNormWidth / x.tp);
    m.lossBytes = tokens * sh.vocab / x.tp * perLogit * x.headPassesOnStage;
    m.bytesPerSec = eager ? x.hbmBytesPerSec / c.hbmEfficiency * c.eagerHbmEfficiency : x.hbmBytesPerSec;
    return m;
}

// Elementwise work and the loss in passes over the hidden and FFN vectors: compiled, eager, or eager with fused
// kernels, BF16 working weights (or autocast with fused kernels, whose passes are the same).
MemoryBoundTime passesElementwiseAndLoss(const StepContext& x, bool fusedKernels)
{
    const CostModelConstants& c = *x.constants;
    const ModelShape& sh = *x.shape;
    const FrameworkFlags& flags = x.scenario->flags;
    const double tp = x.tp, tokens = x.tokensPerMicroBatch, layers = x.layersPerStage, dModel = sh.layer.hidden;
    const double hiddenPasses = flags.compiled ? c.elementwiseHiddenPassesCompiled
        : fusedKernels                         ? c.elementwiseHiddenPassesFusedKernels
                                               : c.elementwiseHiddenPassesEager;
    const double ffnPasses = flags.compiled ? c.elementwiseFfnPassesCompiled
        : fusedKernels                      ? c.elementwiseFfnPassesFusedKernels
                                            : c.elementwiseFfnPassesEager;
    double elementwiseBytes = 2.0 * tokens * layers
        * (hiddenPasses * sublayerShare(sh) * dModel / (x.sequenceParallel ? tp : 1.0)
            + ffnPasses * unfusedFfnDim(x) / tp);
    // Hyper-connections (DeepSeek-V4's mHC, n residual streams): around each of a layer's sublayers the streams are
    // read and mixed into its input (n + 1 vectors), and its output and the streams mixed back (2n + 1): 3n + 2
    // hidden vectors in BF16 per sublayer, forward and twice that backward.
    if (sh.hyperConnections > 0)
        elementwiseBytes += 2.0 * tokens * layers * 3.0 * sh.layer.sublayersPerLayer * (3.0 * sh.hyperConnections + 2.0)
            * dModel / (x.sequenceParallel ? tp : 1.0);
    // A fused linear cross-entropy computes the softmax and its gradient in one kernel per chunk of BF16 logits, the
    // traffic of a compiled loss.
    const bool fusedLoss = flags.compiled || flags.fusedLinearCrossEntropy;
    double lossBytes = tokens * sh.vocab / tp * (fusedLoss ? c.lossBytesPerLogitCompiled : c.lossBytesPerLogitEager);
    if (x.headPassesOnStage != 1.0)
        lossBytes *= x.headPassesOnStage; // each MTP layer has a loss of its own; a stage without the head has none
    MemoryBoundTime m;
    m.elementwiseBytes = elementwiseBytes;
    m.lossBytes = lossBytes;
    m.bytesPerSec = x.hbmBytesPerSec;
    return m;
}

} // namespace

MemoryBoundTime memoryBoundTime(const StepContext& x)
{
    const FrameworkFlags& flags = x.scenario->flags;
    // torch.compile fuses the norms, SwiGLU and RoPE; an eager run may use Liger Kernel's fused ones instead.
    const bool fusedKernels = !flags.compiled && flags.fusedNormActivation;
    MemoryBoundTime m
        = flags.autocast && !fusedKernels ? autocastElementwiseAndLoss(x) : passesElementwiseAndLoss(x, fusedKernels);
    // A recurrence's convolutions, norms and gates run as kernels of their own, compiled or not, split over TP with
    // its heads.
    m.elementwiseBytes += x.tokensPerMicroBatch * x.layersPerStage * x.shape->recurrentElementwiseBytes / x.tp;
    m.fp8CastBytes = x.fp4 ? fp4CastBytes(x) : fp8CastBytes(x);
    if (flags.autocast) // the weights' BF16 casts each micro-step, whichever kernels run the rest
        m.autocastCastBytes = x.constants->autocastWeightCastBytesPerParam * autocastCastParams(x);
    m.moeShuffleBytes = moeShuffleBytes(x);
    return m;
}

namespace {

// Elements each GEMM's quantised operands hold per token and layer on one rank: the input (forward) and the output
// gradient (backward) of every linear layer. The hidden-wide ones (the column-parallel GEMMs' inputs, the
// row-parallel GEMMs' output gradients), counted h per sublayer as a transformer layer's 2h, are whole on every TP
// rank once sequence parallelism has gathered them, or always without it, so a recipe splits them by `hiddenSplit`:
// TP when it casts its sequence shard and gathers the quantised tensor, 1 when every rank casts the whole gathered
// one. The operands split over heads or the FFN are a TP-th on every rank: attention's on the layers that attend,
// the recurrences' projections on theirs, and the FFN's up-projection output gradient (2F gated, F not) and
// down-projection input (F).
double castOperandsPerToken(const StepContext& x, double hiddenSplit)
{
    const ModelShape& sh = *x.shape;
    const LayerShape& l = sh.layer;
    const double ffn = (l.gatedFfn ? 3.0 : 2.0) * unfusedFfnDim(x);
    const double attentionGate = l.attentionOutputGate ? sh.attnOut : 0.0; // q_proj's gate half, one per channel
    return l.sublayersPerLayer * l.hidden / hiddenSplit
        + (l.keyValueLayerShare * (sh.qkvOut + attentionGate + sh.attnOut) + sh.recurrentProjectionWidth + ffn) / x.tp;
}

} // namespace

double fp8CastBytes(const StepContext& x)
{
    if (!x.fp8)
        return 0;
    const CostModelConstants& c = *x.constants;
    const double layers = x.layersPerStage;
    // Each GEMM casts its input (forward) and output gradient (backward); weights are cast every micro-batch.
    // Blockwise, MXFP8 and rowwise scales quantise in both orientations (the backward GEMMs read the transpose);
    // rowwise with BF16 weight gradients casts the activations and their gradients in one (the GEMM that would read
    // their transposes runs in BF16).
    const Fp8Recipe recipe = x.scenario->flags.fp8Recipe;
    const bool oneOrientation = recipe == Fp8Recipe::Tensorwise || recipe == Fp8Recipe::RowwiseWithGwHp;
    const double perElement = oneOrientation ? c.fp8CastBytesPerElement : c.fp8BlockCastBytesPerElement;
    // TorchAO's rowwise recipes gather BF16, and every rank casts the whole tensor.
    const double operands = castOperandsPerToken(x, fp8RecipeGathersFp8(recipe) ? x.sequenceParallelSplit() : 1.0);
    // FP8 parameters are cast once a step, after the optimizer, on the data-parallel shard: not per micro-batch. A
    // per-tensor cast writes one orientation, so each weight is cast twice (itself and its transpose); the block
    // recipes' bytes per element already write both.
    const double passes = oneOrientation ? 2.0 : 1.0;
    const double weightCasts = x.scenario->flags.fp8ParamGather ? 0.0 : passes * weightCastsPerMicroBatch(x);
    return perElement * layers * (x.tokensPerMicroBatch * operands + weightCasts * quantisedLinearParamsPerLayer(x));
}

double weightCastsPerMicroBatch(const StepContext& x)
{
    // Every micro-batch quantises the weights again; cached, only the step's first does: spread over the step's
    // micro-batches.
    return x.scenario->flags.quantizedWeightCache ? 1.0 / std::max(1.0, x.microBatches) : 1.0;
}

double quantisedLinearParamsPerLayer(const StepContext& x)
{
    // Every linear weight the rank holds, each of its local experts included whether or not a token picks it: the
    // layers' linear weights less the router (it stays BF16) and the routed experts a token activates, split by TP,
    // and the routed experts themselves over the EP x expert-TP ranks that hold them.
    const ModelShape& sh = *x.shape;
    const double activeRouted = sh.routedFfnShare * sh.ffnFlops / 2.0;
    const double dense = sh.activeLinearParamsPerLayer - sh.routerFlops / 2.0 - activeRouted;
    return dense / x.tp + sh.expertParamsPerLayer / (x.ep * x.expertTp);
}

double fp4CastBytes(const StepContext& x)
{
    const CostModelConstants& c = *x.constants;
    const FrameworkFlags& flags = x.scenario->flags;
    // The same operands as FP8's: each GEMM's input (forward) and output gradient (backward) per token, the weights
    // once per micro-batch (or per step, cached); every recipe writes both orientations (the backward GEMMs read the
    // transpose). The layers kept in BF16 cast nothing. Stochastic rounding and the 16 x 16 Hadamard transform are
    // arithmetic inside the same passes, not traffic.
    const double perElement
        = flags.fp4Recipe == Fp4Recipe::Mxfp4 ? c.mxfp4CastBytesPerElement : c.nvfp4CastBytesPerElement;
    // Transformer Engine's FP4 recipes quantise the sequence shard and gather the quantised tensor, as its FP8
    // recipes do; without sequence parallelism every rank holds, and casts, the whole hidden-wide operands.
    const double operands = castOperandsPerToken(x, x.sequenceParallelSplit());
    return perElement * (1.0 - flags.fp4Bf16LayerShare) * x.layersPerStage
        * (x.tokensPerMicroBatch * operands + weightCastsPerMicroBatch(x) * quantisedLinearParamsPerLayer(x));
}

double moeShuffleBytes(const StepContext& x)
{
    const ModelShape& sh = *x.shape;
    const CostModelConstants& c = *x.constants;
    if (!(sh.experts > 0))
        return 0;
    const double perToken
        = c.moePermuteBytesPerElement * (sh.expertsPerToken * x.expertLoad + 1.0) * sh.expertDispatchWidth
        + c.moeRouterBytesPerExpert * sh.experts;
    return x.moeTokensPerMicroBatch * x.layersPerStage * sh.moeLayerShare * perToken;
}

int optimizerGroupOf(const StepContext& x)
{
    const Parallelism& par = x.scenario->parallelism;
    if (par.dataParallel == DataParallelKind::Ddp)
        return 1;
    return x.fsdp ? x.fsdpGroup : static_cast<int>(x.dataParallel) * par.cp;
}

int expertOptimizerGroupOf(const StepContext& x)
{
    if (x.scenario->parallelism.dataParallel == DataParallelKind::Ddp)
        return 1;
    return std::max(1, expertShardGroup(x, optimizerGroupOf(x)));
}

double optimizerShardParams(const StepContext& x)
{
    return x.denseStageParams / optimizerGroupOf(x) + x.expertStageParams / expertOptimizerGroupOf(x);
}

double optimizerTime(const StepContext& x)
{
    const CostModelConstants& c = *x.constants;
    const FrameworkFlags& flags = x.scenario->flags;
    const double shardParams = optimizerShardParams(x);
    const double optBytes
        = shardParams * (flags.fusedOptimizer ? c.optimizerBytesPerParamFused : c.optimizerBytesPerParamUnfused);
    const double optSeconds = optBytes / x.hbmBytesPerSec;
    return flags.optimizerInBackward ? optSeconds / x.fsdpUnits : optSeconds;
}

double fp8WeightScaleTime(const StepContext& x)
{
    if (!x.fp8 || x.scenario->flags.fp8ScalesInBackward)
        return 0;
    const double shardParams = optimizerShardParams(x);
    return shardParams * 4.0 / x.hbmBytesPerSec
        + static_cast<double>(ringSteps(Collective::AllReduce, x.fsdpGroup)) * x.tiers.scaleUpLatency;
}

} // namespace mfu
