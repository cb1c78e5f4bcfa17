// The 2026 flagships whose layers need new token mixers: Kimi K3 (Kimi Delta Attention between gated MLA layers,
// latent MoE), DeepSeek-V4 (compressed sparse and heavily compressed attention, one shared key-value head,
// hyper-connections) and MiniMax-M3 (block-sparse attention). Each inline config carries the real model's keys as
// published (the real files in ../shared/models are checked in tst_hf_config_shared); the layout read from it, the
// exact parameter count derived by hand term by term, and forward FLOP per token by layer type.
#include <QtTest>

#include "core/errors.h"
#include "core/model/flops.h"
#include "core/model/param_count.h"
#include "core/model/token_mixers.h"
#include "core/presets/hf_config.h"

using namespace mfu;

namespace {

std::string list(const std::vector<int>& values)
{
    std::string out = "[";
    for (size_t i = 0; i < values.size(); ++i)
        out += (i ? "," : "") + std::to_string(values[i]);
    return out + "]";
}

// moonshotai/Kimi-K3's config.json: its text_config's architecture keys. Layers are numbered from 1: every fourth
// layer and the last attend fully (MLA), the others are Kimi Delta Attention.
std::string kimiK3Config(const std::string& change = {})
{
    std::vector<int> kda, full;
    for (int n = 1; n <= 93; ++n)
        (n % 4 == 0 || n == 93 ? full : kda).push_back(n);
    return R"({"architectures":["KimiK3ForConditionalGeneration"],"model_type":"kimi_k3","tie_word_embeddings":false,
      "text_config":{"activation_situ_beta":4.0,"attn_res_block_size":12,"first_k_dense_replace":1,
      "hidden_act":"situ","hidden_size":7168,"intermediate_size":33792,"kv_lora_rank":512,
      "latent_moe_use_norm":true,"linear_attn_config":{"full_attn_layers":)"
        + list(full) + R"(,"gate_lower_bound":-5.0,"head_dim":128,"kda_layers":)" + list(kda)
        + R"(,"num_heads":96,"short_conv_kernel_size":4,"use_full_rank_gate":true},"mla_use_nope":true,
      "mla_use_output_gate":true,"model_type":"kimi_linear","moe_intermediate_size":3072,"moe_layer_freq":1,
      "num_attention_heads":96,"num_experts":896,"num_experts_per_token":16,"num_hidden_layers":93,
      "num_key_value_heads":96,"num_nextn_predict_layers":0,"num_shared_experts":2,"q_lora_rank":1536,
      "qk_nope_head_dim":128,"qk_rope_head_dim":64,"routed_expert_hidden_size":3584,"topk_method":"noaux_tc",
      "v_head_dim":128,"vocab_size":163840)"
        + change + R"(}})";
}

// deepseek-ai/DeepSeek-V4-Flash's config.json: 43 layers (2 sliding-window, then CSA and HCA alternating), the
// 44th compress_ratios entry being the multi-token-prediction layer's.
std::string deepSeekV4FlashConfig(const std::string& change = {})
{
    std::vector<int> ratios { 0, 0 };
    for (int i = 2; i < 43; ++i)
        ratios.push_back(i % 2 == 0 ? 4 : 128);
    ratios.push_back(0);
    return R"({"architectures":["DeepseekV4ForCausalLM"],"attention_bias":false,"hc_mult":4,"head_dim":512,
      "hidden_act":"silu","hidden_size":4096,"index_head_dim":128,"index_n_heads":64,"index_topk":512,
      "model_type":"deepseek_v4","moe_intermediate_size":2048,"n_routed_experts":256,"n_shared_experts":1,
      "num_attention_heads":64,"num_experts_per_tok":6,"num_hidden_layers":43,"num_hash_layers":3,
      "num_key_value_heads":1,"num_nextn_predict_layers":1,"o_groups":8,"o_lora_rank":1024,"q_lora_rank":1024,
      "qk_rope_head_dim":64,"sliding_window":128,"tie_word_embeddings":false,"topk_method":"noaux_tc",
      "vocab_size":129280,"compress_ratios":)"
        + list(ratios) + change + "}";
}

