// MiMo-7B (mimo: XiaomiMiMo/MiMo-7B-Base, -RL, -SFT): Qwen2's decoder, read as its modeling file (MiMoForCausalLM,
// built on transformers' Qwen2 classes) defines the parameters:
//   attention   q/k/v projections with biases (attention_bias, true in every release), o_proj without; GQA
//   MLP         SwiGLU of intermediate_size; two RMSNorms per layer; untied LM head (tie_word_embeddings)
//   layers      full attention everywhere unless use_sliding_window (then from max_window_layers on, as Qwen2)
//   MTP         num_nextn_predict_layers multi-token-prediction layers (each a decoder layer, a 2h -> h input
//               projection and three more norms) are trained beside the main model in pre-training but are not the
//               main model: they are left out of the counts, and a note says so.
#include "core/presets/hf_config_families.h"

namespace mfu::hf {

void readMiMo(const Reader& r, ModelSpec& m)
{
    readLlamaShape(r, m, false);
    m.ffnDim = r.integer("intermediate_size");
    m.activation = gatedActivation(r, "hidden_act", "silu");
    m.qkvBias = r.boolean("attention_bias", true);
    std::vector<LayerKind> layers(size_t(m.layers), LayerKind {});
    applyQwenSlidingWindow(r, m, layers);
    setLayers(m, layers);
    noteMtpLayers(m, r.countOr("num_nextn_predict_layers", 0), "num_nextn_predict_layers");
}

} // namespace mfu::hf
