#pragma once
// Training FLOP per token under the formulas in use, side by side. Training = forward + backward = 3 x forward.
//
//   six_n                 6 N                               (Kaplan et al.; the MFU tutorial's; N = total, MoE: active)
//   palm                  6 (N - N_emb) + 12 L H Q S        (PaLM appendix B, TorchTitan, nanoGPT; MoE: active N)
//   per_layer             6 (N - N_emb) + sum over layers of 12 H Q x (keys that layer attends), plus the
//                         non-parameter work of the layers that do not attend (linear-attention and Mamba state
//                         updates, the sparse-attention indexer's key scoring): PaLM's formula layer by layer. Keys:
//                         S on full-attention layers, min(S, W) on sliding-window ones, the chunk on chunked ones,
//                         the indexer's top-k on DeepSeek sparse attention, window + compressed keys on DeepSeek-V4's
//                         compressed attention, none on layers without attention. Equal to palm when every layer
//                         attends the whole sequence; the headline everywhere (docs/formulas.md).
//   per_component         3 x forward sum of every matmul: Q/K/V (with GQA or MLA), attention scores Q.K^T and
//                         attention x V over the full S x S square (S x min(S, window) on sliding-window layers),
//                         output projection, FFN with its real number of
//                         matrices (3 SwiGLU, 2 GELU), only the active experts and the router, LM head
//   per_component_causal  the same with the attention core halved by the causal mask (what flash-attention kernels
//                         actually execute; Megatron-LM counts it this way); a sliding-window layer of window W < S
//                         attends to W - W^2/(2S) keys per query on average
//
// PaLM's formula stays as published (12 L H Q S on every layer): it over-counts sliding-window, chunked, sparse,
// compressed, linear-attention and Mamba layers, which is why per_layer, not palm, is the default.
//
// Packed sequences (core/model/packing.h): with per-document attention masking every attention term runs over each
// document's length instead of the packed sequence's, weighted by the document's tokens; PaLM's S becomes the
// effective attention length sum(d^2)/sum(d), and the figure as published over the packing length is kept beside
// it, labelled (palmOverPackingLength), because that is the figure an MFU computed the naive way divides.
//
// For MLA (Q != V head dim) the PaLM attention term is generalised to 6 L H S (Q_qk + Q_v), which is 12 L H Q S when
// they are equal.
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "core/model/model_spec.h"
#include "core/model/packing.h"

namespace mfu {

enum class FlopFormula { SixN, PaLM, PerLayer, PerComponent, PerComponentCausal };
inline constexpr FlopFormula kAllFlopFormulas[] = { FlopFormula::SixN, FlopFormula::PaLM, FlopFormula::PerLayer,
    FlopFormula::PerComponent, FlopFormula::PerComponentCausal };
// The formula MFU is counted with unless a scenario, a flag or the window says otherwise.
inline constexpr FlopFormula kDefaultFlopFormula = FlopFormula::PerLayer;

// The formula a model can be counted under: `wanted`, or SixN for a bare parameter count (the only formula it
// answers). The one place this fallback is decided (core/scenario/scenario_facts.h applies it to a scenario).
FlopFormula flopFormulaFor(const ModelSpec& model, FlopFormula wanted);

std::string_view flopFormulaKey(FlopFormula f); // "six_n", "palm", "per_layer", "per_component", ...
std::string_view flopFormulaLabel(FlopFormula f); // "6N", "6(N-N_emb)+12LHQS", ...
// The name where space is short (chart categories, legends, the Calculator's formula choice): "6N", "PaLM", "PaLM per
// layer", "Per-component", "Per-component, causal" - never the file format's keys (six_n, palm, per_layer).
std::string_view flopFormulaShortName(FlopFormula f);
std::optional<FlopFormula> flopFormulaFromKey(std::string_view key);
// "six_n, palm, per_layer, per_component or per_component_causal": what an error about an unknown key lists.
std::string flopFormulaKeyList();

// Forward-pass FLOP per token of each component, summed over layers; attention core is the full S x S square.
struct ForwardComponents {
    double qkvProjection = 0;
    double attentionScores = 0; // Q.K^T
    double attentionValues = 0; // softmax(..) x V
    double outputProjection = 0;
    double ffn = 0; // dense FFN layers + active routed experts + shared experts
    double router = 0;
    double lmHead = 0;
    // Attention core under the causal mask (not part of total()): half the square on full-attention layers.
    double attentionCoreCausal = 0;
    // Cores of the other token mixers (core/model/token_mixers.h): linear-attention and Mamba recurrences, and the
    // sparse-attention indexer scoring every key (the full square; mixerCoreCausal, not part of total(), the causal
    // half). Their projections are counted in qkvProjection and outputProjection.
    double mixerCore = 0;
    double mixerCoreCausal = 0;
    double total() const
    {
        return qkvProjection + attentionScores + attentionValues + outputProjection + ffn + router + lmHead + mixerCore;
    }
    double attentionCore() const { return attentionScores + attentionValues; }
};

struct FlopsPerToken {
    double sixN = 0;
    std::optional<double> palm; // absent for a bare model
    std::optional<double> perLayer; // PaLM layer by layer (absent for a bare model)
    std::optional<double> perComponent;
    std::optional<double> perComponentCausal;
    ForwardComponents forward; // zero for a bare model
    // The S of the attention terms: the sequence length, or sum(d^2)/sum(d) of a packed batch masked per document.
    double effectiveAttentionLength = 0;
    // PaLM's formula as published, S = the packing length; set only when that differs from palm (packed documents
    // with per-document masking): the over-count of an MFU computed with the packing length.
    std::optional<double> palmOverPackingLength;