// MiniMaxAI/MiniMax-M3's config.json: 3 dense full-attention layers, then 57 MoE layers with block-sparse attention.
std::string miniMaxM3Config(const std::string& change = {})
{
    std::vector<int> perLayer(60, 1);
    perLayer[0] = perLayer[1] = perLayer[2] = 0;
    return R"({"architectures":["MiniMaxM3ForCausalLM"],"attention_output_gate":false,"dense_intermediate_size":12288,
      "first_k_dense_replace":3,"head_dim":128,"hidden_act":"swigluoai","hidden_size":6144,"intermediate_size":3072,
      "model_type":"minimax_m3","moe_intermediate_size":3072,"moe_layer_freq":)"
        + list(perLayer) + R"(,"n_shared_experts":1,"num_attention_heads":64,"num_experts_per_tok":4,
      "num_hidden_layers":60,"num_key_value_heads":4,"num_local_experts":128,"num_mtp_modules":7,
      "qk_norm_type":"per_head","shared_intermediate_size":3072,"sparse_attention_config":{"sparse_attention_freq":)"
        + list(perLayer) + R"(,"sparse_block_size":128,"sparse_disable_index_value":)" + list(perLayer)
        + R"(,"sparse_index_dim":128,"sparse_init_block":0,"sparse_local_block":1,"sparse_num_index_heads":4,
      "sparse_score_type":"max","sparse_topk_blocks":16,"use_sparse_attention":true},"tie_word_embeddings":false,
      "use_qk_norm":true,"use_routing_bias":true,"vocab_size":200064)"
        + change + "}";
}

ModelSpec read(const std::string& json)
{
    return modelFromHfConfigText(json, "/models/test/config.json");
}

