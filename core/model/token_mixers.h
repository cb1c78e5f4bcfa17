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
    int64_t chunkSize = 256; // chunk_size: tokens per chunk of the training kernels (mamba_ssm's Mamba2 default)
};

// The lightning indexer of DeepSeek Sparse Attention (DeepSeek-AI, "DeepSeek-V3.2-Exp: Boosting Long-Context
// Efficiency with DeepSeek Sparse Attention", 2025; reference implementation inference/model.py, class Indexer):
// every query scores every earlier key with `heads` small heads, and the MLA attention then runs over the topK best.
// Its query projection reads MLA's compressed query (q_lora_rank wide).
struct SparseIndexerSpec {
    int heads = 0; // index_n_heads
    int64_t headDim = 0; // index_head_dim
    int64_t topK = 0; // index_topk: keys (blocks of blockSize keys) each query attends to
    // MiniMax-M3's block-sparse attention (sparse_attention_config): keys are scored one by one, a block's score is
    // its best key's (score type "max"), and the attention runs over the top-k blocks of blockSize tokens plus the
    // localBlocks most recent blocks. Its index query is projected from the hidden state; it has no per-head
    // weights and no key norm. DeepSeek's indexer: blockSize 1, no local blocks, query from MLA's compressed query.
    int64_t blockSize = 1; // sparse_block_size
    int64_t localBlocks = 0; // sparse_local_block + sparse_init_block
    bool queryFromHidden = false; // wq reads the hidden state (else MLA's q_lora_rank-wide compressed query)
    bool headWeights = true; // weights_proj: Linear(hidden, heads), each head's weight in a key's score
    bool keyNorm = true; // k_norm: LayerNorm(head size), weight and bias
    // Keys a query attends to at most.
    int64_t attendedKeys() const { return (topK + localBlocks) * blockSize; }
};

// Kimi Delta Attention (Kimi Team, "Kimi Linear: An Expressive, Efficient Attention Architecture", 2025; reference
// implementation modeling_kimi.py, class KimiDeltaAttention): Gated DeltaNet's delta rule with a channel-wise
// (per key dimension) forget gate instead of a scalar one. q, k and v have `heads` heads of headDim each, each head a
// headDim x headDim state; the forget gate f is projected low-rank (hidden -> headDim -> heads x headDim) or, with
// use_full_rank_gate (Kimi K3), by one hidden x (heads x headDim) matrix; the output gate g is low-rank.
struct KimiDeltaAttentionSpec {
    int heads = 0; // linear_attn_config.num_heads
    int64_t headDim = 0; // linear_attn_config.head_dim (keys and values alike)
    int convKernel = 4; // linear_attn_config.short_conv_kernel_size
    bool fullRankForgetGate = false; // linear_attn_config.use_full_rank_gate
    bool operator==(const KimiDeltaAttentionSpec&) const = default;
};

// DeepSeek-V4's attention (DeepSeek-AI, "DeepSeek-V4: Towards Highly Efficient Million-Token Context Intelligence",
// 2026; reference implementation inference/model.py, classes Attention, Compressor, Indexer). Every layer projects a
// low-rank query (hidden -> qLoraRank -> heads x head_dim) and ONE key-value head of head_dim that serves as both key
// and value (multi-query attention), attends over a sliding window of recent tokens plus, in compressed layers, keys
// that a learned compressor pools from every `ratio` tokens, and projects its output back through outputGroups
// groups of outputRank each (wo_a per group, then wo_b). Two compressed kinds alternate:
//   compressed sparse attention (CSA): ratio sparseRatio (4), overlapping windows, and a lightning indexer (the
//     model's SparseIndexerSpec: heads, head size, top-k) that picks the top-k compressed keys per query;
//   heavily compressed attention (HCA): ratio denseRatio (128), every compressed key attended.
struct CompressedAttentionSpec {
    int64_t qLoraRank = 0; // q_lora_rank
    int64_t outputRank = 0; // o_lora_rank
    int outputGroups = 0; // o_groups
    int64_t sparseRatio = 0; // compress ratio of the CSA layers (0: none in this model)
    int64_t denseRatio = 0; // compress ratio of the HCA layers (0: none in this model)
    bool enabled() const { return qLoraRank > 0; }
    bool operator==(const CompressedAttentionSpec&) const = default;
};

