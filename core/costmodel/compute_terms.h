#pragma once
// The matmuls of one micro-batch on one GPU: every GEMM's forward FLOPs over the peak of its format times an
// efficiency that falls as its limiting dimension shrinks; backward is twice the forward (docs/cost-model.md,
// "Matmuls").
#include "core/costmodel/step_context.h"

namespace mfu {

struct ModelSpec;

// Efficiency factor of a GEMM whose limiting dimension (the smallest of tokens, out and in per GPU) is d:
// d / (d + gemmHalfSaturationDim).
double gemmShapeFactor(double d, const CostModelConstants& c);
// A linear layer's shape factor at the rate its format runs (gemmPeak, linearGemmPeak's): gemmShapeFactor, and in
// an FP8 or FP4 run d / (d + fastFormatGemmHalfSaturationDim x (speed-up over BF16 - 1)) on top.
double linearShapeFactor(double d, const StepContext& x, double gemmPeak);

struct MatmulTime {
    double layerForwardPerToken = 0; // one layer's GEMMs, seconds per token (forward)
    double qkvShapeFactor = 1; // the QKV projection's shape factor (MLA's up-projections run at it too)
    // Parts of layerForwardPerToken that selective recompute of Megatron's modules repeats: dense layers' MLPs, shared
    // experts, and routed experts (at the busiest expert's load).
    double denseMlpPerToken = 0, sharedExpertsPerToken = 0, routedExpertsPerToken = 0;
    // The routed experts' routing work one layer costs per token beyond their grouped GEMMs at the kernels' rate
    // (groupedGemmKernelPlateauShare): what the width law charges on top. Not in layerForwardPerToken or forward;
    // the step books it as memory-bound work, forward once and backward twice, as the GEMMs it rides on.
    double moeRoutingPerToken = 0;
    double moeRoutingForward = 0; // the stage's layers, seconds per micro-batch (forward)
    double forward = 0; // the stage's layers and the LM head, seconds per micro-batch
    double visionTraining = 0; // a vision-language run's encoder, forward and backward (0 without one)
    double visionForward = 0; // its forward alone, what full checkpointing repeats
    double total() const { return 3.0 * forward + visionTraining; } // forward, and backward at twice the forward
    double moeRoutingTotal() const { return 3.0 * moeRoutingForward; }
};

MatmulTime matmulTime(const StepContext& x, const ModelSpec& model);

// The peak linear layers run at: the format's dense peak (FP8 x the recipe's efficiency ratio in BF16+FP8 runs, the
// weight gradients of a recipe that keeps them in BF16 at the BF16 peak; FP4 x fp4GemmEfficiencyRatio in BF16+FP4
// runs, the share kept in BF16 at the BF16 peak) x gemmEfficiency, before the shape factor.
double linearGemmPeak(const StepContext& x);
// A format's share of its dense peak that linear GEMMs reach relative to BF16's (before gemmEfficiency and the shape
// factor): 1 for BF16, fp8GemmEfficiencyRatio x fp8RecipeGemmRatio for FP8, fp4GemmEfficiencyRatio for FP4.
// linearGemmPeak's per-format figure; calibration models traced GEMMs of each format with it.
double linearFormatRatio(NumberFormat format, Fp8Recipe recipe, const CostModelConstants& c);
// An FP8 recipe's GEMM speed relative to the per-tensor recipe's: blockwise, MX and rowwise scales cost the main loop
// or the epilogue something.
double fp8RecipeGemmRatio(Fp8Recipe recipe, const CostModelConstants& c);
// Bytes per parameter of the working weights a GPU gathers and computes with: 2 (BF16), or with FP8 parameters
// (FrameworkFlags::fp8ParamGather in a BF16+FP8 run) 1 for the linear layers' weights, the embedding and the LM head
// staying BF16. experts: the routed experts' weights (all linear); else the rest, whose linear share is the model's.
double workingWeightBytes(const ModelShape& shape, const Scenario& scenario, bool experts);
// The share of the non-expert parameters in linear layers (all but the embedding and the LM head).
double denseLinearShare(const ModelShape& shape);
// Bytes per parameter of the quantised weight copies FrameworkFlags::quantizedWeightCache keeps for the step: both
// orientations of each linear weight in FP8 (none with FP8 parameters, which are the FP8 copy) or FP4 (the layers
// kept in BF16 none); experts as in workingWeightBytes.
double cachedQuantizedWeightBytes(const ModelShape& shape, const Scenario& scenario, bool experts);
// The share of a BF16+FP8 run's linear-layer FLOPs its recipe keeps in BF16 (TorchAO's rowwise_with_gw_hp: the weight
// gradients, a third).
double fp8Bf16GemmShare(Fp8Recipe recipe);
// Whether a recipe's tensors can be cast before a gather and gathered in FP8: FSDP's weights
// (FrameworkFlags::fp8ParamGather) and sequence parallelism's activations before the column-parallel GEMMs. TorchAO
// gathers FP8 only with per-tensor scales: Float8LinearConfig refuses enable_fsdp_float8_all_gather with rowwise
// scaling, and TorchTitan's apply_tp takes its Float8ColwiseParallel / Float8RowwiseParallel (cast, then gather) for
// the tensorwise recipe only, the plain BF16 styles for the rowwise ones. Transformer Engine casts before its
// sequence-parallel gathers (tensorwise, blockwise and MXFP8 alike).
bool fp8RecipeGathersFp8(Fp8Recipe recipe);

// Grouped GEMMs of the routed experts (docs/cost-model.md, "Grouped GEMMs"): the tokens each local expert receives
// per micro-batch, and the efficiency factor of its GEMMs, (width / (width + groupedGemmHalfSaturationDim)) x the
// token factor, width the expert's per expert-TP rank or the dispatched vector's, whichever is smaller.
double tokensPerExpert(const StepContext& x);
double groupedGemmShapeFactor(const StepContext& x);
// The tokens per expert at which an expert's GEMMs read their weights as fast as they can do the FLOPs: below it
// they stream weights (gemm peak x gemmEfficiency / (achieved HBM x groupedGemmWeightStreamShare)).
double groupedGemmRidgeTokens(const StepContext& x);
// 1 / sqrt(1 + (ridge / tokens)^2): the compute roof far above the ridge, tokens / ridge of it far below.
double groupedGemmTokenFactor(const StepContext& x, double tokens);
// The grouped GEMM kernels' own factor: groupedGemmKernelPlateauShare x the token factor. The time the width law
// charges beyond it is the MoE layer's routing work (MatmulTime::moeRoutingPerToken).
double groupedGemmKernelFactor(const StepContext& x);
// What PyTorch's index kernels spend on the permutation beyond its bytes, seconds per token and layer (forward; the
// step charges the backward twice, like all routing work): unfusedPermutationBytesPerRoutedElement / 3 per routed
// hidden element (the tokens a GPU routes x k x the busiest expert's load x the dispatched width, in MoE layers), at
// the achieved HBM rate. A fused permutation (FrameworkFlags::moePermuteFusion) takes it off the routing work.
double unfusedPermutationPerToken(const StepContext& x);

} // namespace mfu