QString errorOf(const std::string& json)
{
    try {
        read(json);
    } catch (const InputError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

int layersOf(const ModelSpec& m, TokenMixer mixer)
{
    int n = 0;
    for (const LayerRun& run : layerRuns(m))
        n += run.kind.tokenMixer == mixer ? run.count : 0;
    return n;
}

} // namespace

class TestHfConfigFlagships : public QObject {
    Q_OBJECT
private slots:
    void kimiK3()
    {
        const ModelSpec m = read(kimiK3Config());
        QCOMPARE(m.layers, 93);
        QCOMPARE(layersOf(m, TokenMixer::KimiDeltaAttention), 69);
        QCOMPARE(layersOf(m, TokenMixer::FullAttention), 24);
        QCOMPARE(moeLayerCount(m), 92); // first_k_dense_replace 1: layer 0 is a dense MLP of 33,792
        QCOMPARE(
            m.layerPattern.front(), (LayerRun { 1, { TokenMixer::KimiDeltaAttention, ChannelMixer::DenseMlp, 0 } }));
        QCOMPARE(m.kimiDeltaAttention, (KimiDeltaAttentionSpec { 96, 128, 4, true }));
        QVERIFY(m.attentionOutputGate);
        QCOMPARE(m.moe.latentDim, int64_t(3584));
        QVERIFY(m.moe.latentNorm);

        // By hand. MLA layer: q_a 7168 x 1536 (+ norm 1536), q_b 1536 x 96 x 192, kv_a 7168 x 576 (+ norm 512),
        // kv_b 512 x 96 x 256, o 12,288 x 7168, output gate 7168 x 12,288 = 232,196,096. KDA layer 443,740,384
        // (tst_token_mixers). Dense MLP 3 x 7168 x 33,792 = 726,663,168. MoE layer: 896 experts of 3 x 3584 x 3072 =
        // 33,030,144 at the latent width, 2 shared experts of 3 x 7168 x 3072, router 7168 x 896 + 896 bias, latent
        // projections 2 x 7168 x 3584 + norm 3584 = 29,784,936,832. Embedding and LM head 163,840 x 7168 each.
        const int64_t moeLayer
            = 896LL * 33'030'144 + 2 * 3LL * 7168 * 3072 + 7168LL * 896 + 896 + 2LL * 7168 * 3584 + 3584;
        QCOMPARE(moeLayer, int64_t(29'784'936'832));
        const int64_t total = 2 * 163'840LL * 7168 + 24 * 232'196'096LL + 69 * 443'740'384LL + 726'663'168LL
            + 92 * moeLayer + 93 * 2 * 7168LL + 7168;
        const ParameterCounts p = countParameters(m);
        QCOMPARE(p.total, total);
        QCOMPARE(p.total, int64_t(2'779'481'795'168));
        // Active: 16 of the 896 experts.
        QCOMPARE(p.active, total - 92 * (880LL * 33'030'144));
        QCOMPARE(p.active, int64_t(105'361'336'928));

        // Forward FLOP at S = 8,192: only the 24 MLA layers attend, each over S keys.
        const ForwardComponents f = forwardComponents(m, 8192);
        QCOMPARE(f.attentionScores, 24 * 2.0 * 8192 * 96 * 192);
        QCOMPARE(f.mixerCore, 69 * 7.0 * 96 * 128 * 128);
        bool noted = false;
        for (const std::string& n : m.notes)
            noted = noted || n.find("Attention Residuals") != std::string::npos;
        QVERIFY(noted);
    }

    void deepSeekV4Flash()
    {
        const ModelSpec m = read(deepSeekV4FlashConfig());
        QCOMPARE(layersOf(m, TokenMixer::SlidingWindowAttention), 2);
        QCOMPARE(layersOf(m, TokenMixer::CompressedSparseAttention), 21);
        QCOMPARE(layersOf(m, TokenMixer::HeavilyCompressedAttention), 20);
        QCOMPARE(m.compressedAttention, (CompressedAttentionSpec { 1024, 1024, 8, 4, 128 }));
        QCOMPARE(m.hyperConnections, 4);
        QCOMPARE(moeLayerCount(m), 43);

        // By hand: attention projections 106,956,352 per layer, CSA adds 19,142,272 and HCA 4,260,352
        // (tst_token_mixers); MoE layer 257 experts of 3 x 4096 x 2048 = 25,165,824 with router 4096 x 256 + 256
        // bias = 6,468,665,600; hyper-connections 43 x 2 x (4 x 4096 x 24 + 27) + (4 x 4096 x 4 + 5) = 33,884,439.
        const int64_t total = 2 * 129'280LL * 4096 + 43 * 106'956'352LL + 21 * 19'142'272LL + 20 * 4'260'352LL
            + 43 * 6'468'665'600LL + 43 * 2 * 4096LL + 4096 + 33'884'439LL;
        const ParameterCounts p = countParameters(m);
        QCOMPARE(p.total, total);
        QCOMPARE(p.total, int64_t(284'332'241'239)); // card: 284B
        QCOMPARE(p.activeNonEmbedding, total - 43 * 250LL * 25'165'824 - 129'280LL * 4096); // card: 13B
        QCOMPARE(p.activeNonEmbedding, int64_t(13'270'102'359));

        // Forward FLOP at S = 65,536: every layer attends to its 128-token window; CSA and HCA layers to 512
        // compressed keys more (top-k of S/4; all S/128). Heads 64, key and value size 512.
        const double S = 65536;
        const ForwardComponents f = forwardComponents(m, int64_t(S));
        const double keys = 2 * 128.0 + 41 * 640.0;
        QCOMPARE(f.attentionScores, 2.0 * 64 * 512 * keys);
        QCOMPARE(f.attentionValues, f.attentionScores);
        QCOMPARE(f.mixerCore, 21 * 2.0 * 64 * 129 * (S / 4)); // the indexer scores every compressed key
        QCOMPARE(f.mixerCoreCausal, f.mixerCore / 2);
        const double hyper = 2.0 * 4 * 4096 * 24; // per sublayer
        QCOMPARE(f.qkvProjection, 43 * (79'691'776.0 + hyper) + 21 * 38'273'024.0 + 20 * (2.0 * 2 * 4096 * 512));
        QCOMPARE(f.outputProjection, 43 * 134'217'728.0);
        QCOMPARE(f.ffn, 43 * (2.0 * 3 * 4096 * 7 * 2048 + hyper));
        QCOMPARE(f.lmHead, 2.0 * 4096 * 129'280 + 2.0 * 4 * 4096 * 4);
    }

    void miniMaxM3()
    {
        const ModelSpec m = read(miniMaxM3Config());
        QCOMPARE(layersOf(m, TokenMixer::FullAttention), 3);
        QCOMPARE(layersOf(m, TokenMixer::SparseAttention), 57);
        QCOMPARE(moeLayerCount(m), 57);
        QCOMPARE(m.sparseIndexer.attendedKeys(), int64_t((16 + 1) * 128));

        // By hand: attention 6144 x 8192 + 2 x 6144 x 512 + 8192 x 6144 + q/k norms 2 x 128 = 106,955,008; indexer
        // 6144 x 4 x 128 + 6144 x 128 = 3,932,160; dense MLP 3 x 6144 x 12,288; MoE layer 129 experts of
        // 3 x 6144 x 3072 = 56,623,104 with router 6144 x 128 + 128 bias = 7,305,166,976.
        const int64_t total = 2 * 200'064LL * 6144 + 60 * 106'955'008LL + 57 * 3'932'160LL + 3 * 3LL * 6144 * 12'288
            + 57 * 7'305'166'976LL + 60 * 2 * 6144LL + 6144;
        const ParameterCounts p = countParameters(m);
        QCOMPARE(p.total, total);
        QCOMPARE(p.total, int64_t(426'174'558'336));
        QCOMPARE(p.active, total - 57 * 124LL * 56'623'104);

        // At S = 8,192 the sparse layers attend to 2,176 keys; the full ones to all 8,192.
        const ForwardComponents f = forwardComponents(m, 8192);
        QCOMPARE(f.attentionScores, 2.0 * 64 * 128 * (3 * 8192.0 + 57 * 2176.0));
        QCOMPARE(f.mixerCore, 57 * 2.0 * 4 * 128 * 8192); // 4 index heads score every key, no head weights
    }

    void unreadableLayoutsAreRefusedByKey()
    {
        // A layer in neither list of linear_attn_config.
        std::string k3 = kimiK3Config();
        k3.replace(k3.find("[1,2,3,"), 7, "[2,3,");
        QVERIFY2(errorOf(k3).contains("text_config.linear_attn_config.kda_layers"), qPrintable(errorOf(k3)));
        QVERIFY(errorOf(k3).contains("layer 1 is in neither"));
        std::string noLinear = kimiK3Config();
        noLinear.replace(noLinear.find("\"linear_attn_config\""), 20, "\"linear_attn_config_x\"");
        QVERIFY(errorOf(noLinear).contains("text_config.linear_attn_config': missing"));

        std::string v4 = deepSeekV4FlashConfig();
        v4.replace(v4.find("\"num_key_value_heads\":1"), 23, "\"num_key_value_heads\":8");
        QVERIFY(errorOf(v4).contains("num_key_value_heads"));
        std::string ratios = deepSeekV4FlashConfig();
        ratios.replace(ratios.find("[0,0,4,"), 7, "[0,4,");
        QVERIFY(errorOf(ratios).contains("compress_ratios"));
        QVERIFY(errorOf(ratios).contains("/models/test/config.json"));
        std::string twoHeavy = deepSeekV4FlashConfig();
        twoHeavy.replace(twoHeavy.find("[0,0,4,128,"), 11, "[0,0,4,64,");
        QVERIFY(errorOf(twoHeavy).contains("two heavily compressed ratios"));

        std::string m3 = miniMaxM3Config();
        const size_t values = m3.find("\"sparse_disable_index_value\":[0,0,0,1");
        m3.replace(values + std::string("\"sparse_disable_index_value\":[0,0,0,").size(), 1, "0");
        QVERIFY2(errorOf(m3).contains("sparse_attention_config.sparse_disable_index_value"), qPrintable(errorOf(m3)));
        std::string noSparse = miniMaxM3Config();
        noSparse.replace(noSparse.find("\"sparse_attention_config\""), 25, "\"sparse_config\"");
        QVERIFY(errorOf(noSparse).contains("'sparse_attention_config': missing"));
    }
};

QTEST_GUILESS_MAIN(TestHfConfigFlagships)
#include "tst_hf_config_flagships.moc"
