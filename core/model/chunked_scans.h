#pragma once
// What the chunked kernels that train recurrent token mixers execute and move. A model's FLOP count charges a
// recurrence 7 FLOP per state element and token (token_mixers.h); the kernels that train it work chunk by chunk
// instead: small matmuls inside a chunk, a state written to HBM at every chunk boundary, and the inputs read by
// several kernels in turn. Their time is set by those bytes far more than by the FLOPs, so the cost model times each
// mixer from both. Forward pass, per token of one layer, all heads; BF16 activations. Derivations and sources:
// docs/formulas.md, "Chunked kernels of recurrent mixers".
#include "core/model/token_mixers.h"

namespace mfu {

struct ChunkedScanWork {
    double matmulFlops = 0; // tensor-core matmuls inside and between chunks, 2 FLOP per multiply-add
    double hbmBytes = 0; // every kernel's reads and writes of HBM
    // The backward's kernels: they first recompute the forward's chunk states (the forward keeps none), then read the
    // inputs and the output's gradient again for each gradient they write.
    double backwardHbmBytes = 0;
};

// Mamba-2's SSD kernels (mamba_ssm, _mamba_chunk_scan_combined_fwd) over chunks of spec.chunkSize tokens.
ChunkedScanWork mamba2ChunkedScan(const Mamba2Spec& spec);
// Gated DeltaNet's chunked delta rule (chunk_gated_delta_rule_fwd), keys repeated to the value heads as Qwen3-Next
// and Qwen3.5 call it.
ChunkedScanWork gatedDeltaNetChunkedScan(const GatedDeltaNetSpec& spec);
// Kimi Delta Attention's (chunk_kda): the delta rule's kernels plus its per-channel decay, read by each of them.
ChunkedScanWork kimiDeltaAttentionChunkedScan(const KimiDeltaAttentionSpec& spec);

// The elementwise kernels around a recurrence: its short depthwise convolution (with SiLU), the L2 norm of its
// queries and keys, its gates and the gated RMSNorm of its output, as the training code runs them. Bytes of HBM per
// token of one layer, all heads, forward and backward apart. The framework's own layout copies (splits, cats,
// transposes) differ between implementations and are left out.
struct MixerElementwiseBytes {
    double forward = 0;
    double backward = 0;
    double total() const { return forward + backward; }
};

// mamba_ssm's mamba_split_conv1d_scan_combined as Megatron-Core's MambaMixer trains with it (the out-projection its own
// layer): its backward recomputes the convolution instead of keeping it.
MixerElementwiseBytes mamba2Elementwise(const Mamba2Spec& spec);
// Gated DeltaNet as Qwen3-Next and Qwen3.5 run it: one convolution over q, k and v, q and k repeated to the value
// heads and L2-normed, a gated RMSNorm on the output.
MixerElementwiseBytes gatedDeltaNetElementwise(const GatedDeltaNetSpec& spec);
// Kimi Delta Attention: three convolutions (q, k, v), q and k L2-normed, its per-channel forget gate activated in
// FP32, a sigmoid-gated RMSNorm on the output.
MixerElementwiseBytes kimiDeltaAttentionElementwise(const KimiDeltaAttentionSpec& spec);

// What a recurrent token mixer keeps for backward, bytes per token of one layer, all heads: the tensors its training
// code saves between the block's norm (whose output, the in-projection's input, the layer counts per sublayer) and
// the out-projection, its input included where the framework keeps it. Each is counted once as the kernel saves it;
// where a saved tensor is a view that keeps a larger buffer alive, the buffer is not counted (that depends on the
// framework's splits, not the mixer).
// Mamba-2 as Megatron-Core's MambaMixer trains it: mamba_split_conv1d_scan_combined keeps the in-projection's output
// zxbcdt, the scan's output before the gated norm and the norm's FP32 statistics per group, and recomputes the
// convolution; the out-projection, a row-parallel layer of its own, keeps its input (the normed output).
double mamba2SavedBytes(const Mamba2Spec& spec);
// Gated DeltaNet as flash-linear-attention's layer and Qwen3-Next's and Qwen3.5's run it: the convolution's input,
// the L2-normed q and k on the value heads with their FP32 norms, v, the FP32 cumulative decay, beta, the decay's
// FP32 softplus input and output, A^-1 (C BF16 values a head), the output and its gate for the gated norm with its
// FP32 statistics, and the out-projection's input.
double gatedDeltaNetSavedBytes(const GatedDeltaNetSpec& spec);
// Kimi Delta Attention: three convolutions' inputs, the forget gate's input, q and k L2-normed, v, the per-channel FP32
// decay, beta, the two C x C chunk matrices chunk_kda keeps (A_qk in FP32, A_kk^-1 in BF16), the output, its gate and
// the out-projection's input.
double kimiDeltaAttentionSavedBytes(const KimiDeltaAttentionSpec& spec);

} // namespace mfu
