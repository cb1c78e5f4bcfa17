// Token mixers beyond full attention: parameters and forward FLOP per token of one layer, each checked against a
// derivation by hand from the real configs (Qwen3.5-27B's Gated DeltaNet layers, Nemotron-H-56B's Mamba-2 layers,
// DeepSeek-V3.2's sparse-attention indexer, Kimi K3's Kimi Delta Attention layers, DeepSeek-V4-Flash's compressed
// attention layers), written out term by term so a changed convention shows here.
#include <QtTest>

#include "core/errors.h"
#include "core/model/chunked_scans.h"
#include "core/model/flops.h"
#include "core/model/param_count.h"
#include "core/model/token_mixers.h"

using namespace mfu;

class TestTokenMixers : public QObject {
    Q_OBJECT
private slots:
    void gatedDeltaNetOfQwen35_27B()
    {
        // text_config: hidden_size 5120, linear_num_key_heads 16, linear_num_value_heads 48, linear_key_head_dim
        // 128, linear_value_head_dim 128, linear_conv_kernel_dim 4. key_dim 2048, value_dim 6144.
        const GatedDeltaNetSpec s { 16, 48, 128, 128, 4 };
        const int64_t expected = 5120LL * (2 * 2048 + 2 * 6144) // in_proj_qkvz 83,886,080
            + 5120LL * 96 // in_proj_ba 491,520
            + (2 * 2048 + 6144) * 4 // conv1d 40,960
            + 96 // dt_bias + A_log
            + 128 // norm
            + 6144LL * 5120; // out_proj 31,457,280
        QCOMPARE(expected, int64_t(115'876'064));
        QCOMPARE(gatedDeltaNetParams(s, 5120), expected);

        const MixerForwardFlops f = gatedDeltaNetForwardFlops(s, 5120);
        QCOMPARE(f.inputProjection, 2.0 * 5120 * (4096 + 12288 + 96)); // 168,755,200
        QCOMPARE(f.core, 7.0 * 48 * 128 * 128); // 5,505,024: no term in S
        QCOMPARE(f.outputProjection, 2.0 * 6144 * 5120);
        QCOMPARE(f.total(), 237'174'784.0);
    }

    void mamba2OfNemotronH56B()
    {
        // hidden_size 8192, mamba_num_heads 256, mamba_head_dim 64 (d_inner 16384 = expand 2 x 8192), n_groups 8,
        // ssm_state_size 256, conv_kernel 4, use_bias false, use_conv_bias true.
        const Mamba2Spec s { 256, 64, 8, 256, 4, false, true };
        const int64_t inProjection = 2 * 16384 + 2 * 8 * 256 + 256; // z, x, B, C, dt: 37,120
        const int64_t convChannels = 16384 + 2 * 8 * 256; // 20,480
        const int64_t expected
            = 8192LL * inProjection + convChannels * 4 + convChannels + 3 * 256 + 16384 + 16384LL * 8192;
        QCOMPARE(expected, int64_t(438'424'320));
        QCOMPARE(mamba2Params(s, 8192), expected);

        const MixerForwardFlops f = mamba2ForwardFlops(s, 8192);
        QCOMPARE(f.inputProjection, 2.0 * 8192 * 37120);
        QCOMPARE(f.core, 7.0 * 16384 * 256); // Megatron-LM's scan term
        QCOMPARE(f.outputProjection, 2.0 * 16384 * 8192);

        Mamba2Spec biased = s;
        biased.projectionBias = true;
        QCOMPARE(mamba2Params(biased, 8192), expected + inProjection + 8192);
    }

