// Models whose layers differ in shape (Gemma 4's global layers, MiMo-V2-Flash's sliding-window layers, the pruned
// layers of Llama-Nemotron NAS): the per-layer layout read from the config, exact parameter counts and forward FLOP
// per token derived by hand layer by layer, the cost model's attention weighting, the scenario file's round trip,
// and the keys each reader refuses. The real files in ../shared/models are checked against the model cards' totals in
// tst_hf_config_shared; the NAS model's real layers are derived here too.
#include <QtTest>

#include <fstream>
#include <sstream>

#include "core/costmodel/cost_model.h"
#include "core/errors.h"
#include "core/model/flops.h"
#include "core/model/param_count.h"
#include "core/presets/hf_config.h"
#include "core/scenario/scenario_file.h"

using namespace mfu;

namespace {

// A Nemotron NAS model of four layers, one of each kind the modeling file builds: GQA attention (2 heads per key/value
// group) with a 2.625x MLP, no attention with a 1.0x MLP, a linear map in place of attention and no MLP, attention with
// one key/value head and a linear map in place of the MLP.
const char* kNas = R"({"architectures":["DeciLMForCausalLM"],"model_type":"nemotron-nas","hidden_size":1024,
  "num_attention_heads":8,"num_hidden_layers":4,"num_key_value_heads":null,"intermediate_size":null,
  "vocab_size":1000,"hidden_act":"silu","attention_bias":false,"mlp_bias":false,"tie_word_embeddings":false,
  "block_configs":[
    {"attention":{"n_heads_in_group":2,"no_op":false,"replace_with_linear":false,"window_length":null,
      "num_sink_tokens":null,"sparsify":null,"unshifted_sink":false,"use_prefill_window_in_sink_attention":false},
     "ffn":{"ffn_mult":2.625,"no_op":false,"replace_with_linear":false,"sparsify":null}},
    {"attention":{"n_heads_in_group":null,"no_op":true,"replace_with_linear":false},
     "ffn":{"ffn_mult":1.0,"no_op":false,"replace_with_linear":false}},
    {"attention":{"n_heads_in_group":null,"no_op":false,"replace_with_linear":true},
     "ffn":{"ffn_mult":null,"no_op":true,"replace_with_linear":false}},
    {"attention":{"n_heads_in_group":8,"no_op":false,"replace_with_linear":false},
     "ffn":{"ffn_mult":null,"no_op":false,"replace_with_linear":true}}]})";

// A Gemma 4 MoE model of three layers with the 26B-A4B's keys: two sliding-window layers and one global layer with
// twice the head dimension, one key/value head and values equal to its keys.
const char* kGemma4 = R"({"architectures":["Gemma4ForConditionalGeneration"],"model_type":"gemma4",
  "tie_word_embeddings":true,"text_config":{"attention_bias":false,"attention_k_eq_v":true,"enable_moe_block":true,
  "global_head_dim":64,"head_dim":32,"hidden_activation":"gelu_pytorch_tanh","hidden_size":256,
  "hidden_size_per_layer_input":0,"intermediate_size":512,
  "layer_types":["sliding_attention","sliding_attention","full_attention"],"model_type":"gemma4_text",
  "moe_intermediate_size":128,"num_attention_heads":4,"num_experts":4,"num_global_key_value_heads":1,
  "num_hidden_layers":3,"num_key_value_heads":2,"num_kv_shared_layers":0,"sliding_window":64,
  "top_k_experts":2,"use_double_wide_mlp":false,"vocab_size":1000}})";

// A MiMo-V2-Flash model of three layers with the release's keys: full attention with a dense MLP, then two
// sliding-window MoE layers with more key/value heads and attention sinks.
const char* kMiMoV2 = R"({"architectures":["MiMoV2FlashForCausalLM"],"model_type":"mimo_v2_flash",
  "num_hidden_layers":3,"hidden_size":256,"num_attention_heads":4,"num_key_value_heads":1,"head_dim":48,
  "v_head_dim":32,"intermediate_size":512,"vocab_size":1000,"sliding_window":16,"sliding_window_size":16,
  "attention_chunk_size":16,"swa_num_attention_heads":4,"swa_num_key_value_heads":2,"swa_head_dim":48,
  "swa_v_head_dim":32,"hybrid_layer_pattern":[0,1,1],"moe_layer_freq":[0,1,1],"moe_intermediate_size":64,
  "n_routed_experts":8,"n_shared_experts":null,"num_experts_per_tok":2,"topk_method":"noaux_tc",
  "hidden_act":"silu","attention_bias":false,"add_swa_attention_sink_bias":true,
  "add_full_attention_sink_bias":false,"tie_word_embeddings":false})";

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

