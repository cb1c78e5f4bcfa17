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
}

int64_t gatedDeltaNetParams(const GatedDeltaNetSpec& s, int64_t hidden)
{
    const int64_t keyDim = s.keyHeads * s.keyHeadDim;
    const int64_t valueDim = s.valueHeads * s.valueHeadDim;
    const int64_t convChannels = 2 * keyDim + valueDim; // q, k and v are convolved; the gate z is not
    return hidden * (2 * keyDim + 2 * valueDim) // in_proj_qkvz (Qwen3.5 splits it into in_proj_qkv and in_proj_z)
        + hidden * 2 * s.valueHeads // in_proj_ba: the write strength beta and the decay's input per value head
        + convChannels * s.convKernel // depthwise conv1d, no bias
        + 2 * s.valueHeads // dt_bias, A_log
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
    return f;
}

int64_t mamba2Params(const Mamba2Spec& s, int64_t hidden)
{
    const int64_t inner = s.heads * s.headDim; // d_inner = expand x hidden in Nemotron-H's configs
    const int64_t bc = 2 * s.groups * s.stateSize; // B and C
    const int64_t convChannels = inner + bc;
    const int64_t inProjection = 2 * inner + bc + s.heads; // z, x, B, C, dt
    return hidden * inProjection + (s.projectionBias ? inProjection : 0) // in_proj
        + convChannels * s.convKernel + (s.convBias ? convChannels : 0) // depthwise conv1d
        + 3 * s.heads // dt_bias, A_log, D
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
    return f;
}

int64_t sparseIndexerParams(const SparseIndexerSpec& s, int64_t hidden, int64_t qLoraRank)
{
    return qLoraRank * s.heads * s.headDim // wq_b: from MLA's compressed query
        + hidden * s.headDim // wk: one key head shared by the indexer's heads
        + 2 * s.headDim // k_norm (LayerNorm: weight and bias)
        + hidden * s.heads; // weights_proj: each head's weight in the key's score
}

MixerForwardFlops sparseIndexerForwardFlops(
    const SparseIndexerSpec& s, int64_t hidden, int64_t qLoraRank, double attendedKeys)
{
    const double h = double(hidden);
    const double heads = double(s.heads);
    const double d = double(s.headDim);
    MixerForwardFlops f;
    f.inputProjection = 2.0 * (double(qLoraRank) * heads * d + h * d + h * heads);
    // Score of a key = sum over heads of weight_h x ReLU(q_h . k): a dot product and a multiply-add per head and key.
    f.core = 2.0 * heads * (d + 1.0) * attendedKeys;
    return f;
}

} // namespace mfu
