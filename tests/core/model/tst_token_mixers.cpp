// Token mixers beyond full attention: parameters and forward FLOP per token of one layer, each checked against a
// derivation by hand from the real configs (Qwen3.5-27B's Gated DeltaNet layers, Nemotron-H-56B's Mamba-2 layers,
// DeepSeek-V3.2's sparse-attention indexer), written out term by term so a changed convention shows here.
#include <QtTest>

#include "core/errors.h"
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
    }
};

QTEST_GUILESS_MAIN(TestTokenMixers)
#include "tst_token_mixers.moc"
