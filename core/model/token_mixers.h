#pragma once
// Token mixers that are not softmax attention over the whole sequence: their parameters and their forward FLOP per
// token. A layer of a 2026 model mixes tokens with one of these (or with full / sliding-window attention, counted
// in flops.cpp); the channel mixer (MLP or MoE) is counted apart. Training FLOP = 3 x forward, as for every formula.
//
// Convention, the same as for attention: only matrix products count (projections and the mixer's core), at 2 FLOP
// per multiply-add. Depthwise convolutions, gates, norms and other elementwise work are left out. Derivations and
// sources: docs/formulas.md, "Token mixers beyond full attention".
#include <cstdint>

namespace mfu {

// Gated DeltaNet (Yang, Kautz and Hatamizadeh, "Gated Delta Networks: Improving Mamba2 with Delta Rule", ICLR 2025)
// as Qwen3-Next and Qwen3.5 implement it (Hugging Face transformers, Qwen3NextGatedDeltaNet): q and k have
// keyHeads heads of keyHeadDim, v and the output gate z have valueHeads heads of valueHeadDim; each value head keeps a
// keyHeadDim x valueHeadDim state.
struct GatedDeltaNetSpec {
    int keyHeads = 0; // linear_num_key_heads
    int valueHeads = 0; // linear_num_value_heads
    int64_t keyHeadDim = 0; // linear_key_head_dim
    int64_t valueHeadDim = 0; // linear_value_head_dim
    int convKernel = 4; // linear_conv_kernel_dim
};

// Mamba-2 (Dao and Gu, "Transformers are SSMs: Generalized Models and Efficient Algorithms Through Structured State
// Space Duality", ICML 2024) as Nemotron-H implements it (NemotronHMamba2Mixer): heads x headDim channels, B and C
// shared by `groups` groups, a stateSize-wide state per channel.
struct Mamba2Spec {
    int heads = 0; // mamba_num_heads
    int64_t headDim = 0; // mamba_head_dim
    int groups = 1; // n_groups
    int64_t stateSize = 0; // ssm_state_size
    int convKernel = 4; // conv_kernel
    bool projectionBias = false; // use_bias / mamba_proj_bias
    bool convBias = true; // use_conv_bias
};

// The lightning indexer of DeepSeek Sparse Attention (DeepSeek-AI, "DeepSeek-V3.2-Exp: Boosting Long-Context
// Efficiency with DeepSeek Sparse Attention", 2025; reference implementation inference/model.py, class Indexer):
// every query scores every earlier key with `heads` small heads, and the MLA attention then runs over the topK best.
// Its query projection reads MLA's compressed query (q_lora_rank wide).
struct SparseIndexerSpec {
    int heads = 0; // index_n_heads
    int64_t headDim = 0; // index_head_dim
    int64_t topK = 0; // index_topk
};

// Forward FLOP per token of one layer's mixer, split as ForwardComponents splits attention.
struct MixerForwardFlops {
    double inputProjection = 0; // projections from the hidden state (q/k/v/gates, Mamba's in_proj)
    double core = 0; // the state recurrence, or the indexer's scoring of keys
    double outputProjection = 0;
    double total() const { return inputProjection + core + outputProjection; }
};

int64_t gatedDeltaNetParams(const GatedDeltaNetSpec& spec, int64_t hidden);
MixerForwardFlops gatedDeltaNetForwardFlops(const GatedDeltaNetSpec& spec, int64_t hidden);

int64_t mamba2Params(const Mamba2Spec& spec, int64_t hidden);
MixerForwardFlops mamba2ForwardFlops(const Mamba2Spec& spec, int64_t hidden);

// qLoraRank: the MLA compressed query width the indexer's query projection reads.
int64_t sparseIndexerParams(const SparseIndexerSpec& spec, int64_t hidden, int64_t qLoraRank);
// attendedKeys: keys each query is scored against, averaged over the sequence (S for the full square, about S/2
// causal). The attention that follows runs over min(attendedKeys, topK) keys; flops.cpp counts it.
MixerForwardFlops sparseIndexerForwardFlops(
    const SparseIndexerSpec& spec, int64_t hidden, int64_t qLoraRank, double attendedKeys);

// Throw InputError naming the first field that is zero or negative.
void validateGatedDeltaNet(const GatedDeltaNetSpec& spec);
void validateMamba2(const Mamba2Spec& spec, int64_t hidden);
void validateSparseIndexer(const SparseIndexerSpec& spec);

} // namespace mfu
