// Families with LayerNorm and a plain two-matrix MLP: GPT-2, GPT-NeoX (and Megatron GPT), StarCoder2, Falcon, MPT.
#include "core/presets/hf_config_families.h"

namespace mfu::hf {

void readGpt2(const Reader& r, ModelSpec& m)
{
    m.hidden = r.integer("n_embd");
    m.layers = int(r.integer("n_layer"));
    m.heads = int(r.integer("n_head"));
    m.kvHeads = m.heads;
    m.headDim = m.hidden / m.heads;
    m.ffnDim = r.integerOr("n_inner", 4 * m.hidden);
    m.vocab = r.integer("vocab_size");
    m.learnedPositions = r.integer("n_positions");
    m.tiedEmbeddings = r.tiedEmbeddings(true);
    m.activation = plainActivation(r, "activation_function", "gelu_new");
    m.norm = NormKind::LayerNorm;
    m.linearBias = true;
}

void readGptNeoX(const Reader& r, ModelSpec& m)
{
    readLlamaShape(r, m, false);
    m.ffnDim = r.integerOr("intermediate_size", 4 * m.hidden);
    m.activation = plainActivation(r, "hidden_act", "gelu");
    m.norm = NormKind::LayerNorm;
    m.linearBias = true;
}

void readStarCoder2(const Reader& r, ModelSpec& m)
{
    readLlamaShape(r, m, true); // Starcoder2Config: tie_word_embeddings=True
    m.ffnDim = r.integer("intermediate_size");
    m.activation = plainActivation(r, "hidden_act", "gelu_pytorch_tanh"); // c_fc, c_proj
    m.norm = NormKind::LayerNorm; // nn.LayerNorm: weight and bias
    m.linearBias = r.boolean("use_bias", true); // every projection and both MLP linears
    if (r.has("sliding_window")) { // every layer attends within sliding_window
        m.slidingWindow = r.integer("sliding_window");
        m.layerPattern = { { m.layers, { TokenMixer::SlidingWindowAttention, ChannelMixer::DenseMlp, 0 } } };
    }
}

void readFalcon(const Reader& r, ModelSpec& m)
{
    // FalconConfig attribute_map: n_layer -> num_hidden_layers, n_head -> num_attention_heads.
    m.hidden = r.integer("hidden_size");
    m.layers = int(r.has("num_hidden_layers") ? r.integer("num_hidden_layers") : r.integer("n_layer"));
    m.heads = int(r.has("num_attention_heads") ? r.integer("num_attention_heads") : r.integer("n_head"));
    m.headDim = m.hidden / m.heads;
    m.vocab = r.integer("vocab_size");
    m.tiedEmbeddings = r.tiedEmbeddings(true);
    // Fused query_key_value: new_decoder_architecture has num_kv_heads K/V heads; else multi_query (default True)
    // means one.
    const bool newArch = r.boolean("new_decoder_architecture", false);
    if (newArch)
        m.kvHeads = int(r.integerOr("num_kv_heads", m.heads));
    else
        m.kvHeads = r.boolean("multi_query", true) ? 1 : m.heads;
    m.ffnDim = r.integerOr("ffn_hidden_size", 4 * m.hidden);
    m.activation = plainActivation(r, "activation", "gelu");
    m.linearBias = r.boolean("bias", false);
    m.norm = NormKind::LayerNorm;
    // FalconDecoderLayer: sequential blocks have input and post-attention norms; parallel ones have ln_attn and
    // ln_mlp when num_ln_in_parallel_attn is 2 (the default under new_decoder_architecture), else one norm.
    const bool parallel = r.boolean("parallel_attn", true);
    const int64_t parallelNorms = r.integerOr("num_ln_in_parallel_attn", newArch ? 2 : 1);
    m.normsPerLayer = !parallel ? 2 : (newArch && parallelNorms == 2 ? 2 : 1);
}

void readMpt(const Reader& r, ModelSpec& m)
{
    m.hidden = r.integer("d_model");
    m.layers = int(r.integer("n_layers"));
    m.heads = int(r.integer("n_heads"));
    m.headDim = m.hidden / m.heads;
    m.kvHeads = m.heads;
    m.vocab = r.integer("vocab_size");
    m.tiedEmbeddings = r.tiedEmbeddings(true); // MptForCausalLM's lm_head is the wte matrix
    m.ffnDim = r.integerOr("expansion_ratio", 4) * m.hidden;
    m.activation = FfnActivation::GELU; // up_proj, down_proj
    // no_bias (default True) removes every bias, the LayerNorms' included.
    const bool noBias = r.boolean("no_bias", true);
    m.linearBias = !noBias;
    m.norm = noBias ? NormKind::LayerNormNoBias : NormKind::LayerNorm;
    // attn_config (MptAttentionConfig): attn_type, kv_n_heads, alibi (default False).
    std::string attnType = "multihead_attention";
    bool alibi = false;
    int64_t kvHeads = 0;
    if (r.has("attn_config")) {
        const nlohmann::json& a = r.at("attn_config");
        if (!a.is_object())
            r.fail("attn_config", "must be an object, got " + a.dump());
        if (a.contains("attn_type")) {
            if (!a["attn_type"].is_string())
                r.fail("attn_config.attn_type", "must be a string, got " + a["attn_type"].dump());
            attnType = a["attn_type"].get<std::string>();
        }
        if (a.contains("alibi")) {
            if (!a["alibi"].is_boolean())
                r.fail("attn_config.alibi", "must be true or false, got " + a["alibi"].dump());
            alibi = a["alibi"].get<bool>();
        }
        if (a.contains("kv_n_heads") && a["kv_n_heads"].is_number_integer())
            kvHeads = a["kv_n_heads"].get<int64_t>();
    }
    if (attnType == "multiquery_attention") {
        m.kvHeads = 1;
    } else if (attnType == "grouped_query_attention") {
        if (kvHeads <= 0 || kvHeads > m.heads)
            r.fail("attn_config.kv_n_heads", "must be between 1 and n_heads for grouped_query_attention");
        m.kvHeads = int(kvHeads);
    } else if (attnType != "multihead_attention") {
        r.fail("attn_config.attn_type", "'" + attnType + "' is not supported");
    }
    // Without ALiBi, learned position embeddings (learned_pos_emb, default True) of max_seq_len (default 2048) rows.
    if (!alibi && r.boolean("learned_pos_emb", true))
        m.learnedPositions = r.integerOr("max_seq_len", 2048);
}

} // namespace mfu::hf
