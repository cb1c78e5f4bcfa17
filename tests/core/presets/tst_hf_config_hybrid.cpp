// Hybrid and sparse-attention models of 2026 (Qwen3.5, Nemotron-H / Nemotron 3, DeepSeek-V3.2, GLM-5): the layer
// layout read from the config, exact parameter counts, and forward FLOP per token derived by hand layer type by
// layer type. The inline configs carry the real models' keys as published; the real files in ../shared/models are
// checked against the model cards' totals in tst_hf_config_shared.
#include "core/errors.h"
#include "core/model/flops.h"
#include "core/model/param_count.h"
#include "core/model/token_mixers.h"
#include "core/presets/hf_config.h"
#include <QtTest>

#include <cmath>

using namespace mfu;

namespace {

std::string layerTypes(int layers, int fullEvery)
{
    std::string out = "[";
    for (int i = 0; i < layers; ++i)
        out += std::string(i ? "," : "") + ((i + 1) % fullEvery == 0 ? "\"full_attention\"" : "\"linear_attention\"");
    return out + "]";
}

// Qwen/Qwen3.5-27B's config.json: the keys the importer reads, as published.
std::string qwen35_27BConfig()
{
    return R"({"architectures":["Qwen3_5ForConditionalGeneration"],"model_type":"qwen3_5","tie_word_embeddings":false,
      "text_config":{"attention_bias":false,"attn_output_gate":true,"head_dim":256,"hidden_act":"silu",
      "hidden_size":5120,"intermediate_size":17408,"layer_types":)"
        + layerTypes(64, 4) + R"(,"linear_conv_kernel_dim":4,"linear_key_head_dim":128,"linear_num_key_heads":16,
      "linear_num_value_heads":48,"linear_value_head_dim":128,"mlp_only_layers":[],"model_type":"qwen3_5_text",
      "mtp_num_hidden_layers":1,"num_attention_heads":24,"num_hidden_layers":64,"num_key_value_heads":4,
      "vocab_size":248320},"vision_config":{"depth":27}})";
}

// Qwen/Qwen3-Next-80B-A3B-Instruct's config.json: no layer_types, full_attention_interval instead.
const char* kQwen3Next80B = R"({"architectures":["Qwen3NextForCausalLM"],"attention_bias":false,
  "decoder_sparse_step":1,"full_attention_interval":4,"head_dim":256,"hidden_act":"silu","hidden_size":2048,
  "intermediate_size":5120,"linear_conv_kernel_dim":4,"linear_key_head_dim":128,"linear_num_key_heads":16,
  "linear_num_value_heads":32,"linear_value_head_dim":128,"mlp_only_layers":[],"model_type":"qwen3_next",
  "moe_intermediate_size":512,"norm_topk_prob":true,"num_attention_heads":16,"num_experts":512,
  "num_experts_per_tok":10,"num_hidden_layers":48,"num_key_value_heads":2,"partial_rotary_factor":0.25,
  "shared_expert_intermediate_size":512,"tie_word_embeddings":false,"vocab_size":151936})";

// nvidia/Nemotron-H-56B-Base-8K's config.json (its time_step_limit really is written [0.0, Infinity]).
const char* kNemotronH56B = R"({"architectures":["NemotronHForCausalLM"],"attention_bias":false,
  "attention_head_dim":128,"chunk_size":128,"conv_kernel":4,"expand":2,"hidden_size":8192,
  "hybrid_override_pattern":"M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-",
  "intermediate_size":32768,"mamba_head_dim":64,"mamba_num_heads":256,"mlp_bias":false,"mlp_hidden_act":"relu2",
  "model_type":"nemotron_h","n_groups":8,"num_attention_heads":64,"num_hidden_layers":118,"num_key_value_heads":8,
  "ssm_state_size":256,"tie_word_embeddings":false,"time_step_limit":[0.0, Infinity],"use_bias":false,
  "use_conv_bias":true,"vocab_size":131072})";

// deepseek-ai/DeepSeek-V3.2's config.json.
const char* kDeepSeekV32 = R"({"architectures":["DeepseekV32ForCausalLM"],"first_k_dense_replace":3,
  "hidden_act":"silu","hidden_size":7168,"index_head_dim":128,"index_n_heads":64,"index_topk":2048,
  "intermediate_size":18432,"kv_lora_rank":512,"model_type":"deepseek_v32","moe_intermediate_size":2048,
  "n_routed_experts":256,"n_shared_experts":1,"num_attention_heads":128,"num_experts_per_tok":8,
  "num_hidden_layers":61,"num_key_value_heads":128,"num_nextn_predict_layers":1,"q_lora_rank":1536,
  "qk_nope_head_dim":128,"qk_rope_head_dim":64,"tie_word_embeddings":false,"topk_method":"noaux_tc",
  "v_head_dim":128,"vocab_size":129280})";

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

} // namespace

