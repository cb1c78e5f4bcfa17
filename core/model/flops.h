#pragma once
// Training FLOP per token under the formulas in use, side by side. Training = forward + backward = 3 x forward.
//
//   six_n                 6 N                               (Kaplan et al.; the MFU tutorial's; N = total, MoE: active)
//   palm                  6 (N - N_emb) + 12 L H Q S        (PaLM appendix B, TorchTitan, nanoGPT; MoE: active N)
//   per_component         3 x forward sum of every matmul: Q/K/V (with GQA or MLA), attention scores Q.K^T and
//                         attention x V over the full S x S square, output projection, FFN with its real number of
//                         matrices (3 SwiGLU, 2 GELU), only the active experts and the router, LM head
//   per_component_causal  the same with the attention core halved by the causal mask (what flash-attention kernels
//                         actually execute; Megatron-LM counts it this way)
//
// For MLA (Q != V head dim) the PaLM attention term is generalised to 6 L H S (Q_qk + Q_v), which is 12 L H Q S when
// they are equal.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/model/model_spec.h"

namespace mfu {

enum class FlopFormula { SixN, PaLM, PerComponent, PerComponentCausal };
inline constexpr FlopFormula kAllFlopFormulas[]
    = { FlopFormula::SixN, FlopFormula::PaLM, FlopFormula::PerComponent, FlopFormula::PerComponentCausal };

std::string_view flopFormulaKey(FlopFormula f); // "six_n", "palm", "per_component", "per_component_causal"
std::string_view flopFormulaLabel(FlopFormula f); // "6N", "6(N-N_emb)+12LHQS", ...
std::optional<FlopFormula> flopFormulaFromKey(std::string_view key);

// Forward-pass FLOP per token of each component, summed over layers; attention core is the full S x S square.
struct ForwardComponents {
    double qkvProjection = 0;
    double attentionScores = 0; // Q.K^T
    double attentionValues = 0; // softmax(..) x V
    double outputProjection = 0;
    double ffn = 0; // dense FFN layers + active routed experts + shared experts
    double router = 0;
    double lmHead = 0;
    double total() const
    {
        return qkvProjection + attentionScores + attentionValues + outputProjection + ffn + router + lmHead;
    }
    double attentionCore() const { return attentionScores + attentionValues; }
};

struct FlopsPerToken {
    double sixN = 0;
    std::optional<double> palm; // absent for a bare model
    std::optional<double> perComponent;
    std::optional<double> perComponentCausal;
    ForwardComponents forward; // zero for a bare model

    std::optional<double> get(FlopFormula f) const;
};

// Training FLOP per token at sequence length seqLen (the attention span of each token's sequence).
FlopsPerToken countFlopsPerToken(const ModelSpec& spec, int64_t seqLen);
ForwardComponents forwardComponents(const ModelSpec& spec, int64_t seqLen);

enum class ActivationCheckpointing { None, Selective, Full };
std::string_view activationCheckpointingKey(ActivationCheckpointing ac); // "none", "selective", "full"
std::optional<ActivationCheckpointing> activationCheckpointingFromKey(std::string_view key);

// Extra FLOP per token that activation recomputation executes (for HFU), under the chosen formula's convention:
// full = one more forward pass (formula / 3); selective = the attention core's forward again (its share / 3);
// none = 0. A bare model has no attention term, so selective adds 0 there.
double recomputeFlopsPerToken(const ModelSpec& spec, int64_t seqLen, ActivationCheckpointing ac, FlopFormula formula);

} // namespace mfu
