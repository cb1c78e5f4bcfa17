#pragma once
// Family readers of the Hugging Face config.json importer: one function per model layout, each reading its keys
// exactly as the transformers implementation of that model_type defines its parameters.
#include "core/model/model_spec.h"
#include "core/presets/hf_config_reader.h"

namespace mfu::hf {

// hf_config_dense.cpp
void readLlama(const Reader& r, ModelSpec& m); // llama, mistral, granite, phi3, mimo-free Llama layouts
void readQwen(const Reader& r, ModelSpec& m); // qwen2, qwen3, qwen3_vl_text
void readOlmo2(const Reader& r, ModelSpec& m);
void readCohere(const Reader& r, ModelSpec& m);
void readInternLm2(const Reader& r, ModelSpec& m);
void readGemma(const Reader& r, ModelSpec& m); // gemma, gemma2, gemma3_text

// hf_config_moe.cpp
void readMixtral(const Reader& r, ModelSpec& m);
void readQwenMoe(const Reader& r, ModelSpec& m); // qwen2_moe, qwen3_moe, qwen3_vl_moe_text
void readGraniteMoe(const Reader& r, ModelSpec& m);
void readGptOss(const Reader& r, ModelSpec& m);
void readLlama4(const Reader& r, ModelSpec& m);
void readDeepSeek(const Reader& r, ModelSpec& m);

// hf_config_classic.cpp: LayerNorm, two-matrix-MLP families
void readGpt2(const Reader& r, ModelSpec& m);
void readGptNeoX(const Reader& r, ModelSpec& m); // gpt_neox, megatron-gpt
void readStarCoder2(const Reader& r, ModelSpec& m);
void readFalcon(const Reader& r, ModelSpec& m);
void readMpt(const Reader& r, ModelSpec& m);

// hf_config_hybrid.cpp: layers that mix tokens without full attention
void readQwen35(const Reader& r, ModelSpec& m); // qwen3_5_text, qwen3_5_moe_text
void readNemotronH(const Reader& r, ModelSpec& m); // nemotron_h
void readDeepSeekSparse(const Reader& r, ModelSpec& m); // deepseek_v32, glm_moe_dsa

// Layers of their own shapes: one file per family
void readMiMo(const Reader& r, ModelSpec& m); // mimo (hf_config_mimo.cpp)
void readMiMoV2Flash(const Reader& r, ModelSpec& m); // mimo_v2_flash (hf_config_mimo_v2.cpp)
void readStep3p7(const Reader& r, ModelSpec& m); // step3p7 (hf_config_step.cpp)
void readGemma4(const Reader& r, ModelSpec& m); // gemma4_text (hf_config_gemma4.cpp)
void readNemotronNas(const Reader& r, ModelSpec& m); // nemotron-nas (hf_config_nemotron_nas.cpp)

// hf_config_minimax.cpp
void readMiniMaxM2(const Reader& r, ModelSpec& m); // minimax_m2 (MiniMax-M2, M2.5, M2.7)
void readMiniMaxM3(const Reader& r, ModelSpec& m); // minimax_m3 (MiniMax-M3): block-sparse attention

// hf_config_kimi.cpp
void readKimiLinear(const Reader& r, ModelSpec& m); // kimi_linear (Kimi Linear; Kimi K3's text model)

// hf_config_deepseek_v4.cpp
void readDeepSeekV4(const Reader& r, ModelSpec& m); // deepseek_v4 (DeepSeek-V4 Flash, Pro)

} // namespace mfu::hf