    std::optional<double> get(FlopFormula f) const;
};

// Why a model's forward FLOP cannot be split into components (FlopsPerToken::forward is then all zero and says
// nothing): a bare parameter count knows no layers, heads or widths. nullopt for a model with an architecture. The
// Calculator shows this instead of a "Total 0.00" row (Start here's 7B demo).
std::optional<std::string> componentsUnknownReason(const ModelSpec& spec);

// Whether a FLOP/token someone else counted (a log's TFLOPS / tokens/s, a report's figure) describes this model: within
// `factor` of one of its formulas' counts, which differ from each other by the attention convention, the embeddings
// and the causal half. Beyond it from every one, the figure is another model's. The diagnosis (log_model_mismatch)
// and the Trace panel's facts banner both decide with this.
inline constexpr double kSameModelFlopsFactor = 1.25;
bool describesModel(const FlopsPerToken& counts, double flopsPerToken, double factor = kSameModelFlopsFactor);

// Training FLOP per token at sequence length seqLen (the attention span of each token's sequence).
FlopsPerToken countFlopsPerToken(const ModelSpec& spec, int64_t seqLen);
ForwardComponents forwardComponents(const ModelSpec& spec, int64_t seqLen);
// The same for a packed sequence of seqLen tokens (the packing length): attention over the documents the packing
// masks apart (core/model/packing.h). An unpacked SequencePacking gives the figures above.
FlopsPerToken countFlopsPerToken(const ModelSpec& spec, int64_t seqLen, const SequencePacking& packing);
ForwardComponents forwardComponents(const ModelSpec& spec, std::span<const AttentionDocument> documents);
// One run of layers' share of forwardComponents (its token and channel mixers; the LM head is the model's, not a
// layer's, and stays 0). forwardComponents is the sum of these over layerRuns plus the LM head.
ForwardComponents layerRunForward(
    const ModelSpec& spec, const LayerRun& run, std::span<const AttentionDocument> documents);

enum class ActivationCheckpointing { None, Selective, Full };
std::string_view activationCheckpointingKey(ActivationCheckpointing ac); // "none", "selective", "full"
std::optional<ActivationCheckpointing> activationCheckpointingFromKey(std::string_view key);

// Extra FLOP per token that activation recomputation executes (for HFU; docs/formulas.md):
//   none       0
//   full       one more forward pass: the chosen formula / 3
//   selective  TorchTitan's op-level selective checkpointing (the "selective" this application models, also in the
//              cost model): it saves the attention output and every other matmul output of a block, so it runs
//              selectiveRecomputedMatmulFraction (default 0.5) of the forward linear matmuls again (Q/K/V, output
//              projection, FFN with the active experts, router; not the LM head, not the attention core). The same
//              FLOP under every formula, since they agree on the linear matmuls; a bare parameter count: 0.5 x 2N.
// Source of the 0.5: TorchTitan, torchtitan/models/llama3/infra/parallelize.py, _apply_ac_to_transformer_block
// (op-level SAC policy: "save every other mm", PyTorch selective activation checkpointing).
inline constexpr double kSelectiveRecomputedMatmulFraction = 0.5;
double recomputeFlopsPerToken(const ModelSpec& spec, int64_t seqLen, ActivationCheckpointing ac, FlopFormula formula,
    double selectiveRecomputedMatmulFraction = kSelectiveRecomputedMatmulFraction);
double recomputeFlopsPerToken(const ModelSpec& spec, int64_t seqLen, const SequencePacking& packing,
    ActivationCheckpointing ac, FlopFormula formula,
    double selectiveRecomputedMatmulFraction = kSelectiveRecomputedMatmulFraction);

} // namespace mfu
