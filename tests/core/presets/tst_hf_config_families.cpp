// Hugging Face config.json import of today's families: each config is the published config.json's architecture
// keys, and the count is the model card's or checkpoint's figure, or derived by hand from the transformers layout
// (derivation beside each row).
#include <QtTest>

#include "core/errors.h"
#include "core/model/flops.h"
#include "core/model/param_count.h"
#include "core/presets/hf_config.h"

using namespace mfu;

class TestHfConfigFamilies : public QObject {
    Q_OBJECT
private slots:
    // MiniMax-M2.5's layout, derived by hand: per layer q/k/v/o 3072 x (6144 + 1024 + 1024) + 6144 x 3072 =
    // 44,040,192, per-layer q/k norms 6144 + 1024, 256 experts x 3 x 3072 x 1536 = 3,623,878,656, router 786,432 +
    // its 256 correction biases, two RMSNorms 6144: 3,668,718,848 x 62 layers + untied embedding and head
    // 2 x 200,064 x 3072 + final norm = 228,689,764,864.
    void miniMaxM2ByHand()
    {
        const ModelSpec m = modelFromHfConfigText(R"({"architectures": ["MiniMaxM2ForCausalLM"],
            "model_type": "minimax_m2", "num_hidden_layers": 62, "hidden_size": 3072, "num_attention_heads": 48,
            "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 1536, "vocab_size": 200064,
            "num_experts_per_tok": 8, "num_local_experts": 256, "hidden_act": "silu", "tie_word_embeddings": false,
            "use_qk_norm": true, "qk_norm_type": "per_layer", "use_routing_bias": true, "use_mtp": true,
            "num_mtp_modules": 3, "shared_intermediate_size": 0})",
            "MiniMax-M2.5/config.json");
        QCOMPARE(countParameters(m).total, int64_t(228'689'764'864));
        // Active: 8 of 256 experts: 62 x (3,668,718,848 - 248 x 14,155,776) + embedding and head.
        QCOMPARE(countParameters(m).active, int64_t(228'689'764'864 - 62LL * 248 * 14'155'776));
        // A MiniMax-01-style lightning-attention layer is refused, naming the key.
        try {
            modelFromHfConfigText(R"({"architectures": ["MiniMaxM2ForCausalLM"], "model_type": "minimax_m2",
                "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 4,
                "intermediate_size": 32, "vocab_size": 100, "num_experts_per_tok": 2, "num_local_experts": 4,
                "attn_type_list": [0, 1]})",
                "m1.json");
            QFAIL("expected an error");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("attn_type_list") != std::string::npos, e.what());
        }
    }

    void exactCounts_data()
    {
        QTest::addColumn<QByteArray>("config");
        QTest::addColumn<qint64>("total");
        QTest::addColumn<qint64>("active");
        // Qwen/Qwen3-8B: 8,190,735,360 (safetensors total). Per layer q 4096x4096, k/v 4096x1024 each, o, q/k
        // RMSNorm(128) = 41,943,296; MLP 3 x 4096 x 12288; 2 norms; untied 151936 x 4096 twice.
        QTest::newRow("Qwen/Qwen3-8B") << QByteArray(R"({"architectures":["Qwen3ForCausalLM"],"attention_bias":false,
            "attention_dropout":0.0,"bos_token_id":151643,"eos_token_id":151645,"head_dim":128,"hidden_act":"silu",
            "hidden_size":4096,"initializer_range":0.02,"intermediate_size":12288,"max_position_embeddings":40960,
            "max_window_layers":36,"model_type":"qwen3","num_attention_heads":32,"num_hidden_layers":36,
            "num_key_value_heads":8,"rms_norm_eps":1e-06,"rope_scaling":null,"rope_theta":1000000,
            "sliding_window":null,"tie_word_embeddings":false,"torch_dtype":"bfloat16","use_cache":true,
            "use_sliding_window":false,"vocab_size":151936})")
                                       << qint64(8'190'735'360) << qint64(8'190'735'360);
        // Qwen/Qwen3-0.6B: 596,049,920 (tied embeddings).
        QTest::newRow("Qwen/Qwen3-0.6B") << QByteArray(R"({"architectures":["Qwen3ForCausalLM"],"attention_bias":false,
            "head_dim":128,"hidden_act":"silu","hidden_size":1024,"intermediate_size":3072,"max_window_layers":28,
            "model_type":"qwen3","num_attention_heads":16,"num_hidden_layers":28,"num_key_value_heads":8,
            "sliding_window":null,"tie_word_embeddings":true,"use_sliding_window":false,"vocab_size":151936})")
                                         << qint64(596'049'920) << qint64(596'049'920);
        // Qwen/Qwen3-30B-A3B (card: 30.5B total, 3.3B activated). Per layer: attention 18,874,624; 128 experts
        // x 3 x 2048 x 768 = 603,979,776; router 128 x 2048; 2 norms. Active: 8 experts.
        QTest::newRow("Qwen/Qwen3-30B-A3B") << QByteArray(R"({"architectures":["Qwen3MoeForCausalLM"],
            "attention_bias":false,"decoder_sparse_step":1,"head_dim":128,"hidden_act":"silu","hidden_size":2048,
            "intermediate_size":6144,"max_window_layers":48,"mlp_only_layers":[],"model_type":"qwen3_moe",
            "moe_intermediate_size":768,"norm_topk_prob":true,"num_attention_heads":32,"num_experts":128,
            "num_experts_per_tok":8,"num_hidden_layers":48,"num_key_value_heads":4,"sliding_window":null,
            "tie_word_embeddings":false,"use_sliding_window":false,"vocab_size":151936})")
                                            << qint64(30'532'122'624) << qint64(3'353'032'704);
        // Qwen/Qwen1.5-MoE-A2.7B (card: 14.3B total, 2.7B activated non-embedding): 60 experts of 1408, top 4,
        // shared expert 5632 with its gate Linear(2048, 1), QKV biases.
        QTest::newRow("Qwen/Qwen1.5-MoE-A2.7B") << QByteArray(R"({"architectures":["Qwen2MoeForCausalLM"],
            "decoder_sparse_step":1,"hidden_act":"silu","hidden_size":2048,"intermediate_size":5632,
            "max_window_layers":21,"model_type":"qwen2_moe","moe_intermediate_size":1408,"num_attention_heads":16,
            "num_experts":60,"num_experts_per_tok":4,"num_hidden_layers":24,"num_key_value_heads":16,
            "shared_expert_intermediate_size":5632,"sliding_window":32768,"tie_word_embeddings":false,
            "use_sliding_window":false,"vocab_size":151936})")
                                                << qint64(14'315'784'192) << qint64(2'689'173'504);
        // openai/gpt-oss-120b (model card: 116.83B total, 5.13B active = active minus the input embedding).
        // Attention with q/k/v/o biases and 64 sinks: 26,550,144; expert: 2880 x 5760 + 5760 + 2880 x 2880 + 2880
        // = 24,891,840; router 2880 x 128 + 128.
        QTest::newRow("openai/gpt-oss-120b") << QByteArray(R"({"architectures":["GptOssForCausalLM"],
            "attention_bias":true,"experts_per_token":4,"head_dim":64,"hidden_act":"silu","hidden_size":2880,
            "intermediate_size":2880,"layer_types":["sliding_attention","full_attention","sliding_attention",
            "full_attention","sliding_attention","full_attention","sliding_attention","full_attention",
            "sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention",
            "full_attention","sliding_attention","full_attention","sliding_attention","full_attention",
            "sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention",
            "full_attention","sliding_attention","full_attention","sliding_attention","full_attention",
            "sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention",
            "full_attention","sliding_attention","full_attention"],"model_type":"gpt_oss","num_attention_heads":64,
            "num_experts_per_tok":4,"num_hidden_layers":36,"num_key_value_heads":8,"num_local_experts":128,
            "sliding_window":128,"tie_word_embeddings":false,"vocab_size":201088})")
                                             << qint64(116'829'156'672) << qint64(5'711'982'912);
        // openai/gpt-oss-20b (card: 20.91B total, 3.61B active); layer_types left to GptOssConfig's default.
        QTest::newRow("openai/gpt-oss-20b") << QByteArray(R"({"architectures":["GptOssForCausalLM"],
            "attention_bias":true,"experts_per_token":4,"head_dim":64,"hidden_size":2880,"intermediate_size":2880,
            "model_type":"gpt_oss","num_attention_heads":64,"num_experts_per_tok":4,"num_hidden_layers":24,
            "num_key_value_heads":8,"num_local_experts":32,"sliding_window":128,"tie_word_embeddings":false,
            "vocab_size":201088})") << qint64(20'914'757'184)
                                            << qint64(3'608'307'264 + 579'133'440);
        // meta-llama/Llama-4-Scout-17B-16E (text model; card: 17B active, 109B total with the vision encoder).
        // MoE layer: 16 experts + shared expert of 3 x 5120 x 8192 each, router 16 x 5120.
        QTest::newRow("meta-llama/Llama-4-Scout-17B-16E")
            << QByteArray(R"({"architectures":["Llama4ForConditionalGeneration"],"model_type":"llama4",
            "text_config":{"attention_bias":false,"attention_chunk_size":8192,"head_dim":128,"hidden_act":"silu",
            "hidden_size":5120,"interleave_moe_layer_step":1,"intermediate_size":8192,"intermediate_size_mlp":16384,
            "model_type":"llama4_text","no_rope_layers":[],"num_attention_heads":40,"num_experts_per_tok":1,
            "num_hidden_layers":48,"num_key_value_heads":8,"num_local_experts":16,"use_qk_norm":true,
            "vocab_size":202048},"tie_word_embeddings":false,"vision_config":{"model_type":"llama4_vision_model"}})")
            << qint64(107'769'861'120) << qint64(17'172'894'720);
        // meta-llama/Llama-4-Maverick-17B-128E (card: 400B total, 17B active): 24 MoE layers (odd), 24 dense
        // layers of intermediate_size_mlp 16384.
        QTest::newRow("meta-llama/Llama-4-Maverick-17B-128E")
            << QByteArray(R"({"architectures":["Llama4ForConditionalGeneration"],"model_type":"llama4",
            "text_config":{"attention_bias":false,"attention_chunk_size":8192,"head_dim":128,"hidden_act":"silu",
            "hidden_size":5120,"interleave_moe_layer_step":2,"intermediate_size":8192,"intermediate_size_mlp":16384,
            "model_type":"llama4_text","num_attention_heads":40,"num_experts_per_tok":1,"num_hidden_layers":48,
            "num_key_value_heads":8,"num_local_experts":128,"use_qk_norm":false,"vocab_size":202048},
            "tie_word_embeddings":false})")
            << qint64(400'711'848'960) << qint64(17'184'691'200);
        // google/gemma-7b: 8,537,680,896 (safetensors); head_dim 256 independent of 3072 / 16, tied.
        QTest::newRow("google/gemma-7b") << QByteArray(R"({"architectures":["GemmaForCausalLM"],
            "head_dim":256,"hidden_act":"gelu","hidden_size":3072,"intermediate_size":24576,"model_type":"gemma",
            "num_attention_heads":16,"num_hidden_layers":28,"num_key_value_heads":16,"vocab_size":256000})")
                                         << qint64(8'537'680'896) << qint64(8'537'680'896);
        // google/gemma-2-9b: 9,241,705,984 (safetensors); 4 norms per layer.
        QTest::newRow("google/gemma-2-9b") << QByteArray(R"({"architectures":["Gemma2ForCausalLM"],
            "cache_implementation":"hybrid","head_dim":256,"hidden_activation":"gelu_pytorch_tanh",
            "hidden_size":3584,"intermediate_size":14336,"model_type":"gemma2","num_attention_heads":16,
            "num_hidden_layers":42,"num_key_value_heads":8,"query_pre_attn_scalar":256,"sliding_window":4096,
            "vocab_size":256000})") << qint64(9'241'705'984)
                                           << qint64(9'241'705'984);
        // google/gemma-3-27b-it, language model: per layer attention 66,060,288 + q/k norms 256, MLP
        // 3 x 5376 x 21504, 4 norms; tied vocab 262208 (Gemma3TextConfig default: the key is absent).
        // The checkpoint's 27,432,406,640 adds the SigLIP vision tower and projector (423M).
        QTest::newRow("google/gemma-3-27b-it (text)")
            << QByteArray(R"({"architectures":["Gemma3ForConditionalGeneration"],"model_type":"gemma3",
            "text_config":{"head_dim":128,"hidden_size":5376,"intermediate_size":21504,"model_type":"gemma3_text",
            "num_attention_heads":32,"num_hidden_layers":62,"num_key_value_heads":16,"query_pre_attn_scalar":168,
            "rope_scaling":{"factor":8.0,"rope_type":"linear"},"sliding_window":1024},
            "vision_config":{"model_type":"siglip_vision_model"}})")
            << qint64(27'009'346'304) << qint64(27'009'346'304);
        // microsoft/Phi-3-mini-4k-instruct: 3,821,079,552 (fused qkv and gate_up: same counts).
        QTest::newRow("microsoft/Phi-3-mini-4k-instruct") << QByteArray(R"({"architectures":["Phi3ForCausalLM"],
            "hidden_act":"silu","hidden_size":3072,"intermediate_size":8192,"model_type":"phi3",
            "num_attention_heads":32,"num_hidden_layers":32,"num_key_value_heads":32,"sliding_window":2047,
            "tie_word_embeddings":false,"vocab_size":32064})")
                                                          << qint64(3'821'079'552) << qint64(3'821'079'552);
        // microsoft/phi-4 (card: 14B; safetensors 14.7B): qkv 5120 x (5120 + 2 x 1280), MLP 3 x 5120 x 17920.
        QTest::newRow("microsoft/phi-4") << QByteArray(R"({"architectures":["Phi3ForCausalLM"],"hidden_act":"silu",
            "hidden_size":5120,"intermediate_size":17920,"model_type":"phi3","num_attention_heads":40,
            "num_hidden_layers":40,"num_key_value_heads":10,"sliding_window":null,"tie_word_embeddings":false,
            "vocab_size":100352})") << qint64(14'659'507'200)
                                         << qint64(14'659'507'200);
        // allenai/OLMo-2-1124-7B (7.30B): full-width q_norm and k_norm of 4096 each.
        QTest::newRow("allenai/OLMo-2-1124-7B") << QByteArray(R"({"architectures":["Olmo2ForCausalLM"],
            "attention_bias":false,"hidden_act":"silu","hidden_size":4096,"intermediate_size":11008,
            "model_type":"olmo2","num_attention_heads":32,"num_hidden_layers":32,"num_key_value_heads":32,
            "tie_word_embeddings":false,"vocab_size":100352})")
                                                << qint64(7'298'617'344) << qint64(7'298'617'344);
        // bigcode/starcoder2-3b: 3,030,371,328 (biases on every linear, LayerNorm with bias, c_fc/c_proj, tied).
        QTest::newRow("bigcode/starcoder2-3b") << QByteArray(R"({"architectures":["Starcoder2ForCausalLM"],
            "hidden_act":"gelu_pytorch_tanh","hidden_size":3072,"intermediate_size":12288,"model_type":"starcoder2",
            "num_attention_heads":24,"num_hidden_layers":30,"num_key_value_heads":2,"sliding_window":4096,
            "use_bias":true,"vocab_size":49152})")
                                               << qint64(3'030'371'328) << qint64(3'030'371'328);
        // ibm-granite/granite-3.0-8b-base (8.17B): tied.
        QTest::newRow("ibm-granite/granite-3.0-8b-base") << QByteArray(R"({"architectures":["GraniteForCausalLM"],
            "attention_bias":false,"hidden_act":"silu","hidden_size":4096,"intermediate_size":12800,
            "mlp_bias":false,"model_type":"granite","num_attention_heads":32,"num_hidden_layers":40,
            "num_key_value_heads":8,"tie_word_embeddings":true,"vocab_size":49155})")
                                                         << qint64(8'170'848'256) << qint64(8'170'848'256);
        // ibm-granite/granite-3.0-3b-a800m-base (3.3B total, 800M active non-embedding): 40 experts of 512, top 8.
        QTest::newRow("ibm-granite/granite-3.0-3b-a800m-base") << QByteArray(R"({
            "architectures":["GraniteMoeForCausalLM"],"attention_bias":false,"hidden_act":"silu","hidden_size":1536,
            "intermediate_size":512,"model_type":"granitemoe","num_attention_heads":24,"num_experts_per_tok":8,
            "num_hidden_layers":32,"num_key_value_heads":8,"num_local_experts":40,"tie_word_embeddings":true,
            "vocab_size":49155})") << qint64(3'298'793'472) << qint64(882'874'368);
        // tiiuae/falcon-7b: 6,921,720,704 (multi-query fused QKV, one LayerNorm per parallel block, tied).
        QTest::newRow("tiiuae/falcon-7b") << QByteArray(R"({"architectures":["FalconForCausalLM"],"alibi":false,
            "bias":false,"hidden_size":4544,"model_type":"falcon","multi_query":true,"new_decoder_architecture":false,
            "num_attention_heads":71,"num_hidden_layers":32,"parallel_attn":true,"vocab_size":65024})")
                                          << qint64(6'921'720'704) << qint64(6'921'720'704);
        // mosaicml/mpt-7b: 6,649,286,656 (no_bias: LayerNorm weights only; ALiBi, no position embeddings).
        QTest::newRow("mosaicml/mpt-7b") << QByteArray(R"({"architectures":["MPTForCausalLM"],
            "attn_config":{"alibi":true,"attn_type":"multihead_attention"},"d_model":4096,"expansion_ratio":4,
            "max_seq_len":2048,"model_type":"mpt","n_heads":32,"n_layers":32,"no_bias":true,"vocab_size":50432})")
                                         << qint64(6'649'286'656) << qint64(6'649'286'656);
        // CohereForAI/c4ai-command-r-v01 (35B): one weight-only LayerNorm per parallel block, tied.
        QTest::newRow("CohereForAI/c4ai-command-r-v01") << QByteArray(R"({"architectures":["CohereForCausalLM"],
            "hidden_act":"silu","hidden_size":8192,"intermediate_size":22528,"model_type":"cohere",
            "num_attention_heads":64,"num_hidden_layers":40,"num_key_value_heads":64,"use_qk_norm":false,
            "vocab_size":256000})") << qint64(34'980'831'232)
                                                        << qint64(34'980'831'232);
        // internlm/internlm2-7b (7.74B): wqkv fused, bias false.
        QTest::newRow("internlm/internlm2-7b") << QByteArray(R"({"architectures":["InternLM2ForCausalLM"],
            "bias":false,"hidden_act":"silu","hidden_size":4096,"intermediate_size":14336,"model_type":"internlm2",
            "num_attention_heads":32,"num_hidden_layers":32,"num_key_value_heads":8,"tie_word_embeddings":false,
            "vocab_size":92544})") << qint64(7'737'708'544)
                                               << qint64(7'737'708'544);
        // mistralai/Mistral-Nemo-Base-2407 (12B; safetensors 12.2B): head_dim 128 is not 5120 / 32.
        QTest::newRow("mistralai/Mistral-Nemo-Base-2407") << QByteArray(R"({"architectures":["MistralForCausalLM"],
            "head_dim":128,"hidden_act":"silu","hidden_size":5120,"intermediate_size":14336,"model_type":"mistral",
            "num_attention_heads":32,"num_hidden_layers":40,"num_key_value_heads":8,"sliding_window":null,
            "tie_word_embeddings":false,"vocab_size":131072})")
                                                          << qint64(12'247'782'400) << qint64(12'247'782'400);
    }
    void exactCounts()
    {
        QFETCH(QByteArray, config);
        QFETCH(qint64, total);
        QFETCH(qint64, active);
        const ParameterCounts c = countParameters(modelFromHfConfigText(config.constData(), "/models/x/config.json"));
        QCOMPARE(c.total, total);
        QCOMPARE(c.active, active);
    }

    void gptOssActiveAsOpenAiCountsIt()
    {
        // OpenAI's card: 5.13B active for gpt-oss-120b and 3.61B for gpt-oss-20b, counting the unembedding but not
        // the embedding: our active minus the embedding.
        const ModelSpec m = modelFromHfConfigText(R"({"model_type":"gpt_oss","hidden_size":2880,
            "intermediate_size":2880,"num_attention_heads":64,"num_key_value_heads":8,"num_hidden_layers":36,
            "num_local_experts":128,"num_experts_per_tok":4,"sliding_window":128,"vocab_size":201088})",
            "gpt-oss-120b/config.json");
        const ParameterCounts c = countParameters(m);
        QCOMPARE(c.activeNonEmbedding, qint64(5'132'849'472));
        QCOMPARE(m.slidingWindow, qint64(128));
        QCOMPARE(localAttentionLayerCount(m, TokenMixer::SlidingWindowAttention), 18); // even layers
        QCOMPARE(m.name, std::string("gpt-oss-120b")); // the folder, not "config.json"
    }

    void slidingWindowFlopsHandDerived()
    {
        // Two layers, Gemma 2's default pattern: layer 0 sliding (window 4), layer 1 full; 2 heads of 8, S = 16.
        const char* config = R"({"model_type":"gemma2","hidden_size":16,"intermediate_size":32,
            "num_attention_heads":2,"num_key_value_heads":1,"head_dim":8,"num_hidden_layers":2,
            "sliding_window":4,"vocab_size":10})";
        const ModelSpec m = modelFromHfConfigText(config, "tiny/config.json");
        QCOMPARE(m.layerPattern.size(), size_t(2));
        const ForwardComponents f = forwardComponents(m, 16);
        // Q.K^T: 2 x span x heads x head_dim per layer = 2 x (4 + 16) x 2 x 8 = 640; x V the same.
        QCOMPARE(f.attentionScores, 640.0);
        QCOMPARE(f.attentionValues, 640.0);
        // Causal: full layer 16 / 2 = 8 keys, sliding layer 4 - 4^2 / (2 x 16) = 3.5 keys; x 2 x 2 x (8 + 8).
        QCOMPARE(f.attentionCoreCausal, (8.0 + 3.5) * 2.0 * 2.0 * 16.0);
        const FlopsPerToken t = countFlopsPerToken(m, 16);
        QCOMPARE(*t.perComponent - *t.perComponentCausal, 3.0 * (1280.0 - 736.0));
        // PaLM stays as published: 12 L H Q S over every layer, window or not.
        const ParameterCounts p = countParameters(m);
        QCOMPARE(*t.palm, 6.0 * double(p.activeNonEmbedding) + 12.0 * 2 * 2 * 8 * 16);
        // A sequence shorter than the window: every layer attends to all of it.
        const ForwardComponents shortSeq = forwardComponents(m, 4);
        QCOMPARE(shortSeq.attentionScores, 2.0 * (4 + 4) * 2 * 8);
    }

    void chunkedAttentionFlops()
    {
        // Llama 4: RoPE layers attend within chunks of attention_chunk_size; every 4th (NoPE) layer fully.
        const char* config = R"({"model_type":"llama4_text","hidden_size":16,"intermediate_size":8,
            "intermediate_size_mlp":32,"num_attention_heads":2,"num_key_value_heads":1,"head_dim":8,
            "num_hidden_layers":4,"num_local_experts":4,"num_experts_per_tok":1,"attention_chunk_size":4,
            "vocab_size":10})";
        const ModelSpec m = modelFromHfConfigText(config, "tiny/config.json");
        QCOMPARE(localAttentionLayerCount(m, TokenMixer::ChunkedAttention), 3);
        const ForwardComponents f = forwardComponents(m, 10);
        QCOMPARE(f.attentionScores, 2.0 * (3 * 4 + 10) * 2 * 8);
        // Causal: chunks of 4, 4, 2 -> (2 x 16 / 2 + 4 / 2) / 10 = 1.8 keys; the full layer 5.
        QCOMPARE(f.attentionCoreCausal, (3 * 1.8 + 5.0) * 2.0 * 2.0 * 16.0);
    }

    void architecturesMatchExactly()
    {
        // A Qwen1.5-MoE config without model_type is a Qwen2-MoE, not a dense Qwen2 (no prefix match).
        const ModelSpec moe = modelFromHfConfigText(R"({"architectures":["Qwen2MoeForCausalLM"],
            "hidden_size":2048,"intermediate_size":5632,"moe_intermediate_size":1408,"num_attention_heads":16,
            "num_experts":60,"num_experts_per_tok":4,"num_hidden_layers":24,"num_key_value_heads":16,
            "shared_expert_intermediate_size":5632,"vocab_size":151936})",
            "q/config.json");
        QCOMPARE(countParameters(moe).total, qint64(14'315'784'192));
        for (const char* arch : { "Qwen2ForCausalLMWithValueHead", "LlamaForCausalLM2", "Llama" }) {
            const QByteArray config = QByteArray("{\"architectures\":[\"") + arch
                + "\"],\"hidden_size\":64,\"num_hidden_layers\":2,\"num_attention_heads\":2,\"vocab_size\":10,"
                  "\"intermediate_size\":64}";
            QString message;
            try {
                modelFromHfConfigText(config.constData(), "/a/b/config.json");
            } catch (const InputError& e) {
                message = QString::fromUtf8(e.what());
            }
            QVERIFY2(message.contains(QStringLiteral("'%1' is not supported").arg(QLatin1String(arch))),
                qPrintable(message));
            QVERIFY2(message.startsWith(QStringLiteral("/a/b/config.json")), qPrintable(message));
        }
    }

    void multimodalNotesAndNames()
    {
        const ModelSpec m = modelFromHfConfigText(R"({"_name_or_path":"meta-llama/Llama-4-Scout-17B-16E",
            "model_type":"llama4","text_config":{"hidden_size":64,"intermediate_size":32,
            "intermediate_size_mlp":64,"num_attention_heads":2,"num_key_value_heads":1,"num_hidden_layers":2,
            "num_local_experts":2,"num_experts_per_tok":1,"vocab_size":10}})",
            "/x/config.json");
        QCOMPARE(m.name, std::string("meta-llama/Llama-4-Scout-17B-16E"));
        QCOMPARE(m.notes.size(), size_t(1));
        QVERIFY(QString::fromStdString(m.notes[0]).contains(QStringLiteral("vision encoder")));
        const ModelSpec named = modelFromHfConfigText(R"({"model_type":"llama","hidden_size":64,
            "intermediate_size":64,"num_attention_heads":2,"num_hidden_layers":2,"vocab_size":10})",
            "/models/My-Llama.json");
        QCOMPARE(named.name, std::string("My-Llama"));
        QVERIFY(named.notes.empty());
    }

    void pythonNonFiniteLiteralsAreNull()
    {
        // Python's json writes Infinity / NaN (Nemotron-H's time_step_limit); outside strings they read as null.
        const char* config = "{\"model_type\":\"llama\",\"hidden_size\":64,\"intermediate_size\":64,"
                             "\"num_attention_heads\":2,\"num_hidden_layers\":2,\"vocab_size\":10,"
                             "\"time_step_limit\":[0.0,Infinity],\"x\":-Infinity,\"y\":NaN,"
                             "\"_name_or_path\":\"a \\\"NaN\\\" Infinity\"}";
        const ModelSpec m = modelFromHfConfigText(config, "/m/config.json");
        QCOMPARE(m.name, std::string("a \"NaN\" Infinity")); // strings untouched
        QString message;
        try {
            modelFromHfConfigText(R"({"model_type":"llama","hidden_size":NaN})", "/m/config.json");
        } catch (const InputError& e) {
            message = QString::fromUtf8(e.what());
        }
        QVERIFY2(message.contains(QStringLiteral("'hidden_size'")), qPrintable(message));
    }

    void refusals_data()
    {
        QTest::addColumn<QByteArray>("config");
        QTest::addColumn<QString>("expected");
        QTest::newRow("a family not read yet") << QByteArray(R"({"model_type":"rwkv7","hidden_size":7168})")
                                               << QStringLiteral("'model_type': 'rwkv7' is not supported");
        QTest::newRow("a hybrid without its layer types") << QByteArray(
            R"({"model_type":"qwen3_5","text_config":{"model_type":"qwen3_5_text","hidden_size":2048,
                "num_hidden_layers":4,"num_attention_heads":16,"vocab_size":1000,"intermediate_size":4096,
                "linear_num_key_heads":16,"linear_num_value_heads":32,"linear_key_head_dim":128,
                "linear_value_head_dim":128}})") << QStringLiteral("key 'text_config.layer_types': missing");
        QTest::newRow("unsupported text model")
            << QByteArray(R"({"model_type":"gemma3","text_config":{"model_type":"rwkv7"}})")
            << QStringLiteral("'text_config.model_type': 'rwkv7' is not supported");
        QTest::newRow("layer type not supported")
            << QByteArray(R"({"model_type":"gpt_oss","hidden_size":64,"intermediate_size":64,
                "num_attention_heads":2,"num_hidden_layers":2,"num_local_experts":2,"num_experts_per_tok":1,
                "vocab_size":10,"sliding_window":4,"layer_types":["linear_attention","full_attention"]})")
            << QStringLiteral("'layer_types': layer type 'linear_attention' is not supported");
        QTest::newRow("sliding layers need a window") << QByteArray(
            R"({"model_type":"gpt_oss","hidden_size":64,"intermediate_size":64,
                "num_attention_heads":2,"num_hidden_layers":2,"num_local_experts":2,"num_experts_per_tok":1,
                "vocab_size":10})") << QStringLiteral("'sliding_window': missing");
        QTest::newRow("dense Llama 4 layers need their width")
            << QByteArray(R"({"model_type":"llama4","text_config":{"hidden_size":64,"intermediate_size":32,
                "num_attention_heads":2,"num_hidden_layers":2,"num_local_experts":2,"num_experts_per_tok":1,
                "interleave_moe_layer_step":2,"vocab_size":10}})")
            << QStringLiteral("'text_config.intermediate_size_mlp': missing");
        QTest::newRow("multimodal without text_config")
            << QByteArray(R"({"model_type":"mistral3"})") << QStringLiteral("'text_config': missing");
        QTest::newRow("layer_types of the wrong length") << QByteArray(
            R"({"model_type":"gemma2","hidden_size":64,"intermediate_size":64,
                "num_attention_heads":2,"num_hidden_layers":3,"vocab_size":10,"sliding_window":4,
                "layer_types":["full_attention"]})") << QStringLiteral("'layer_types': has 1 entries for 3 layers");
        QTest::newRow("mpt attn_type") << QByteArray(
            R"({"model_type":"mpt","d_model":64,"n_heads":2,"n_layers":2,"vocab_size":10,
                "attn_config":{"attn_type":7}})")
                                       << QStringLiteral("'attn_config.attn_type': must be a string");
    }
    void refusals()
    {
        QFETCH(QByteArray, config);
        QFETCH(QString, expected);
        QString message;
        try {
            modelFromHfConfigText(config.constData(), "/full/path/to/config.json");
        } catch (const InputError& e) {
            message = QString::fromUtf8(e.what());
        }
        QVERIFY2(message.contains(expected), qPrintable(message));
        QVERIFY2(message.startsWith(QStringLiteral("/full/path/to/config.json")), qPrintable(message));
    }
};

QTEST_GUILESS_MAIN(TestHfConfigFamilies)
#include "tst_hf_config_families.moc"