class TestHfConfigHybrid : public QObject {
    Q_OBJECT
private slots:
    void qwen35_27B()
    {
        const ModelSpec m = read(qwen35_27BConfig());
        QCOMPARE(m.layers, 64);
        QCOMPARE(attentionLayerCount(m), 16);
        // 16 gated-attention layers: q_proj 5120 x (24 x 256 x 2) with the output gate, k/v 5120 x 1024 each,
        // o_proj 6144 x 5120, q_norm and k_norm 256 each.
        const int64_t attention = 5120LL * 12288 + 2 * 5120LL * 1024 + 6144LL * 5120 + 512; // 104,858,112
        const int64_t linear = 115'876'064; // one Gated DeltaNet layer (tst_token_mixers)
        const int64_t mlp = 3 * 5120LL * 17408; // 267,386,880
        const int64_t embedding = 248320LL * 5120;
        const int64_t expected = 16 * attention + 48 * linear + 64 * (mlp + 2 * 5120) + 5120 + 2 * embedding;
        QCOMPARE(countParameters(m).total, expected);
        QCOMPARE(countParameters(m).total, int64_t(26'895'998'464)); // the card's "27B"

        // Forward FLOP per token at S = 4,096, by layer type.
        const ForwardComponents f = forwardComponents(m, 4096);
        const double fullLayer = 2.0 * 5120 * (12288 + 2048) + 2.0 * 6144 * 5120 + 2.0 * 4096 * 24 * 512;
        const double linearLayer = 237'174'784.0; // tst_token_mixers
        const double mlpLayer = 2.0 * 3 * 5120 * 17408;
        const double lmHead = 2.0 * 5120 * 248320;
        QCOMPARE(f.total(), 16 * fullLayer + 48 * linearLayer + 64 * mlpLayer + lmHead);
        QCOMPARE(f.total(), 53'118'763'008.0);
        QCOMPARE(f.attentionCore(), 16 * 2.0 * 4096 * 24 * 512); // only the 16 full-attention layers grow with S
        QCOMPARE(f.mixerCore, 48 * 7.0 * 48 * 128 * 128);

        // PaLM as published charges all 64 layers; the note says it over-counts.
        const FlopsPerToken t = countFlopsPerToken(m, 4096);
        const ParameterCounts p = countParameters(m);
        QCOMPARE(*t.palm, 6.0 * double(p.activeNonEmbedding) + 12.0 * 64 * 24 * 256 * 4096);
        bool noted = false;
        for (const std::string& n : m.notes)
            noted = noted || n.find("only 16 of 64 layers") != std::string::npos;
        QVERIFY(noted);
    }

    void qwen3Next80B()
    {
        const ModelSpec m = read(kQwen3Next80B);
        QCOMPARE(m.layers, 48);
        QCOMPARE(attentionLayerCount(m), 12); // every fourth layer, as full_attention_interval says
        std::vector<TokenMixer> mixers;
        forEachLayerRun(m, [&mixers](const LayerRun& run) {
            for (int i = 0; i < run.count; ++i)
                mixers.push_back(run.kind.tokenMixer);
        });
        QCOMPARE(mixers.size(), size_t(48));
        for (size_t i = 0; i < mixers.size(); ++i)
            QCOMPARE(mixers[i], (i + 1) % 4 == 0 ? TokenMixer::FullAttention : TokenMixer::LinearAttention);
        QCOMPARE(m.moe.experts, 512);
        QCOMPARE(m.moe.expertsPerToken, 10);
        QCOMPARE(m.moe.sharedExperts, 1);
        // 12 gated-attention layers: q_proj 2048 x (16 x 256 x 2), k/v 2048 x 512 each, o_proj 4096 x 2048, q/k norms.
        const int64_t attention = 2048LL * 8192 + 2 * 2048LL * 512 + 4096LL * 2048 + 512;
        const int64_t linear = gatedDeltaNetParams(m.linearAttention, 2048);
        // 512 experts and one shared expert of width 512, the router and the shared expert's gate.
        const int64_t moe = 513 * 3 * 2048LL * 512 + 2048LL * 512 + 2048;
        const int64_t expected = 12 * attention + 36 * linear + 48 * (moe + 2 * 2048) + 2048 + 2 * 151936LL * 2048;
        QCOMPARE(countParameters(m).total, expected);
        QVERIFY(std::abs(double(countParameters(m).total) / 80e9 - 1.0) < 0.01); // the card's "80B in total"

        std::string step = kQwen3Next80B;
        step.replace(step.find("\"decoder_sparse_step\":1"), 23, "\"decoder_sparse_step\":2");
        QVERIFY(errorOf(step).contains("decoder_sparse_step"));
        std::string noLayout = kQwen3Next80B;
        noLayout.replace(noLayout.find("\"full_attention_interval\":4,"), 28, "");
        QVERIFY(errorOf(noLayout).contains("full_attention_interval"));
    }

    void nemotronH56B()
    {
        const ModelSpec m = read(kNemotronH56B); // parses although the file has the non-JSON word Infinity
        QCOMPARE(m.layers, 118);
        QCOMPARE(m.mamba.chunkSize, int64_t(128)); // chunk_size: the SSD kernels' chunk
        std::string noChunk = kNemotronH56B;
        noChunk.replace(noChunk.find("\"chunk_size\":128,"), 17, "");
        QCOMPARE(read(noChunk).mamba.chunkSize, int64_t(256)); // mamba_ssm's Mamba2 default
        QCOMPARE(attentionLayerCount(m), 10);
        const ParameterCounts p = countParameters(m);
        // 54 Mamba-2 blocks, 10 attention blocks, 54 squared-ReLU MLP blocks, one RMSNorm each, final norm.
        const int64_t mamba = 438'424'320; // tst_token_mixers
        const int64_t attention = 8192LL * 8192 + 2 * 8192LL * 1024 + 8192LL * 8192;
        const int64_t mlp = 2 * 8192LL * 32768;
        const int64_t expected = 54 * mamba + 10 * attention + 54 * mlp + 118 * 8192 + 8192 + 2 * 131072LL * 8192;
        QCOMPARE(p.total, expected);
        QCOMPARE(p.total, int64_t(56'324'350'464)); // the card's "56B"

        const ForwardComponents f = forwardComponents(m, 4096);
        const double mambaLayer = 2.0 * 8192 * 37120 + 7.0 * 16384 * 256 + 2.0 * 16384 * 8192;
        const double attentionLayer = 2.0 * 8192 * 10240 + 2.0 * 8192 * 8192 + 2.0 * 4096 * 64 * 256;
        const double mlpLayer = 2.0 * 2 * 8192 * 32768;
        QCOMPARE(f.total(), 54 * mambaLayer + 10 * attentionLayer + 54 * mlpLayer + 2.0 * 8192 * 131072);
        QCOMPARE(f.total(), 113'413'980'160.0);
        // Doubling S doubles only the 10 attention layers' core.
        QCOMPARE(forwardComponents(m, 8192).total() - f.total(), 10 * 2.0 * 4096 * 64 * 256);
    }

    void deepSeekV32()
    {
        const ModelSpec m = read(kDeepSeekV32);
        QCOMPARE(attentionLayerCount(m), 61);
        // DeepSeek-V3's 671,026,419,200 parameters plus 61 indexers of 13,959,424.
        QCOMPARE(countParameters(m).total, int64_t(671'026'419'200LL + 61LL * 13'959'424));

        // At S = 4,096 the attention runs over the indexer's 2,048 keys; the indexer scores all 4,096.
        const ForwardComponents f = forwardComponents(m, 4096);
        QCOMPARE(f.attentionScores, 61 * 2.0 * 2048 * 128 * 192);
        QCOMPARE(f.attentionValues, 61 * 2.0 * 2048 * 128 * 128);
        QCOMPARE(f.mixerCore, 61 * 2.0 * 64 * 129 * 4096);
        QCOMPARE(f.mixerCoreCausal, 61 * 2.0 * 64 * 129 * 2048);
        // Under the causal mask a query at position t < 2,048 sees t keys: 2,048 - 2,048^2 / (2 x 4,096) = 1,536.
        QCOMPARE(f.attentionCoreCausal, 61 * 2.0 * 1536 * 128 * (192 + 128));
        // Below top-k the attention is dense: S = 1,024 attends to 1,024 keys.
        QCOMPARE(forwardComponents(m, 1024).attentionScores, 61 * 2.0 * 1024 * 128 * 192);
    }

    void unreadableLayoutsAreRefusedByKey()
    {
        std::string bad = qwen35_27BConfig();
        bad.replace(bad.find("\"full_attention\""), 16, "\"mystery_mixer\"");
        QVERIFY(errorOf(bad).contains("text_config.layer_types"));
        QVERIFY(errorOf(bad).contains("mystery_mixer"));

        std::string nemotron = kNemotronH56B;
        nemotron.replace(nemotron.find("M-M-M-M*"), 1, "X");
        QVERIFY(errorOf(nemotron).contains("hybrid_override_pattern"));

        std::string noIndexer = kDeepSeekV32;
        noIndexer.replace(noIndexer.find("\"index_n_heads\":64,"), 19, "");
        QVERIFY(errorOf(noIndexer).contains("index_n_heads"));
        QVERIFY(errorOf(noIndexer).contains("/models/test/config.json"));
    }
};

QTEST_GUILESS_MAIN(TestHfConfigHybrid)
#include "tst_hf_config_hybrid.moc"
