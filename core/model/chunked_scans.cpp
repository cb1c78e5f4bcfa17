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
ChunkedScanWork deltaRuleChunked(double heads, double dk, double dv, double gateBytesPerHead)
{
    const double c = kDeltaRuleChunkTokens;
    const double flops = 3.0 * c * dk + 2.0 * c * dv + 6.0 * dk * dv + c * c / 3.0;
    const double bytes = kBf16 * (4.0 * dk + dk + 2.0 * dk) // k four times, q, w written and read
        + kBf16 * (dv + 2.0 * dv + 2.0 * dv + dv) // v, u and v_new written and read, o
        + c * (kFp32 + kFp32 + kBf16 + kBf16) // A written, read; A^-1 written, read
        + 2.0 * kBf16 * dk * dv / c // chunk states written and read
        + gateBytesPerHead;
    return { heads * flops, heads * bytes };
}

// A scalar decay per head and token, cumulated in FP32 (written and read by four kernels), and beta in BF16 (read by
// three).
constexpr double kScalarGateBytes = 5.0 * kFp32 + 3.0 * kBf16;

} // namespace

// Mamba-2's state space duality (Dao and Gu, "Transformers are SSMs", ICML 2024, section 6 and its listing 1) as
// mamba_ssm's Triton kernels run it, per chunk of Q tokens, with H heads of P channels, G groups of B and C, state N:
//   chunk_cumsum   dt and its cumulative decay                         reads dt, writes both in FP32
//   chunk_state    each chunk's own state B^T X (2 N P per token, head) reads x, B; writes the state in FP32
//   state_passing  the states carried across chunks                    reads them in FP32, writes them in BF16
//   bmm_chunk      C B^T inside the chunk (2 Q N per token, group)      reads C, B; writes Q x Q in FP32
//   chunk_scan     (C B^T, masked) X over the causal half (Q P) and     reads x, C, C B^T, the states; writes y
//                  C times the carried state (2 N P)
// The gated RMSNorm and the depthwise convolution around it are elementwise work, counted apart.
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
    return w;
}

ChunkedScanWork gatedDeltaNetChunkedScan(const GatedDeltaNetSpec& s)
{
    return deltaRuleChunked(double(s.valueHeads), double(s.keyHeadDim), double(s.valueHeadDim), kScalarGateBytes);
}

// KDA decays each key channel: its FP32 cumulative gate is dk wide, written once and read by the four kernels that
// read k.
ChunkedScanWork kimiDeltaAttentionChunkedScan(const KimiDeltaAttentionSpec& s)
{
    const double d = double(s.headDim);
    return deltaRuleChunked(double(s.heads), d, d, 5.0 * kFp32 * d + 3.0 * kBf16);
}

} // namespace mfu