std::string replaced(std::string text, const std::string& from, const std::string& to)
{
    const auto at = text.find(from);
    if (at == std::string::npos)
        throw std::logic_error("test text not found: " + from);
    return text.replace(at, from.size(), to);
}

std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace

class TestHfConfigLayerShapes : public QObject {
    Q_OBJECT
private slots:
    void nemotronNasLayers()
    {
        const ModelSpec m = read(kNas);
        QCOMPARE(m.headDim, 128);
        const std::vector<LayerRun> runs = layerRuns(m);
        QCOMPARE(int(runs.size()), 4);
        const auto width = [&m](const LayerKind& k) { return k.ffnDim > 0 ? k.ffnDim : m.ffnDim; };
        QCOMPARE(runs[0].kind.tokenMixer, TokenMixer::FullAttention);
        QCOMPARE(m.attentionOf(runs[0].kind).kvHeads, 4); // 8 heads / 2 per group
        QCOMPARE(width(runs[0].kind), 1792); // 2.625: 2 x 2.625 x 1024 / 3 = 1792, a multiple of 256
        QCOMPARE(runs[1].kind.tokenMixer, TokenMixer::None);
        QCOMPARE(width(runs[1].kind), 768); // 1.0: int(682.7) = 682, up to 768
        QCOMPARE(runs[2].kind.tokenMixer, TokenMixer::LinearProjection);
        QCOMPARE(runs[2].kind.channelMixer, ChannelMixer::None);
        QCOMPARE(m.attentionOf(runs[3].kind).kvHeads, 1);
        QCOMPARE(runs[3].kind.channelMixer, ChannelMixer::LinearProjection);
        QCOMPARE(m.normsOf(runs[1].kind), 1); // no input_layernorm without attention
        QCOMPARE(m.normsOf(runs[2].kind), 1); // no post_attention_layernorm without an MLP

        // Parameters, layer by layer (h = 1024, head_dim 128):
        //   layer 0: q 1024^2, k and v 1024 x 512 each, o 1024^2 = 3,145,728; MLP 3 x 1024 x 1792 = 5,505,024
        //   layer 1: MLP 3 x 1024 x 768 = 2,359,296
        //   layer 2: linear 1024^2 = 1,048,576
        //   layer 3: q and o 1024^2 each, k and v 1024 x 128 each = 2,359,296; linear 1,048,576
        //   norms: 2 + 1 + 1 + 2 per layer and the final one, 7 x 1024; embedding and LM head 1000 x 1024 each
        const ParameterCounts c = countParameters(m);
        QCOMPARE(c.attention, int64_t(3'145'728 + 1'048'576 + 2'359'296));
        QCOMPARE(c.ffn, int64_t(5'505'024 + 2'359'296 + 1'048'576));
        QCOMPARE(c.norms, int64_t(7 * 1024));
        QCOMPARE(c.total, int64_t(17'521'664));

        // Forward FLOP per token at S = 2048, full square:
        //   Q/K/V: layer 0 2 x 1024 x (1024 + 4 x 256) = 4,194,304; layer 3 2 x 1024 x (1024 + 256) = 2,621,440
        //   output: layers 0 and 3 2 x 1024^2 each, and layer 2's linear map 2 x 1024^2
        //   attention core (layers 0 and 3): 2 x 2048 x 8 x 128 each for scores and for values
        //   MLP: 6 x 1024 x 1792 + 6 x 1024 x 768 + layer 3's linear map 2 x 1024^2
        const ForwardComponents f = forwardComponents(m, 2048);
        QCOMPARE(f.qkvProjection, 4'194'304.0 + 2'621'440.0);
        QCOMPARE(f.outputProjection, 3 * 2'097'152.0);
        QCOMPARE(f.attentionScores, 2 * 4'194'304.0);
        QCOMPARE(f.attentionValues, 2 * 4'194'304.0);
        QCOMPARE(f.ffn, 11'010'048.0 + 4'718'592.0 + 2'097'152.0);
        QCOMPARE(f.lmHead, 2'048'000.0);
        QCOMPARE(countFlopsPerToken(m, 2048).perComponent.value(), 3 * 49'758'208.0);
    }

