#include "core/model/chunked_scans.h"

namespace mfu {

namespace {

constexpr double kBf16 = 2.0;
constexpr double kFp32 = 4.0;

// flash-linear-attention's chunked delta-rule kernels (chunk_gated_delta_rule, chunk_kda) take chunks of 64 tokens.
constexpr double kDeltaRuleChunkTokens = 64;

// The delta rule over chunks of C tokens (Yang, Kautz and Hatamizadeh, "Gated Delta Networks", ICLR 2025, section
// 3.3; flash-linear-attention's chunk_gated_delta_rule_fwd), per head with keys of dk and values of dv:
//   kkt      A = beta K K^T inside the chunk (lower triangle)           reads k, writes A (FP32, C per token)
//   solve    (I + A)^-1, a triangular inverse (C^2/3 per token)         reads A, writes it in BF16
//   w_u      W = A^-1 K, U = A^-1 V (lower triangles)                    reads k, v, A^-1; writes w, u
//   fwd_h    state h <- h + K^T (U - W h) chunk by chunk                 reads k, w, u; writes h per chunk, v_new
//   fwd_o    O = Q h + (Q K^T, masked) v_new                             reads q, k, v_new, h; writes o
// k is read by four kernels, q once; w, u, v_new and the chunk states are written and read once each; the gates
// (FP32 cumulative decay) and beta are a few bytes more per head.
//
// The backward (chunk_gated_delta_rule_bwd) keeps A^-1 from the forward and runs, per head:
//   w_u        recomputed: reads k, v, A^-1; writes w, u
//   fwd_h      recomputed: reads k, w, u; writes h per chunk, v_new
//   dv_local   reads q, k, do; writes dv
//   bwd_dhu    the state's gradient chunk by chunk: reads q, k, w, do, dv; writes dh per chunk, dv
//   dqkwg      reads q, k, w, v_new, do, dv, h, dh; writes dq, dk, dw
//   wy_bwd     through A^-1: reads k, v, A^-1, dw, du; writes dk, dv
// then adds the two key gradients (read both, write one): 42 dk + 30 dv bytes of BF16 vectors, A^-1 read twice (4 C),
// the states four times (8 dk dv / C), and the gates' share: about 2.25 times the forward's bytes.
struct DeltaRuleGate {
    double forward = 0; // bytes per head and token the forward's kernels move for the decay and beta
    double backward = 0;
};
ChunkedScanWork deltaRuleChunked(double heads, double dk, double dv, const DeltaRuleGate& gate)
{
    const double c = kDeltaRuleChunkTokens;
    const double flops = 3.0 * c * dk + 2.0 * c * dv + 6.0 * dk * dv + c * c / 3.0;
    const double bytes = kBf16 * (4.0 * dk + dk + 2.0 * dk) // k four times, q, w written and read
        + kBf16 * (dv + 2.0 * dv + 2.0 * dv + dv) // v, u and v_new written and read, o
        + c * (kFp32 + kFp32 + kBf16 + kBf16) // A written, read; A^-1 written, read
        + 2.0 * kBf16 * dk * dv / c // chunk states written and read
        + gate.forward;
    const double backward
        = kBf16 * (21.0 * dk + 15.0 * dv) + 2.0 * kBf16 * c + 4.0 * kBf16 * dk * dv / c + gate.backward;
    return { heads * flops, heads * bytes, heads * backward };
}

// A scalar decay per head and token, cumulated in FP32 (written and read by four kernels), and beta in BF16 (read by
// three). Backward: the decay read by six kernels, its gradient written by two, added and cumulated back (13 FP32
// values), beta read twice and its gradient written.
constexpr DeltaRuleGate kScalarGate { 5.0 * kFp32 + 3.0 * kBf16, 13.0 * kFp32 + 3.0 * kBf16 };

// BF16 vectors each elementwise kernel around a recurrence reads and writes, per channel:
// - causal_conv1d with SiLU (Dao-AILab causal-conv1d): forward reads x and writes y; backward reads x and dy and
//   writes dx, recomputing the activation's input inside the kernel.
constexpr double kConvForward = 2, kConvBackward = 3;
// - a gated RMSNorm (mamba_ssm's and flash-linear-attention's fused kernels): forward reads the output and its gate
//   and writes the normed product; backward reads dout, the output and the gate and writes both gradients. The
//   per-row FP32 statistics are a few bytes per head.
constexpr double kGatedNormForward = 3, kGatedNormBackward = 5;
// - flash-linear-attention's l2norm: forward reads and writes; backward reads the normed vector and its gradient and
//   writes the input's.
constexpr double kL2NormForward = 2, kL2NormBackward = 3;

} // namespace

// Mamba-2's state space duality (Dao and Gu, "Transformers are SSMs", ICML 2024, section 6 and its listing 1) as
// mamba_ssm's Triton kernels run it, per chunk of Q tokens, with H heads of P channels, G groups of B and C, state N:
//   chunk_cumsum   dt and its cumulative decay                         reads dt, writes both in FP32
//   chunk_state    each chunk's own state B^T X (2 N P per token, head) reads x, B; writes the state in FP32
//   state_passing  the states carried across chunks                    reads them in FP32, writes them in BF16
//   bmm_chunk      C B^T inside the chunk (2 Q N per token, group)      reads C, B; writes Q x Q in FP32
//   chunk_scan     (C B^T, masked) X over the causal half (Q P) and     reads x, C, C B^T, the states; writes y
//                  C times the carried state (2 N P)
// The gated RMSNorm and the depthwise convolution around it are elementwise work, counted apart (mamba2Elementwise).
//
// The backward (_mamba_chunk_scan_combined_bwd) recomputes chunk_cumsum, bmm_chunk, chunk_state and state_passing in
// FP32, then: chunk_scan_bwd_dstates (reads C and dy; writes the states' gradient in FP32), state_passing_bwd (reads
// the states and their gradients in FP32, writes both in BF16), chunk_scan_chunk_state_bwd_dx (reads x, B, C B^T, dy,
// the states' gradient; writes dx), chunk_state_bwd_db (reads x and the states' gradient; writes dB),
// chunk_scan_bwd_dC (reads the states, dy and C; writes dC), chunk_scan_bwd_dcb (reads x and dy; writes the gradient
// of C B^T in FP32), two bmm_chunk_bwd (dB and dC from it), chunk_scan_bwd_ddAcs_stable (reads x, dy, C B^T) and
// chunk_cumsum_bwd. Per token: 22 H P + 28 G N bytes of x, dy, B, C and their gradients, 24 G Q of C B^T and its
// gradient, 34 H P N / Q of the chunk states and their gradients, and about 94 H of dt, its decay and their
// gradients: about three times the forward's bytes, where attention's backward is counted at twice.
ChunkedScanWork mamba2ChunkedScan(const Mamba2Spec& s)
{
    const double h = double(s.heads), p = double(s.headDim), g = double(s.groups), n = double(s.stateSize);
    const double q = double(s.chunkSize);
    ChunkedScanWork w;
    w.matmulFlops = g * 2.0 * q * n + h * (q * p + 4.0 * n * p);
    w.hbmBytes = h * 3.0 * p * kBf16 // x read by chunk_state and chunk_scan, y written
        + g * 4.0 * n * kBf16 // B and C read twice each
        + g * 2.0 * q * kFp32 // C B^T written and read
        + h * p * n / q * (kFp32 + kFp32 + kBf16 + kBf16) // the chunk states through state_passing
        + h * (kBf16 + 6.0 * kFp32); // dt read; dt and its cumulative decay written, each read twice
    w.backwardHbmBytes = 22.0 * h * p + 28.0 * g * n + 24.0 * g * q + 34.0 * h * p * n / q + 94.0 * h;
    return w;
}

// mamba_split_conv1d_scan_combined over d_inner = H x P channels: the convolution runs over x, B and C (d_inner + 2 G
// N channels), the gated RMSNorm over d_inner with z as its gate. Its backward first recomputes the convolution's
// output (for the scan's backward). Megatron-Core's MambaMixer runs the out-projection as its own row-parallel layer,
// which keeps the normed output; mamba_ssm's Mamba2 fuses it and recomputes the normed output instead (a gated
// norm's forward more here, its input fewer in mamba2SavedBytes).
MixerElementwiseBytes mamba2Elementwise(const Mamba2Spec& s)
{
    const double inner = double(s.heads) * double(s.headDim);
    const double conv = inner + 2.0 * double(s.groups) * double(s.stateSize);
    MixerElementwiseBytes b;
    b.forward = kBf16 * (kConvForward * conv + kGatedNormForward * inner);
    b.backward = kBf16 * (kConvForward /* recomputed */ * conv + kConvBackward * conv + kGatedNormBackward * inner);
    return b;
}

// One convolution over q, k and v (2 keyHeads x dk + valueHeads x dv channels), before q and k are repeated to the
// value heads; the repeat reads the key heads and writes the value heads' copies (its backward sums them back); the
// L2 norm of q and k runs on the repeated copies (use_qk_l2norm_in_kernel); the gated RMSNorm on valueHeads x dv.
MixerElementwiseBytes gatedDeltaNetElementwise(const GatedDeltaNetSpec& s)
{
    const double keys = double(s.keyHeads) * double(s.keyHeadDim);
    const double repeatedKeys = double(s.valueHeads) * double(s.keyHeadDim);
    const double values = double(s.valueHeads) * double(s.valueHeadDim);
    const double conv = 2.0 * keys + values;
    const double repeat = s.valueHeads > s.keyHeads ? 2.0 * keys + 2.0 * repeatedKeys : 0.0;
    MixerElementwiseBytes b;
    b.forward
        = kBf16 * (kConvForward * conv + repeat + 2.0 * kL2NormForward * repeatedKeys + kGatedNormForward * values);
    b.backward
        = kBf16 * (kConvBackward * conv + repeat + 2.0 * kL2NormBackward * repeatedKeys + kGatedNormBackward * values);
    return b;
}

// Three convolutions of H x d channels (q, k, v), the L2 norm of q and k, the gated RMSNorm of the output (H x d), and
// fused_kda_gate, which activates the low-rank forget gate into an FP32 decay per channel (forward reads it in BF16
// and writes FP32; backward reads it and the FP32 gradient and writes a BF16 one).
MixerElementwiseBytes kimiDeltaAttentionElementwise(const KimiDeltaAttentionSpec& s)
{
    const double width = double(s.heads) * double(s.headDim);
    MixerElementwiseBytes b;
    b.forward
        = kBf16 * width * (3.0 * kConvForward + 2.0 * kL2NormForward + kGatedNormForward) + width * (kBf16 + kFp32);
    b.backward = kBf16 * width * (3.0 * kConvBackward + 2.0 * kL2NormBackward + kGatedNormBackward)
        + width * (kBf16 + kFp32 + kBf16);
    return b;
}

ChunkedScanWork gatedDeltaNetChunkedScan(const GatedDeltaNetSpec& s)
{
    return deltaRuleChunked(double(s.valueHeads), double(s.keyHeadDim), double(s.valueHeadDim), kScalarGate);
}

// KDA decays each key channel: its FP32 cumulative gate is dk wide, written once and read by the four kernels that
// read k; in the backward read by six, its gradient written by two, added and cumulated back (13 dk FP32 values).
ChunkedScanWork kimiDeltaAttentionChunkedScan(const KimiDeltaAttentionSpec& s)
{
    const double d = double(s.headDim);
    return deltaRuleChunked(
        double(s.heads), d, d, DeltaRuleGate { 5.0 * kFp32 * d + 3.0 * kBf16, 13.0 * kFp32 * d + 3.0 * kBf16 });
}

double mamba2SavedBytes(const Mamba2Spec& s)
{
    const double h = double(s.heads), inner = h * double(s.headDim), g = double(s.groups);
    const double zxbcdt = 2.0 * inner + 2.0 * g * double(s.stateSize) + h; // z, x, B, C and dt
    // zxbcdt, the scan's output, the normed output the out-projection keeps; the norm's statistics per group.
    return kBf16 * (zxbcdt + inner + inner) + kFp32 * g;
}

double gatedDeltaNetSavedBytes(const GatedDeltaNetSpec& s)
{
    const double heads = double(s.valueHeads);
    const double keys = double(s.keyHeads) * double(s.keyHeadDim);
    const double repeatedKeys = heads * double(s.keyHeadDim);
    const double values = heads * double(s.valueHeadDim);
    const double convInput = 2.0 * keys + values;
    // q and k normed, v; the output, its gate z and the normed product the out-projection reads.
    const double vectors = 2.0 * repeatedKeys + values + 3.0 * values;
    // Per head: q's and k's norms and the cumulative decay in FP32, beta, the decay's softplus input and output (the
    // gate is computed in FP32), the norm's statistics, A^-1.
    const double perHead = 2.0 * kFp32 + kFp32 + kBf16 + 2.0 * kFp32 + kFp32 + kBf16 * kDeltaRuleChunkTokens;
    return kBf16 * (convInput + vectors) + heads * perHead;
}

double kimiDeltaAttentionSavedBytes(const KimiDeltaAttentionSpec& s)
{
    const double heads = double(s.heads), width = heads * double(s.headDim);
    // Three convolutions' inputs, the gate's input, q and k normed, v, the output, its gate, the out-projection's
    // input: BF16; the cumulative decay per channel: FP32.
    const double vectors = kBf16 * width * (3.0 + 1.0 + 2.0 + 1.0 + 3.0) + kFp32 * width;
    // Per head: q's and k's norms, beta, the norm's statistics, A_qk in FP32 and A_kk^-1 in BF16 (chunk_kda).
    const double perHead = 2.0 * kFp32 + kBf16 + kFp32 + (kFp32 + kBf16) * kDeltaRuleChunkTokens;
    return vectors + heads * perHead;
}

} // namespace mfu
