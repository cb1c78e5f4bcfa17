#include "core/model/token_mixers.h"

#include <string>

#include "core/errors.h"

namespace mfu {

namespace {

// Both recurrences update and read a state matrix once per token. Per state element: the decay (1 FLOP), writing
// the new key-value outer product (2) and reading the output (2), plus, for the delta rule, retrieving S.k before the
// write (2); for Mamba-2 the input's dt.B.x term takes the place of that retrieval. Megatron-LM counts Mamba's scan
// as 7 x d_inner x state FLOP per token (megatron/training/training.py, num_floating_point_operations); 7 per state
// element is used for both.
constexpr double kRecurrenceFlopsPerStateElement = 7.0;

void requirePositive(int64_t value, const char* what)
{
    if (value <= 0)
        throw InputError(std::string(what) + " must be greater than zero (got " + std::to_string(value) + ")");
}

} // namespace

void validateGatedDeltaNet(const GatedDeltaNetSpec& s)
{
    requirePositive(s.keyHeads, "linear-attention key heads (linear_num_key_heads)");
    requirePositive(s.valueHeads, "linear-attention value heads (linear_num_value_heads)");
    requirePositive(s.keyHeadDim, "linear-attention key head size (linear_key_head_dim)");
    requirePositive(s.valueHeadDim, "linear-attention value head size (linear_value_head_dim)");
    requirePositive(s.convKernel, "linear-attention convolution width (linear_conv_kernel_dim)");
    if (s.valueHeads % s.keyHeads != 0)
        throw InputError("linear-attention value heads (linear_num_value_heads, " + std::to_string(s.valueHeads)
            + ") must be a multiple of its key heads (linear_num_key_heads, " + std::to_string(s.keyHeads) + ")");
}

void validateMamba2(const Mamba2Spec& s, int64_t hidden)
{
    requirePositive(s.heads, "Mamba heads (mamba_num_heads)");
    requirePositive(s.headDim, "Mamba head size (mamba_head_dim)");
    requirePositive(s.groups, "Mamba groups (n_groups)");
    requirePositive(s.stateSize, "Mamba state size (ssm_state_size)");
    requirePositive(s.convKernel, "Mamba convolution width (conv_kernel)");
    requirePositive(s.chunkSize, "Mamba chunk size (chunk_size)");
    requirePositive(hidden, "hidden size");
    if (s.heads % s.groups != 0)
        throw InputError("Mamba heads (mamba_num_heads, " + std::to_string(s.heads)
            + ") must be a multiple of its groups (n_groups, " + std::to_string(s.groups) + ")");
}

void validateSparseIndexer(const SparseIndexerSpec& s)
{
    requirePositive(s.heads, "sparse-attention indexer heads (index_n_heads)");
    requirePositive(s.headDim, "sparse-attention indexer head size (index_head_dim)");
    requirePositive(s.topK, "sparse-attention keys per query (index_topk)");
    requirePositive(s.blockSize, "sparse-attention block size (sparse_block_size)");
    if (s.localBlocks < 0)
        throw InputError(
            "sparse-attention local blocks cannot be negative (got " + std::to_string(s.localBlocks) + ")");
}

int64_t gatedDeltaNetParams(const GatedDeltaNetSpec& s, int64_t hidden)
{
    const int64_t keyDim = s.keyHeads * s.keyHeadDim;
    const int64_t valueDim = s.valueHeads * s.valueHeadDim;
    const int64_t convChannels = 2 * keyDim + valueDim; // q, k and v are convolved; the gate z is not
    return hidden * (2 * keyDim + 2 * valueDim) // in_proj_qkvz (Qwen3.5 splits it into in_proj_qkv and in_proj_z)
        + hidden * 2 * int64_t { s.valueHeads }
    // in_proj_ba: the write strength beta and the decay's input per value head
    + convChannels * s.convKernel // depthwise conv1d, no bias
        + 2 * int64_t { s.valueHeads } // dt_bias, A_log (a file's head count may be near INT_MAX: 64-bit products)
    + s.valueHeadDim // gated RMSNorm over each head's output
        + valueDim * hidden; // out_proj
}

MixerForwardFlops gatedDeltaNetForwardFlops(const GatedDeltaNetSpec& s, int64_t hidden)
{
    const double h = double(hidden);
    const double keyDim = double(s.keyHeads) * double(s.keyHeadDim);
    const double valueDim = double(s.valueHeads) * double(s.valueHeadDim);
    MixerForwardFlops f;
    f.inputProjection = 2.0 * h * (2.0 * keyDim + 2.0 * valueDim + 2.0 * double(s.valueHeads));
    // One keyHeadDim x valueHeadDim state per value head (keys are shared across valueHeads / keyHeads heads).
    f.core = kRecurrenceFlopsPerStateElement * double(s.valueHeads) * double(s.keyHeadDim) * double(s.valueHeadDim);
    f.outputProjection = 2.0 * valueDim * h;
    f.projectionOperands = 2.0 * keyDim + 2.0 * valueDim + 2.0 * double(s.valueHeads) + valueDim;
    return f;
}

int64_t mamba2Params(const Mamba2Spec& s, int64_t hidden)
{
    const int64_t inner = s.heads * s.headDim; // d_inner = expand x hidden in Nemotron-H's configs
    const int64_t bc = 2 * int64_t { s.groups } * s.stateSize; // B and C
    const int64_t convChannels = inner + bc;
    const int64_t inProjection = 2 * inner + bc + s.heads; // z, x, B, C, dt
    return hidden * inProjection + (s.projectionBias ? inProjection : 0) // in_proj
        + convChannels * s.convKernel + (s.convBias ? convChannels : 0) // depthwise conv1d
        + 3 * int64_t { s.heads } // dt_bias, A_log, D
    + inner // gated RMSNorm
        + inner * hidden + (s.projectionBias ? hidden : 0); // out_proj
}

MixerForwardFlops mamba2ForwardFlops(const Mamba2Spec& s, int64_t hidden)
{
    const double h = double(hidden);
    const double inner = double(s.heads) * double(s.headDim);
    MixerForwardFlops f;
    f.inputProjection = 2.0 * h * (2.0 * inner + 2.0 * double(s.groups) * double(s.stateSize) + double(s.heads));
    f.core = kRecurrenceFlopsPerStateElement * inner * double(s.stateSize);
    f.outputProjection = 2.0 * inner * h;
    f.projectionOperands = 2.0 * inner + 2.0 * double(s.groups) * double(s.stateSize) + double(s.heads) + inner;
    return f;
}

int64_t sparseIndexerParams(const SparseIndexerSpec& s, int64_t hidden, int64_t qLoraRank)
{
    const int64_t queryInput = s.queryFromHidden ? hidden : qLoraRank;
    return queryInput * s.heads * s.headDim // wq_b (DSA: from MLA's compressed query) or wq (from the hidden state)
        + hidden * s.headDim // wk: one key head shared by the indexer's heads
        + (s.keyNorm ? 2 * s.headDim : 0) // k_norm (LayerNorm: weight and bias)
        + (s.headWeights ? hidden * s.heads : 0); // weights_proj: each head's weight in the key's score
}

MixerForwardFlops sparseIndexerForwardFlops(
    const SparseIndexerSpec& s, int64_t hidden, int64_t qLoraRank, double attendedKeys)
{
    const double h = double(hidden);
    const double heads = double(s.heads);
    const double d = double(s.headDim);
    const double queryInput = s.queryFromHidden ? h : double(qLoraRank);
    MixerForwardFlops f;
    f.inputProjection = 2.0 * (queryInput * heads * d + h * d + (s.headWeights ? h * heads : 0.0));
    // Score of a key = sum over heads of weight_h x ReLU(q_h . k): a dot product and a multiply-add per head and key
    // (without head weights, the dot products alone: the heads' scores are combined elementwise).
    f.core = 2.0 * heads * (d + (s.headWeights ? 1.0 : 0.0)) * attendedKeys;
    return f;
}

void validateKimiDeltaAttention(const KimiDeltaAttentionSpec& s)
{
    requirePositive(s.heads, "Kimi Delta Attention heads (linear_attn_config.num_heads)");
    requirePositive(s.headDim, "Kimi Delta Attention head size (linear_attn_config.head_dim)");
    requirePositive(s.convKernel, "Kimi Delta Attention convolution width (linear_attn_config.short_conv_kernel_size)");
}

int64_t kimiDeltaAttentionParams(const KimiDeltaAttentionSpec& s, int64_t hidden)
{
    const int64_t d = s.headDim;
    const int64_t width = s.heads * d; // q, k, v, the forget gate and the output gate are all heads x headDim wide
    const int64_t forgetGate = s.fullRankForgetGate ? hidden * width : hidden * d + d * width;
    return 3 * hidden * width // q_proj, k_proj, v_proj
        + 3 * width * s.convKernel // short depthwise convolutions on q, k and v, no bias
        + forgetGate // f_proj, or f_a_proj then f_b_proj
        + width + s.heads // dt_bias (per channel), A_log (per head)
        + hidden * s.heads // b_proj: the write strength beta per head
        + hidden * d + d * width // g_a_proj then g_b_proj: the output gate
        + d // o_norm: gated RMSNorm over each head's output
        + width * hidden; // o_proj
}

MixerForwardFlops kimiDeltaAttentionForwardFlops(const KimiDeltaAttentionSpec& s, int64_t hidden)
{
    const double h = double(hidden);
    const double d = double(s.headDim);
    const double width = double(s.heads) * d;
    const double forgetGate = s.fullRankForgetGate ? h * width : h * d + d * width;
    MixerForwardFlops f;
    f.inputProjection = 2.0 * (3.0 * h * width + forgetGate + h * double(s.heads) + h * d + d * width);
    // One headDim x headDim state per head. The channel-wise decay Diag(alpha_t) costs one multiply per state element,
    // as Gated DeltaNet's scalar decay does: the same 7 FLOP per element.
    f.core = kRecurrenceFlopsPerStateElement * double(s.heads) * d * d;
    f.outputProjection = 2.0 * width * h;
    // q, k, v; the forget gate (full rank: W; low rank: its d-wide middle twice and W); beta; the output gate's low
    // rank likewise; the output projection's input.
    const double lowRankGate = 2.0 * d + width;
    f.projectionOperands
        = 3.0 * width + (s.fullRankForgetGate ? width : lowRankGate) + double(s.heads) + lowRankGate + width;
    return f;
}

void validateCompressedAttention(const CompressedAttentionSpec& s)
{
    requirePositive(s.qLoraRank, "compressed attention query rank (q_lora_rank)");
    requirePositive(s.outputRank, "compressed attention output rank (o_lora_rank)");
    requirePositive(s.outputGroups, "compressed attention output groups (o_groups)");
    if (s.sparseRatio < 0 || s.denseRatio < 0)
        throw InputError("compressed attention ratios (compress_ratios) cannot be negative");
}

int64_t compressedAttentionProjectionParams(
    const CompressedAttentionSpec& s, int64_t hidden, int heads, int64_t headDim)
{
    const int64_t width = heads * headDim;
    return hidden * s.qLoraRank + s.qLoraRank // wq_a, q_norm
        + s.qLoraRank * width // wq_b
        + hidden * headDim + headDim // wkv: the one key-value head, kv_norm
        + width * s.outputRank // wo_a: each of outputGroups groups maps its heads x headDim / groups to outputRank
        + int64_t(s.outputGroups) * s.outputRank * hidden // wo_b
        + heads; // attn_sink: one learned logit per head
}

MixerForwardFlops compressedAttentionProjectionFlops(
    const CompressedAttentionSpec& s, int64_t hidden, int heads, int64_t headDim)
{
    const double h = double(hidden);
    const double r = double(s.qLoraRank);
    const double width = double(heads) * double(headDim);
    MixerForwardFlops f;
    f.inputProjection = 2.0 * (h * r + r * width + h * double(headDim));
    f.outputProjection = 2.0 * (width * double(s.outputRank) + double(s.outputGroups) * double(s.outputRank) * h);
    return f;
}

int64_t kvCompressorParams(int64_t hidden, int64_t width, int64_t ratio, bool overlapping)
{
    const int64_t sets = overlapping ? 2 : 1; // overlapping windows: a second set of weights for the previous block
    return 2 * hidden * sets * width // wkv and wgate (the pooling weights)
        + ratio * sets * width // ape: a learned position embedding inside the block
        + width; // norm: RMSNorm of the compressed key
}

double kvCompressorFlops(int64_t hidden, int64_t width, bool overlapping)
{
    return 2.0 * 2.0 * double(hidden) * (overlapping ? 2.0 : 1.0) * double(width);
}

int64_t compressedSparseExtraParams(
    const CompressedAttentionSpec& s, const SparseIndexerSpec& ix, int64_t hidden, int64_t headDim)
{
    return kvCompressorParams(hidden, headDim, s.sparseRatio, true) // the attention's compressed keys
        + s.qLoraRank * ix.heads * ix.headDim // indexer wq_b, from the compressed query
        + hidden * ix.heads // indexer weights_proj
        + kvCompressorParams(hidden, ix.headDim, s.sparseRatio, true); // the indexer's own compressed keys
}

MixerForwardFlops compressedSparseExtraFlops(
    const CompressedAttentionSpec& s, const SparseIndexerSpec& ix, int64_t hidden, int64_t headDim, double scoredKeys)
{
    const double h = double(hidden);
    const double heads = double(ix.heads);
    const double d = double(ix.headDim);
    MixerForwardFlops f;
    f.inputProjection = kvCompressorFlops(hidden, headDim, true) + kvCompressorFlops(hidden, ix.headDim, true)
        + 2.0 * (double(s.qLoraRank) * heads * d + h * heads);
    f.core = 2.0 * heads * (d + 1.0) * scoredKeys; // as DeepSeek-V3.2's indexer, over compressed keys
    return f;
}

int64_t heavilyCompressedExtraParams(const CompressedAttentionSpec& s, int64_t hidden, int64_t headDim)
{
    return kvCompressorParams(hidden, headDim, s.denseRatio, false);
}

double heavilyCompressedExtraFlops(int64_t hidden, int64_t headDim)
{
    return kvCompressorFlops(hidden, headDim, false);
}

} // namespace mfu
