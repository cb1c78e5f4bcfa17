#pragma once
// The analytic cost model of one training step (equations in docs/cost-model.md).
//
//   step = compute (matmul + attention + memory-bound + recompute) + exposed communication + pipeline bubble
//          + fixed overheads
//   compute time = FLOPs / (dense peak of the precision x efficiency(op, shape)); memory-bound = bytes / HBM BW
//   communication = ring bytes / tier bandwidth + steps x latency; hidden behind the compute it overlaps with
//   (FSDP prefetch, async TP, bucketed DP all-reduce, ring attention), the rest is exposed
//   MFU = FLOP/token (the scenario's formula) x tokens/s per GPU / BF16 dense peak
//
// CostModel precomputes what depends only on the model (parameter counts, layer shapes), so evaluating a scenario
// allocates nothing and takes about a microsecond; the planner calls it hundreds of thousands of times.
#include "core/costmodel/activation_memory.h"
#include "core/costmodel/attention_kernels.h"
#include "core/costmodel/constants.h"
#include "core/costmodel/step_prediction.h"
#include "core/costmodel/term_scales.h"
#include "core/scenario/scenario.h"
#include <optional>
#include <string>
#include <vector>

namespace mfu {

// Model facts the cost model needs, computed once per ModelSpec.
struct ModelShape {
    int layers = 0;
    LayerShape layer; // dense-equivalent shape a token passes through
    double vocab = 0;
    double totalParams = 0;
    double embeddingParams = 0;
    double lmHeadParams = 0; // untied output layer (0 when tied: the embedding is reused)
    double paramsPerLayer = 0; // all parameters of one block (MoE: every expert)
    double expertParamsPerLayer = 0; // routed experts of one MoE block (averaged over all layers)
    double activeLinearParamsPerLayer = 0; // weights a token multiplies by in one block (MoE: active experts)
    double moeLayerShare = 0; // fraction of layers with routed experts
    double experts = 0;
    double expertsPerToken = 0;
    // Forward FLOP per token of one layer's GEMMs, split by the dimension that limits their efficiency.
    double qkvFlops = 0, outProjFlops = 0, ffnFlops = 0, routerFlops = 0;
    double qkvOut = 0, attnOut = 0; // output widths of the QKV projection and the attention (a x dv)
    double ffnWidth = 0; // intermediate width per expert (dense: ffnDim)
    // Width of the FFN GEMMs that are not routed: shared experts together (sharedExperts x their width), or the dense
    // layers' FFN when there are none; dense models: ffnDim.
    double denseFfnWidth = 0;
    double mtpProjectionFlops
        = 0; // forward FLOP per token of an MTP layer's projection of [hidden; embedding] to hidden
    double hyperConnections = 0; // residual streams of manifold-constrained hyper-connections (DeepSeek-V4); 0: none
    // Width of the vectors an MoE layer's all-to-all moves: the hidden size, or the latent size under latent MoE (the
    // tokens are projected down before dispatch and up after combine: Kimi K3, Nemotron 3).
    double expertDispatchWidth = 0;
    double routedFfnShare = 0; // MoE: share of the FFN FLOPs that routed experts (not shared ones) do
    double latentUpProjFlops = 0; // MLA: forward FLOP per token of one layer's latent up-projections (recomputed)
    struct LocalAttention {
        TokenMixer mixer; // sliding-window or chunked
        double layerShare = 0; // fraction of layers, each weighted by its attention width relative to the model's
        double window = 0; // tokens
        // DeepSeek-V4's compressed layers: keys compressed from every compressRatio tokens, the indexer's top
        // compressedTopK of them (CSA) or all (HCA), beside the window (compressedKeys, core/model/model_spec.h).
        double compressRatio = 0;
        double compressedTopK = 0;
    };
    std::vector<LocalAttention> localAttention; // sliding-window, chunked, sparse (top-k) and compressed layers
    // Fraction of layers with full attention (the rest: local, or no attention), each weighted by its attention width
    // H·(d_qk + d_v) relative to the model's (layer.heads, layer.qkHeadDim, layer.vHeadDim).
    double fullAttentionShare = 1.0;
    // Other token mixers, forward per token averaged over layers: what the recurrences' chunked kernels execute and
    // move (linear attention, Kimi Delta Attention, Mamba-2; core/model/chunked_scans.h), and the sparse-attention
    // indexer's FLOPs per key it scores.
    double recurrentScanFlops = 0;
    double recurrentScanBytes = 0;
    double recurrentScanBackwardBytes = 0; // the backward's kernels (ChunkedScanWork::backwardHbmBytes)
    // The elementwise kernels around those recurrences (convolutions, L2 norms, gates, gated norms), forward and
    // backward together, bytes per token averaged over layers (core/model/chunked_scans.h, MixerElementwiseBytes).
    double recurrentElementwiseBytes = 0;
    // Elements per token of the recurrent mixers' projection operands other than the hidden state, averaged over
    // layers (MixerForwardFlops::projectionOperands): what an FP8 recipe casts beside attention's qkvOut and attnOut.
    double recurrentProjectionWidth = 0;
    double indexerFlopsPerKey = 0;
    // Keys a query attends to under the causal mask, averaged over layers: S/2 on full-attention layers,
    // W - W^2/(2S) on sliding-window (and top-k sparse) layers of window W < S, none on layers without attention.
    double causalAttentionSpan(double seqLen) const;
};

ModelShape modelShapeOf(const ModelSpec& model); // throws InputError for a bare model

class CostModel {
public:
    // Throws InputError when the model is bare (no architecture) or the hardware lacks a BF16 peak.
    // The scenario's model, hardware and constants (costModelConstantsFor).
    explicit CostModel(const Scenario& scenario);
    CostModel(const ModelSpec& model, const HardwareSpec& hardware, const CostModelConstants& constants);