// Forward FLOP per token of one layer's mixer, split as ForwardComponents splits attention.
struct MixerForwardFlops {
    double inputProjection = 0; // projections from the hidden state (q/k/v/gates, Mamba's in_proj)
    double core = 0; // the state recurrence, or the indexer's scoring of keys
    double outputProjection = 0;
    // Recurrent mixers: elements per token of their projections' operands other than the hidden state: the input
    // projections' outputs, the output projection's input, and both sides of a low-rank projection's inner matmul.
    // What an FP8 recipe casts beside the hidden-wide ones (each GEMM's input forward, its output gradient backward).
    double projectionOperands = 0;
    double total() const { return inputProjection + core + outputProjection; }
};

int64_t gatedDeltaNetParams(const GatedDeltaNetSpec& spec, int64_t hidden);
MixerForwardFlops gatedDeltaNetForwardFlops(const GatedDeltaNetSpec& spec, int64_t hidden);

int64_t mamba2Params(const Mamba2Spec& spec, int64_t hidden);
MixerForwardFlops mamba2ForwardFlops(const Mamba2Spec& spec, int64_t hidden);

// qLoraRank: the MLA compressed query width the indexer's query projection reads (unused when queryFromHidden).
int64_t sparseIndexerParams(const SparseIndexerSpec& spec, int64_t hidden, int64_t qLoraRank);
// attendedKeys: keys each query is scored against, averaged over the sequence (S for the full square, about S/2
// causal). The attention that follows runs over min(attendedKeys, topK) keys; flops.cpp counts it.
MixerForwardFlops sparseIndexerForwardFlops(
    const SparseIndexerSpec& spec, int64_t hidden, int64_t qLoraRank, double attendedKeys);

int64_t kimiDeltaAttentionParams(const KimiDeltaAttentionSpec& spec, int64_t hidden);
MixerForwardFlops kimiDeltaAttentionForwardFlops(const KimiDeltaAttentionSpec& spec, int64_t hidden);

// DeepSeek-V4: the projections every attention layer has (query, shared key-value, grouped output, their norms and
// the per-head attention sink), with `heads` heads of headDim.
int64_t compressedAttentionProjectionParams(
    const CompressedAttentionSpec& spec, int64_t hidden, int heads, int64_t headDim);
MixerForwardFlops compressedAttentionProjectionFlops(
    const CompressedAttentionSpec& spec, int64_t hidden, int heads, int64_t headDim);
// A key-value compressor of width `width` pooling `ratio` tokens (overlapping: two sets of weights, CSA's);
// parameters, and forward FLOP per token of its two projections (the gated pooling is elementwise).
int64_t kvCompressorParams(int64_t hidden, int64_t width, int64_t ratio, bool overlapping);
double kvCompressorFlops(int64_t hidden, int64_t width, bool overlapping);
// What a CSA layer adds to the projections: its compressor and its indexer (query from qLoraRank, head weights from
// the hidden state, keys from the indexer's own compressor); the indexer scores `scoredKeys` compressed keys.
int64_t compressedSparseExtraParams(
    const CompressedAttentionSpec& spec, const SparseIndexerSpec& indexer, int64_t hidden, int64_t headDim);
MixerForwardFlops compressedSparseExtraFlops(const CompressedAttentionSpec& spec, const SparseIndexerSpec& indexer,
    int64_t hidden, int64_t headDim, double scoredKeys);
// What an HCA layer adds: its compressor.
int64_t heavilyCompressedExtraParams(const CompressedAttentionSpec& spec, int64_t hidden, int64_t headDim);
double heavilyCompressedExtraFlops(int64_t hidden, int64_t headDim);

// Throw InputError naming the first field that is zero or negative.
void validateGatedDeltaNet(const GatedDeltaNetSpec& spec);
void validateMamba2(const Mamba2Spec& spec, int64_t hidden);
void validateSparseIndexer(const SparseIndexerSpec& spec);
void validateKimiDeltaAttention(const KimiDeltaAttentionSpec& spec);
void validateCompressedAttention(const CompressedAttentionSpec& spec);

} // namespace mfu
