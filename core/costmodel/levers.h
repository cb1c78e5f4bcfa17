#pragma once
// The levers a packed or padded run (or a MoE) pulls to do more useful work per second (LMMs-Engine's "remove padding +
// Liger kernel", flash-attention's varlen masking), and what each changes in the cost model's prediction: the scenario
// evaluated with the lever on and with it off, everything else as it is.
//
// Useful tokens per second is the figure to compare: MFU can rise while training slows (attention over the whole
// packed sequence is real work, counted in FLOP/token, but no document learns from the others).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/scenario/scenario.h"

namespace mfu {

enum class Lever {
    RemovePadding, // padding kept in the batch -> removed (varlen, use_rmpad): every processed token trains
    DocumentMasking, // attention over the packed sequence -> per document (varlen / document masking)
    FusedLinearCrossEntropy, // LM head and loss fused in chunks (Liger Kernel): the logits are never held whole
    FusedNormActivation, // fused RMSNorm, SwiGLU and RoPE kernels (Liger Kernel): fewer passes, less saved
    FusedExpertMlp, // MoE: the experts' activation and its quantisation fused into the grouped GEMMs
    MoePermuteFusion, // MoE: the permutation into expert order and back as fused kernels, not PyTorch's index kernels
    Fp8ParamGather, // BF16+FP8: the linear layers' weights held and all-gathered in FP8
    QuantizedWeightCache, // BF16+FP8 and FP4: weights quantised once a step (Transformer Engine), not every micro-batch
    OverlapGradReduce, // DDP and ZeRO-1: the gradient sync in buckets under the backward, not after it
    OverlapParamGather, // ZeRO-1: the updated weights gathered under the next forward, not before it
    // MoE: the experts spread over EP ranks inside the scale-up domain (each GPU holds and computes its share and the
    // tokens travel to them by all-to-all) against every GPU holding, gathering and reducing all of them (EP 1).
    ExpertParallelism,
};

struct LeverOutcome {
    // Absent when the scenario's FLOP count would put it above 100% (core/costmodel/physical_bounds.h): attention
    // over the whole packed sequence without the per-document mask, say. The throughput below is what to compare.
    std::optional<double> mfu;
    std::optional<double> hfu;
    double usefulTokensPerSecPerGpu = 0; // processed tokens/s per GPU less the padding kept
    double stepTimeSeconds = 0;
    double peakMemoryBytes = 0; // per GPU
    bool fits = false;
};

struct LeverEffect {
    Lever lever = Lever::RemovePadding;
    bool inScenario = false; // the scenario already pulls this lever
    // The degree a lever that is more than on or off sets when pulled: expert parallelism's EP ("EP 8"); 0 otherwise.
    int degree = 0;
    LeverOutcome with; // lever pulled
    LeverOutcome without; // lever released
    // What the lever adds to the useful tokens/s per GPU, as a fraction of the figure without it (with / without - 1;
    // 0 when the run without it does nothing): the Predict panel's lever table prints it beside both figures.
    double usefulTokensGain() const
    {
        return without.usefulTokensPerSecPerGpu > 0
            ? with.usefulTokensPerSecPerGpu / without.usefulTokensPerSecPerGpu - 1.0
            : 0.0;
    }
};

// The levers that apply to the scenario, in the order above: padding removal when padding is kept (how much would be
// kept otherwise is not known), document masking when documents are packed, the fused loss always, the fused kernels
// in an eager run (a compiled one fuses them already), the fused expert MLP for MoE models, FP8 parameters for BF16+FP8
// recipes that gather FP8, the weight cache for BF16+FP8 and FP4 runs, the overlapped gradient sync for DDP and ZeRO-1
// over more than one data-parallel rank and the overlapped weight gather for ZeRO-1 there, and expert parallelism for
// a MoE: its own EP against EP 1, or, run without it, the largest EP the layout admits inside the scale-up domain
// (expertParallelismToTry) against none. Empty when the cost model cannot evaluate the scenario (a bare model, an
// invalid layout).
std::vector<LeverEffect> leverEffects(const Scenario& scenario);

// The EP a MoE run without expert parallelism could use: the largest degree that divides the routed experts, fits
// the scale-up domain with the expert TP beside it (the all-to-all on NVLink, where the validation table's MoE runs
// predict best) and gives a layout the cost model evaluates; 0 when none does (a dense model, a domain of one GPU).
int expertParallelismToTry(const Scenario& scenario);

std::string_view leverKey(Lever lever); // "remove_padding", "document_masking", "fused_linear_cross_entropy", ...
std::string_view leverLabel(Lever lever); // "Remove padding", ...
// The lever as every surface names it: its label, with the degree it sets ("Expert parallelism (EP 8)").
std::string leverName(const LeverEffect& effect);

} // namespace mfu