    // Throws InputError when the scenario is inconsistent (degrees that do not multiply to the GPU count, ...).
    // The scenario's model and hardware must be the ones this CostModel was built for.
    StepPrediction evaluate(const Scenario& scenario) const;
    // Non-throwing: nullptr when the scenario is valid, otherwise a static message naming the problem. Allocates
    // nothing (the planner's hot path).
    const char* invalidReason(const Scenario& scenario) const;
    // The same check, said with the figures that break it, for people (the window, the CLI, errors): "ep must divide
    // the number of experts (ep 256, 384 experts)". nullopt when the scenario is valid.
    std::optional<std::string> invalidReasonText(const Scenario& scenario) const;
    // Evaluate a scenario already known to be valid (the planner's hot path).
    StepPrediction evaluateValid(const Scenario& scenario) const;
    // The same with each step-time term scaled as a trace measured it (term_scales.h); evaluate() is this with
    // every scale 1.
    StepPrediction evaluate(const Scenario& scenario, const TermScales& scales) const;
    StepPrediction evaluateValid(const Scenario& scenario, const TermScales& scales) const;

    // The multiplier a lone GPU's power-limited clock puts on its GEMM and attention time in this scenario
    // (CostModelConstants::isolatedTensorCoreSlowdown); 1 on more GPUs or where it was not measured. A valid
    // scenario; evaluateValid applies it, a calibration carries measured kernels from one clock to another with it.
    double tensorCoreSlowdown(const Scenario& scenario) const;

    const ModelShape& shape() const { return m_shape; }
    const CostModelConstants& constants() const { return m_c; }

    // A BF16+FP4 run on hardware without FP4 tensor cores, or with a recipe its tensor cores do not have: why, or
    // nullptr where the scenario can train in BF16+FP4 (a BF16 or FP8 scenario is asked as if it were one).
    const char* fp4Unavailable(const Scenario& scenario) const;

private:
    // The one check behind both: the first problem, its figures written to `figures` when that is not null.
    const char* firstProblem(const Scenario& scenario, std::string* figures) const;
    // Throughput and utilisation from out.time: step time, tokens/s, TFLOPS, MFU and HFU.
    // fullRecomputeShare: the share of layers full checkpointing recomputes (HFU counts only those).
    void fillThroughput(const Scenario& scenario, double microBatches, double tokensPerMicroStep,
        double fullRecomputeShare, StepPrediction& out) const;

    ModelShape m_shape;
    CostModelConstants m_c;
    double m_peakBf16 = 0;
    double m_peakFp8 = 0; // 0 when the device has none
    double m_peakFp4 = 0; // 0 when the device has none
    AcceleratorFamily m_family = AcceleratorFamily::Other;
    ModelSpec m_model; // for FLOP/token under the scenario's formula
};

// Convenience: builds a CostModel from the scenario's own model, hardware and constants.
StepPrediction evaluate(const Scenario& scenario);

// FSDP shard count implied by a scenario (gpus / (tp pp cp hsdpReplicas)); data-parallel ranks, tokens per
// micro-step: core/scenario/scenario_facts.h.
int fsdpShards(const Scenario& s); // 0 when the degrees do not divide the GPU count

} // namespace mfu