    void nemotronSuperRealLayers()
    {
        const std::string path = MFU_SOURCE_DIR "/../shared/models/nvidia--Llama-3_3-Nemotron-Super-49B-v1.config.json";
        if (!QFile::exists(QString::fromStdString(path)))
            QSKIP("../shared/models/ (real Hugging Face configs) is not present next to the source tree");
        const ModelSpec m = modelFromHfConfigText(readFile(path), path);
        // 49 of 80 layers attend (GQA, 8 key/value heads); the MLP widths from ffn_mult: 5.25 -> 28672 (49 layers),
        // 2.625 -> 14336 (6), 1.3125 -> 7168 (10), 1.0 -> 5461 up to 5632 (8), 0.5 -> 2730 up to 2816 (6),
        // 3.28125 -> 17920 (1): 1,642,496 in all.
        QCOMPARE(attentionLayerCount(m), 49);
        int64_t widths = 0;
        for (const LayerRun& run : layerRuns(m))
            widths += run.count * (run.kind.ffnDim > 0 ? run.kind.ffnDim : m.ffnDim);
        QCOMPARE(widths, int64_t(1'642'496));
        const ParameterCounts c = countParameters(m);
        QCOMPARE(c.attention, int64_t(49) * (2 * 8192LL * 8192 + 2 * 8192LL * 1024)); // 7,398,752,256
        QCOMPARE(c.ffn, int64_t(3) * 8192 * 1'642'496); // 40,365,981,696
        QCOMPARE(c.norms, int64_t(49 + 80 + 1) * 8192); // a norm per attention, per MLP, the final one
        QCOMPARE(c.total, int64_t(49'867'145'216));
        // Forward FLOP per token at S = 4096, layer type by layer type.
        const ForwardComponents f = forwardComponents(m, 4096);
        QCOMPARE(f.qkvProjection, 49 * 2.0 * 8192 * (8192 + 8 * 256)); // 8,220,835,840
        QCOMPARE(f.outputProjection, 49 * 2.0 * 8192 * 8192); // 6,576,668,672
        QCOMPARE(f.attentionCore(), 49 * 2 * (2.0 * 4096 * 64 * 128)); // 13,153,337,344: attention layers only
        QCOMPARE(f.ffn, 6.0 * 8192 * 1'642'496); // 80,731,963,392
        QCOMPARE(f.lmHead, 2.0 * 8192 * 128256);
    }

    void gemma4Layers()
    {
        const ModelSpec m = read(kGemma4);
        QVERIFY(m.isMoe());
        QCOMPARE(m.moe.sharedExperts, 1); // the dense MLP beside the experts
        QCOMPARE(localAttentionLayerCount(m, TokenMixer::SlidingWindowAttention), 2);
        const LayerRun global = layerRuns(m).back();
        QCOMPARE(global.kind.tokenMixer, TokenMixer::FullAttention);
        const LayerAttention a = m.attentionOf(global.kind);
        QCOMPARE(a.qkHeadDim, 64);
        QCOMPARE(a.vHeadDim, 64);
        QCOMPARE(a.kvHeads, 1);
        QVERIFY(a.keyIsValue);
        // Parameters (h = 256):
        //   sliding: q 256 x 128, k and v 256 x 64 each, o 128 x 256, q_norm and k_norm 32 each = 98,368 (x 2)
        //   global: q 256 x 256, k 256 x 64, no v, o 256 x 256, norms 64 each = 147,584
        //   MoE per layer: 4 experts 3 x 256 x 128, the dense MLP 3 x 256 x 512, router 4 x 256 + 4 = 787,460 (x 3)
        //   norms: 8 per layer x 256 + the final one; embedding 1000 x 256, tied
        const ParameterCounts c = countParameters(m);
        QCOMPARE(c.attention, int64_t(2 * 98'368 + 147'584));
        QCOMPARE(c.ffn, int64_t(3 * 787'460));
        QCOMPARE(c.norms, int64_t(25 * 256));
        QCOMPARE(c.total, int64_t(2'969'100));
        QCOMPARE(c.active, int64_t(2'969'100 - 3 * 2 * 98'304)); // 2 of 4 experts idle per layer
        // Forward FLOP per token at S = 1024: Q/K/V 2 x 256 x (128 + 2 x 64) per sliding layer and
        // 2 x 256 x (256 + 64) on the global one; scores over min(S, 64) keys of 4 x 32 on sliding layers and over
        // S keys of 4 x 64 on the global one.
        const ForwardComponents f = forwardComponents(m, 1024);
        QCOMPARE(f.qkvProjection, 2 * 131'072.0 + 163'840.0);
        QCOMPARE(f.outputProjection, 2 * 65'536.0 + 131'072.0);
        QCOMPARE(f.attentionScores, 2 * (2.0 * 64 * 4 * 32) + 2.0 * 1024 * 4 * 64);
        QCOMPARE(f.attentionValues, f.attentionScores);
        QCOMPARE(f.ffn, 3 * 6.0 * (256 * 2 * 128 + 256 * 512));
        QCOMPARE(f.router, 3 * 2.0 * 256 * 4);

        // The cost model weighs each attention layer by its width H·(d_qk + d_v): the global layer counts twice.
        const ModelShape shape = modelShapeOf(m);
        QCOMPARE(shape.fullAttentionShare, 2.0 / 3.0);
        QCOMPARE(int(shape.localAttention.size()), 1);
        QCOMPARE(shape.localAttention[0].layerShare, 2.0 / 3.0);
    }

    void mimoV2Layers()
    {
        const ModelSpec m = read(kMiMoV2);
        QCOMPARE(m.vHeadDim(), 32);
        QCOMPARE(m.slidingWindow, 16);
        const std::vector<LayerRun> runs = layerRuns(m);
        QCOMPARE(int(runs.size()), 2);
        QCOMPARE(runs[0].kind.channelMixer, ChannelMixer::DenseMlp);
        QCOMPARE(runs[1].kind.tokenMixer, TokenMixer::SlidingWindowAttention);
        QCOMPARE(m.attentionOf(runs[1].kind).kvHeads, 2);
        QVERIFY(m.attentionOf(runs[1].kind).sinks);
        QVERIFY(!m.attentionOf(runs[0].kind).sinks);
        // Parameters (h = 256, query/key heads of 48, value heads of 32):
        //   full: q 256 x 192, k 256 x 48, v 256 x 32, o 128 x 256 = 102,400
        //   sliding: q 256 x 192, k 256 x 96, v 256 x 64, o 128 x 256, 4 sinks = 122,884 (x 2)
        //   layer 0's MLP 3 x 256 x 512; MoE 8 experts of 3 x 256 x 64 and router 8 x 256 + 8 bias (x 2)
        //   norms 2 per layer + 1; embedding and LM head 1000 x 256 each
        const ParameterCounts c = countParameters(m);
        QCOMPARE(c.attention, int64_t(102'400 + 2 * 122'884));
        QCOMPARE(c.ffn, int64_t(393'216 + 2 * (393'216 + 2'056)));
        QCOMPARE(c.total, int64_t(2'045'720));
        QCOMPARE(c.active, int64_t(2'045'720 - 2 * 6 * 49'152));
        const ForwardComponents f = forwardComponents(m, 256);
        QCOMPARE(f.qkvProjection, 2.0 * 256 * (192 + 48 + 32) + 2 * 2.0 * 256 * (192 + 96 + 64));
        QCOMPARE(f.outputProjection, 3 * 2.0 * 128 * 256);
        QCOMPARE(f.attentionScores, 2.0 * 256 * 4 * 48 + 2 * (2.0 * 16 * 4 * 48));
        QCOMPARE(f.attentionValues, 2.0 * 256 * 4 * 32 + 2 * (2.0 * 16 * 4 * 32));
    }

    // A scenario file keeps each layer's own attention shape and norms.
    void scenarioRoundTrip()
    {
        for (const char* config : { kNas, kGemma4, kMiMoV2 }) {
            const ModelSpec m = read(config);
            const ModelSpec back = modelFromScenarioJson(modelToScenarioJson(m), "model");
            QCOMPARE(back.layerPattern, m.layerPattern);
            QCOMPARE(back.valueHeadDim, m.valueHeadDim);
            QCOMPARE(countParameters(back).total, countParameters(m).total);
            QCOMPARE(forwardComponents(back, 4096).total(), forwardComponents(m, 4096).total());
        }
    }

    void refusals()
    {
        const auto refused = [](const std::string& json, const char* key) {
            const QString e = errorOf(json);
            QVERIFY2(e.contains(QLatin1String(key)), qPrintable(QStringLiteral("%1: %2").arg(key, e)));
        };
        refused(replaced(kNas, R"("block_configs":[)", R"("block_configs_x":[)"), "'block_configs'");
        refused(replaced(kNas, R"("n_heads_in_group":2)", R"("n_heads_in_group":null)"),
            "block_configs[0].attention.n_heads_in_group");
        refused(replaced(kNas, R"("window_length":null)", R"("window_length":4096)"),
            "block_configs[0].attention.window_length");
        refused(replaced(kNas, R"("ffn_mult":1.0)", R"("ffn_mult":"wide")"), "block_configs[1].ffn.ffn_mult");
        refused(replaced(kNas, R"("num_hidden_layers":4)", R"("num_hidden_layers":5)"), "'block_configs'");
        refused(replaced(kGemma4, R"("hidden_size_per_layer_input":0)", R"("hidden_size_per_layer_input":256)"),
            "text_config.hidden_size_per_layer_input");
        refused(replaced(kGemma4, R"("num_kv_shared_layers":0)", R"("num_kv_shared_layers":1)"),
            "text_config.num_kv_shared_layers");
        refused(replaced(kGemma4, R"("layer_types")", R"("layer_kinds")"), "text_config.layer_types");
        refused(replaced(kMiMoV2, R"("hybrid_layer_pattern":[0,1,1])", R"("hybrid_layer_pattern":[0,1])"),
            "'hybrid_layer_pattern'");
        refused(replaced(kMiMoV2, R"("moe_layer_freq":[0,1,1])", R"("moe_layer_freq":[0,1,2])"), "'moe_layer_freq'");
        refused(replaced(kMiMoV2, R"("swa_num_attention_heads":4)", R"("swa_num_attention_heads":8)"),
            "'swa_num_attention_heads'");
        refused(
            replaced(kMiMoV2, R"("sliding_window_size":16)", R"("sliding_window_size":32)"), "'sliding_window_size'");
    }

    void step3p7Refusals()
    {
        const std::string step = R"({"architectures":["Step3p7FlashForCausalLM"],"model_type":"step3p7",
          "num_hidden_layers":2,"hidden_size":256,"num_attention_heads":4,"num_key_value_heads":1,"head_dim":64,
          "vocab_size":1000,"intermediate_size":512,"sliding_window":16,
          "layer_types":["full_attention","sliding_attention"],"first_k_dense_replace":1,"num_experts":4,
          "num_experts_per_tok":2,"moe_intermediate_size":64,"share_expert_dim":64,"n_shared_experts":1,
          "use_moe_router_bias":true,"num_nextn_predict_layers":3})";
        const ModelSpec m = read(step);
        // Layer 0: full attention + MLP 3 x 256 x 512; layer 1: sliding window + 4 experts and 1 shared of
        // 3 x 256 x 64, router 4 x 256 + 4. Attention: q and o 256 x 256, k and v 256 x 64 (x 2 layers).
        QCOMPARE(countParameters(m).total,
            int64_t(2 * 256'000 + 2 * (2 * 65'536 + 2 * 16'384) + 393'216 + 5 * 49'152 + 1'028 + 5 * 256));
        QVERIFY(!m.notes.empty());
        QVERIFY(errorOf(replaced(step, R"("use_moe_router_bias")", R"("attention_other_setting":{},"x")"))
                    .contains(QLatin1String("'attention_other_setting'")));
        QVERIFY(errorOf(replaced(step, R"("use_moe_router_bias")", R"("use_head_wise_attn_gate":true,"x")"))
                    .contains(QLatin1String("'use_head_wise_attn_gate'")));
    }
};

QTEST_GUILESS_MAIN(TestHfConfigLayerShapes)
#include "tst_hf_config_layer_shapes.moc"
