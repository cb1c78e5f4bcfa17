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
};

// Mamba-2's SSD kernels (mamba_ssm, _mamba_chunk_scan_combined_fwd) over chunks of spec.chunkSize tokens.
ChunkedScanWork mamba2ChunkedScan(const Mamba2Spec& spec);
// Gated DeltaNet's chunked delta rule (chunk_gated_delta_rule_fwd), keys repeated to the value heads as Qwen3-Next
// and Qwen3.5 call it.
ChunkedScanWork gatedDeltaNetChunkedScan(const GatedDeltaNetSpec& spec);
// Kimi Delta Attention's (chunk_kda): the delta rule's kernels plus its per-channel decay, read by each of them.
ChunkedScanWork kimiDeltaAttentionChunkedScan(const KimiDeltaAttentionSpec& spec);

} // namespace mfu