    // The chunked kernels of Nemotron 3 Nano's Mamba-2 layers (its config: 64 heads of 64, 8 groups, state 128,
    // chunk_size 128): C B^T 8 x 2 x 128 x 128, the causal diagonal blocks 128 x 64 and the states 4 x 128 x 64 per
    // head; x twice and y (24,576 bytes), B and C twice (8,192), C B^T in FP32 (8,192), the states in FP32 then BF16
    // (64 x 64 x 128 / 128 x 12 = 49,152), dt and its decay (64 x 26).
    void mamba2ChunkedKernels()
    {
        Mamba2Spec s { 64, 64, 8, 128, 4, false, true };
        s.chunkSize = 128;
        const ChunkedScanWork w = mamba2ChunkedScan(s);
        QCOMPARE(w.matmulFlops, 262'144.0 + 64 * (8'192.0 + 32'768.0));
        QCOMPARE(w.hbmBytes, 24'576.0 + 8'192 + 8'192 + 49'152 + 1'664);
        QCOMPARE(w.hbmBytes, 91'776.0);
        // Twice the chunk: the states cross HBM half as often, the chunk's own products grow with it.
        s.chunkSize = 256;
        const ChunkedScanWork wide = mamba2ChunkedScan(s);
        QCOMPARE(wide.hbmBytes, 91'776.0 - 24'576 + 8'192);
        QCOMPARE(wide.matmulFlops, 2 * 262'144.0 + 64 * (16'384.0 + 32'768.0));
        // Far fewer bytes than FLOPs move: 31 FLOP per byte, below every GPU's ridge, so the bytes set the time.
        QVERIFY(w.matmulFlops / w.hbmBytes > 30 && w.matmulFlops / w.hbmBytes < 35);
        // Backward: 22 x 4,096 of x, dy and dx, 28 x 1,024 of B, C and their gradients, 24 x 1,024 of C B^T and its
        // gradient, 34 x 4,096 of the chunk states and their gradients, 94 x 64 of dt and its decay: 3.1 times the
        // forward's bytes.
        QCOMPARE(w.backwardHbmBytes, 90'112.0 + 28'672 + 24'576 + 139'264 + 6'016);
        QCOMPARE(w.backwardHbmBytes, 288'640.0);

        // Around the scan: the convolution over x, B and C (4,096 + 2 x 8 x 128 = 6,144 channels) and the gated
        // RMSNorm over 4,096, BF16. Forward 2 x (2 x 6,144 + 3 x 4,096); backward recomputes the convolution (2 x
        // 6,144 again; the out-projection, Megatron-Core's own layer, kept the normed output), then 3 passes of the
        // convolution's and 5 of the norm's.
        const MixerElementwiseBytes around = mamba2Elementwise(s);
        QCOMPARE(around.forward, 2.0 * (12'288 + 12'288));
        QCOMPARE(around.backward, 2.0 * (12'288 + 18'432 + 20'480));
        QCOMPARE(around.total(), 151'552.0);
        // 1.65 times the scan's forward bytes: not a rounding error beside the recurrence.
        QVERIFY(around.total() > 1.6 * w.hbmBytes);
    }

    // Qwen3.5-27B's Gated DeltaNet (48 value heads of 128, keys of 128), chunks of 64: per head 3 x 64 x 128 +
    // 2 x 64 x 128 + 6 x 128^2 + 64^2 / 3 matmul FLOPs; k read four times, q once, w written and read (14 x 128), v,
    // u, v_new and o (12 x 128), A in FP32 and its inverse in BF16 (12 x 64), a state per chunk written and read
    // (4 x 128^2 / 64), the decay and beta (26).
    void gatedDeltaNetChunkedKernels()
    {
        const GatedDeltaNetSpec g { 16, 48, 128, 128, 4 };
        const ChunkedScanWork w = gatedDeltaNetChunkedScan(g);
        QCOMPARE(w.matmulFlops, 48 * (24'576.0 + 16'384 + 98'304 + 4'096.0 / 3));
        QCOMPARE(w.hbmBytes, 48 * (1'792.0 + 1'536 + 768 + 1'024 + 26));
        QCOMPARE(w.hbmBytes, 247'008.0);
        // Backward: 42 x 128 + 30 x 128 bytes of vectors, A^-1 read twice (4 x 64), the states four times
        // (8 x 128^2 / 64), the decay and beta (58): 2.25 times the forward's bytes.
        QCOMPARE(w.backwardHbmBytes, 48 * (5'376.0 + 3'840 + 256 + 2'048 + 58));
        QCOMPARE(w.backwardHbmBytes, 555'744.0);
        // Kimi Delta Attention of the same size adds its per-channel FP32 decay: 20 x 128 bytes a head more.
        const ChunkedScanWork kda = kimiDeltaAttentionChunkedScan(KimiDeltaAttentionSpec { 48, 128, 4, false });
        QCOMPARE(kda.matmulFlops, w.matmulFlops);
        QCOMPARE(kda.hbmBytes, w.hbmBytes + 48 * (20.0 * 128 - 20));
        QCOMPARE(kda.backwardHbmBytes, w.backwardHbmBytes + 48 * (52.0 * 128 - 52));

        // Around the delta rule: the convolution over q, k and v (2 x 16 x 128 + 48 x 128 = 10,240 channels); q and k
        // repeated from 16 to 48 heads (reads 2 x 2,048, writes 2 x 6,144; the backward sums them back); their L2
        // norms on 6,144 channels each; the gated RMSNorm on 6,144. BF16.
        const MixerElementwiseBytes around = gatedDeltaNetElementwise(g);
        QCOMPARE(around.forward, 2.0 * (2 * 10'240 + 16'384 + 2 * 2 * 6'144 + 3 * 6'144));
        QCOMPARE(around.backward, 2.0 * (3 * 10'240 + 16'384 + 2 * 3 * 6'144 + 5 * 6'144));
        QCOMPARE(around.total(), 389'120.0);
        // With as many key heads as value heads nothing is repeated.
        const GatedDeltaNetSpec even { 48, 48, 128, 128, 4 };
        QCOMPARE(gatedDeltaNetElementwise(even).total(), 2.0 * (5 * 18'432 + 10 * 6'144 + 8 * 6'144));
        // KDA (48 heads of 128, 6,144 channels): three convolutions, two L2 norms and the gated norm (13 passes
        // forward, 20 backward), and its FP32 forget gate (6 bytes forward, 8 backward): 80 bytes per channel.
        const MixerElementwiseBytes kdaAround
            = kimiDeltaAttentionElementwise(KimiDeltaAttentionSpec { 48, 128, 4, false });
        QCOMPARE(kdaAround.forward, 32.0 * 6'144);
        QCOMPARE(kdaAround.total(), 491'520.0);
    }

    // What each recurrence keeps for backward, BF16 unless named, bytes per token of one layer.
    void recurrencesSavedForBackward()
    {
        // Nemotron 3 Nano's Mamba-2 (64 heads of 64, 8 groups, state 128): zxbcdt (2 x 4,096 + 2 x 8 x 128 + 64),
        // the scan's output (4,096), the normed output the out-projection keeps (4,096) and the gated norm's FP32
        // statistics per group (8).
        const Mamba2Spec nano { 64, 64, 8, 128, 4, false, true };
        QCOMPARE(mamba2SavedBytes(nano), 2.0 * (10'304 + 4'096 + 4'096) + 4 * 8);
        QCOMPARE(mamba2SavedBytes(nano), 37'024.0);
        // Qwen3.5-27B's Gated DeltaNet (16 key heads, 48 value heads, 128 wide): the convolution's input (10,240), q
        // and k normed on the value heads (2 x 6,144), v, the output, its gate and the normed product (4 x 6,144);
        // per head the FP32 norms of q and k, the FP32 decay, beta, the decay's FP32 softplus input and output, the
        // norm's FP32 statistics and A^-1's 64 BF16 values (154 bytes).
        const GatedDeltaNetSpec g { 16, 48, 128, 128, 4 };
        QCOMPARE(gatedDeltaNetSavedBytes(g), 2.0 * (10'240 + 12'288 + 24'576) + 48 * 154);
        QCOMPARE(gatedDeltaNetSavedBytes(g), 101'600.0);
        // Nearly twice what one of its attention layers keeps (queries of 24 heads of 256, 4 key-value heads, the
        // output, its gate and the gated product, the log-sum-exp: 2 x (6,144 + 2,048 + 3 x 6,144) + 4 x 24 = 53,344
        // bytes), the reason a hybrid's memory is not a transformer's.
        QVERIFY(gatedDeltaNetSavedBytes(g) > 1.9 * 53'344);
        // Kimi Delta Attention (48 heads of 128, 6,144 channels): three convolutions' inputs, the gate's input, q and
        // k, v, the output, its gate and the normed product (10 BF16 vectors), the FP32 decay per channel; per head
        // the FP32 norms of q and k, beta, the norm's statistics and two 64-wide chunk matrices, A_qk in FP32 and
        // A_kk^-1 in BF16 (398 bytes).
        QCOMPARE(kimiDeltaAttentionSavedBytes(KimiDeltaAttentionSpec { 48, 128, 4, false }),
            (2.0 * 10 + 4) * 6'144 + 48 * 398);
    }

    // A file may state up to INT_MAX heads or groups (kMaxFileCount): the counts are formed in 64 bits, so 2 x heads
    // does not overflow an int (undefined behaviour the sanitizer build stops on) and the sum keeps every term.
    void headCountsNearIntMaxStayIn64Bits()
    {
        constexpr int kMax = std::numeric_limits<int>::max();
        Mamba2Spec m;
        m.heads = kMax;
        m.headDim = 1;
        m.groups = kMax;
        m.stateSize = 1;
        m.convKernel = 1;
        m.convBias = false;
        m.projectionBias = false;
        const int64_t inner = kMax;
        const int64_t bc = 2 * int64_t { kMax };
        const int64_t inProjection = 2 * inner + bc + kMax;
        QCOMPARE(mamba2Params(m, 1), inProjection + (inner + bc) + 3 * int64_t { kMax } + inner + inner * 1);
        GatedDeltaNetSpec g;
        g.keyHeads = 1;
        g.valueHeads = kMax;
        g.keyHeadDim = 1;
        g.valueHeadDim = 1;
        g.convKernel = 1;
        QVERIFY(gatedDeltaNetParams(g, 1) > 4 * int64_t { kMax });
    }

    void sparseIndexerOfDeepSeekV32()
    {
        // index_n_heads 64, index_head_dim 128, index_topk 2048; hidden_size 7168, q_lora_rank 1536.
        const SparseIndexerSpec s { 64, 128, 2048 };
        QCOMPARE(sparseIndexerParams(s, 7168, 1536), int64_t(1536LL * 64 * 128 + 7168 * 128 + 256 + 7168 * 64));
        QCOMPARE(sparseIndexerParams(s, 7168, 1536), int64_t(13'959'424));

        const MixerForwardFlops f = sparseIndexerForwardFlops(s, 7168, 1536, 4096.0);
        QCOMPARE(f.inputProjection, 2.0 * 13'959'168);
        QCOMPARE(f.core, 2.0 * 64 * 129 * 4096); // grows with the keys scored, unlike the top-k attention
        QCOMPARE(f.outputProjection, 0.0);
        QCOMPARE(sparseIndexerForwardFlops(s, 7168, 1536, 8192.0).core, 2.0 * f.core);
    }

    void kimiDeltaAttentionOfKimiK3()
    {
        // Kimi K3 text_config: hidden_size 7168; linear_attn_config num_heads 96, head_dim 128,
        // short_conv_kernel_size 4, use_full_rank_gate true. Width 96 x 128 = 12,288.
        const KimiDeltaAttentionSpec s { 96, 128, 4, true };
        const int64_t expected = 3LL * 7168 * 12288 // q_proj, k_proj, v_proj: 264,241,152
            + 3 * 12288 * 4 // q/k/v short convolutions: 147,456
            + 7168LL * 12288 // f_proj, full rank: 88,080,384
            + 12288 + 96 // dt_bias, A_log
            + 7168 * 96 // b_proj: 688,128
            + 7168 * 128 + 128 * 12288 // g_a_proj, g_b_proj: 2,490,368
            + 128 // o_norm
            + 12288LL * 7168; // o_proj: 88,080,384
        QCOMPARE(expected, int64_t(443'740'384));
        QCOMPARE(kimiDeltaAttentionParams(s, 7168), expected);

        const MixerForwardFlops f = kimiDeltaAttentionForwardFlops(s, 7168);
        // q, k, v, f (full rank), beta, and the low-rank output gate: 2 x 355,500,032.
        QCOMPARE(f.inputProjection, 2.0 * (3.0 * 7168 * 12288 + 7168.0 * 12288 + 7168 * 96 + 7168 * 128 + 128 * 12288));
        QCOMPARE(f.inputProjection, 711'000'064.0);
        QCOMPARE(f.core, 7.0 * 96 * 128 * 128); // 11,010,048: 96 states of 128 x 128, no term in S
        QCOMPARE(f.outputProjection, 2.0 * 12288 * 7168); // 176,160,768
        QCOMPARE(f.total(), 898'170'880.0);

        // Kimi Linear's low-rank forget gate (f_a_proj 7168 x 128, f_b_proj 128 x 12288) instead of the full one.
        KimiDeltaAttentionSpec lowRank = s;
        lowRank.fullRankForgetGate = false;
        QCOMPARE(kimiDeltaAttentionParams(lowRank, 7168), expected - 7168LL * 12288 + 7168 * 128 + 128 * 12288);
        QCOMPARE(kimiDeltaAttentionForwardFlops(lowRank, 7168).inputProjection,
            f.inputProjection - 2.0 * (7168.0 * 12288 - 7168 * 128 - 128 * 12288));
    }

    void kimiDeltaAttentionLayersInAModel()
    {
        // Four layers of Kimi K3's shape: three Kimi Delta Attention layers and one MLA layer, all dense MLPs.
        ModelSpec m;
        m.id = "kda-test";
        m.layers = 4;
        m.hidden = 7168;
        m.heads = 96;
        m.kvHeads = 96;
        m.headDim = 128;
        m.ffnDim = 3072;
        m.vocab = 1000;
        m.mla = { true, 1536, 512, 128, 64, 128 };
        m.attentionOutputGate = true;
        m.kimiDeltaAttention = { 96, 128, 4, true };
        m.layerPattern = { { 3, { TokenMixer::KimiDeltaAttention, ChannelMixer::DenseMlp, 0 } },
            { 1, { TokenMixer::FullAttention, ChannelMixer::DenseMlp, 0 } } };
        validateModelSpec(m);
        const ForwardComponents f = forwardComponents(m, 8192);
        const MixerForwardFlops kda = kimiDeltaAttentionForwardFlops(m.kimiDeltaAttention, m.hidden);
        // MLA: q 7168 x 1536 + 1536 x 96 x 192, kv 7168 x 576 + 512 x 96 x 256, and the output gate 7168 x 96 x 128.
        const double mlaQkv
            = 2.0 * (7168.0 * 1536 + 1536.0 * 96 * 192 + 7168.0 * 576 + 512.0 * 96 * 256 + 7168.0 * 96 * 128);
        QCOMPARE(f.qkvProjection, 3.0 * kda.inputProjection + mlaQkv);
        QCOMPARE(f.outputProjection, 3.0 * kda.outputProjection + 2.0 * 96 * 128 * 7168);
        QCOMPARE(f.mixerCore, 3.0 * kda.core); // the recurrences, the same under the causal mask
        QCOMPARE(f.mixerCoreCausal, f.mixerCore);
        QCOMPARE(f.attentionScores, 2.0 * 8192 * 96 * 192); // the one MLA layer attends over S
        QCOMPARE(f.attentionValues, 2.0 * 8192 * 96 * 128);
        // Its parameters: the three KDA layers and the MLA layer with its gate (Linear(7168, 96 x 128)).
        const ParameterCounts p = countParameters(m);
        const int64_t mla = 7168LL * 1536 + 1536 + 1536LL * 96 * 192 + 7168LL * 576 + 512 + 512LL * 96 * 256
            + 96LL * 128 * 7168 + 7168LL * 96 * 128;
        QCOMPARE(p.attention, 3 * int64_t(443'740'384) + mla);
        QCOMPARE(mla, int64_t(232'196'096));
    }

    void compressedAttentionOfDeepSeekV4Flash()
    {
        // hidden_size 4096, num_attention_heads 64, head_dim 512 (one key-value head), q_lora_rank 1024,
        // o_lora_rank 1024, o_groups 8; index_n_heads 64, index_head_dim 128, index_topk 512; sliding_window 128;
        // compress_ratios 4 (CSA) and 128 (HCA).
        const CompressedAttentionSpec c { 1024, 1024, 8, 4, 128 };
        const SparseIndexerSpec ix { 64, 128, 512 };
        const int64_t projections = 4096LL * 1024 + 1024 // wq_a, q_norm
            + 1024LL * 64 * 512 // wq_b: 33,554,432
            + 4096LL * 512 + 512 // wkv, kv_norm
            + 64LL * 512 * 1024 // wo_a: 8 groups of (8 heads x 512) -> 1024
            + 8LL * 1024 * 4096 // wo_b
            + 64; // attn_sink
        QCOMPARE(projections, int64_t(106'956'352));
        QCOMPARE(compressedAttentionProjectionParams(c, 4096, 64, 512), projections);
        // CSA: an overlapping compressor for the 512-wide keys (wkv, wgate 4096 x 2 x 512 each, ape 4 x 1024, norm),
        // the indexer's query (1024 -> 64 x 128) and head weights (4096 -> 64), and its own 128-wide compressor.
        const int64_t csa
            = (2 * 4096LL * 1024 + 4 * 1024 + 512) + 1024LL * 64 * 128 + 4096 * 64 + (2 * 4096LL * 256 + 4 * 256 + 128);
        QCOMPARE(csa, int64_t(19'142'272));
        QCOMPARE(compressedSparseExtraParams(c, ix, 4096, 512), csa);
        // HCA: one compressor, no overlap (wkv, wgate 4096 x 512 each, ape 128 x 512, norm).
        QCOMPARE(heavilyCompressedExtraParams(c, 4096, 512), int64_t(2 * 4096LL * 512 + 128 * 512 + 512));

        const MixerForwardFlops p = compressedAttentionProjectionFlops(c, 4096, 64, 512);
        QCOMPARE(p.inputProjection, 2.0 * (4096.0 * 1024 + 1024.0 * 32768 + 4096.0 * 512)); // 79,691,776
        QCOMPARE(p.outputProjection, 2.0 * (32768.0 * 1024 + 8.0 * 1024 * 4096)); // 134,217,728
        const MixerForwardFlops x = compressedSparseExtraFlops(c, ix, 4096, 512, 16384.0);
        QCOMPARE(x.inputProjection, 2.0 * 2 * 4096 * 1024 + 2.0 * 2 * 4096 * 256 + 2.0 * (1024.0 * 8192 + 4096 * 64));
        QCOMPARE(x.core, 2.0 * 64 * 129 * 16384); // the indexer scores S/4 compressed keys (S = 65,536)
    }

    void compressedAttentionKeys()
    {
        // A query attends to the 128-token window plus compressed keys. At S = 65,536: CSA picks min(S/4, 512) = 512
        // compressed keys, causally 512 - 512^2 / (2 x 16,384) = 504; HCA attends to all S/128 = 512, causally 256.
        ModelSpec m;
        m.slidingWindow = 128;
        m.compressedAttention = { 1024, 1024, 8, 4, 128 };
        m.sparseIndexer = { 64, 128, 512 };
        const double S = 65536;
        QCOMPARE(attentionKeys(m, TokenMixer::CompressedSparseAttention, S), 128.0 + 512.0);
        QCOMPARE(attentionKeysCausal(m, TokenMixer::CompressedSparseAttention, S), 127.875 + 504.0);
        QCOMPARE(attentionKeys(m, TokenMixer::HeavilyCompressedAttention, S), 128.0 + 512.0);
        QCOMPARE(attentionKeysCausal(m, TokenMixer::HeavilyCompressedAttention, S), 127.875 + 256.0);
        // Short sequences: S = 1,024 leaves 256 compressed keys, fewer than the top-k: all of them (128 causally).
        QCOMPARE(attentionKeys(m, TokenMixer::CompressedSparseAttention, 1024), 128.0 + 256.0);
        QCOMPARE(attentionKeysCausal(m, TokenMixer::CompressedSparseAttention, 1024), 128.0 - 128.0 * 128 / 2048 + 128);
    }

    void invalidSpecsNameTheKey()
    {
        GatedDeltaNetSpec g { 16, 40, 128, 128, 4 }; // 40 value heads over 16 key heads
        try {
            validateGatedDeltaNet(g);
            QFAIL("accepted value heads that are not a multiple of the key heads");
        } catch (const InputError& e) {
            QVERIFY(QString::fromUtf8(e.what()).contains("linear_num_key_heads"));
        }
        g.valueHeads = 48;
        g.keyHeadDim = 0;
        QVERIFY_THROWS_EXCEPTION(InputError, validateGatedDeltaNet(g));
        try {
            validateMamba2(Mamba2Spec { 256, 64, 8, 0, 4, false, true }, 8192);
            QFAIL("accepted a zero state size");
        } catch (const InputError& e) {
            QVERIFY(QString::fromUtf8(e.what()).contains("ssm_state_size"));
        }
        QVERIFY_THROWS_EXCEPTION(InputError, validateMamba2(Mamba2Spec { 250, 64, 8, 128, 4, false, true }, 8192));
        QVERIFY_THROWS_EXCEPTION(InputError, validateSparseIndexer(SparseIndexerSpec { 64, 128, 0 }));
        validateSparseIndexer(SparseIndexerSpec { 64, 128, 2048 });
        try {
            validateKimiDeltaAttention(KimiDeltaAttentionSpec { 96, 0, 4, true });
            QFAIL("accepted a zero head size");
        } catch (const InputError& e) {
            QVERIFY(QString::fromUtf8(e.what()).contains("linear_attn_config.head_dim"));
        }
        try {
            validateCompressedAttention(CompressedAttentionSpec { 1024, 0, 8, 4, 128 });
            QFAIL("accepted a zero output rank");
        } catch (const InputError& e) {
            QVERIFY(QString::fromUtf8(e.what()).contains("o_lora_rank"));
        }
    }
};

QTEST_GUILESS_MAIN(TestTokenMixers)
#include "tst_token_mixers.moc"
