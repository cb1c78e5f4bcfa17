#pragma once
// The vision encoder of a Hugging Face vision-language config (`vision_config`), for the families whose encoder
// this application counts: Qwen2-VL and Qwen2.5-VL (gated-MLP ViT, windowed attention), Qwen3-VL and Qwen3.5
// (GELU ViT with learned position embeddings and DeepStack mergers), Kimi K2.5 (MoonViT: a SigLIP-shaped ViT with a
// final LayerNorm and a patch-merger projector). One table in hf_vision.cpp maps each outer model_type to the reader
// of its encoder's layout; each reader states the keys it reads. Other multimodal families import their language
// model only and say so in the model's notes.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "core/model/vision_encoder.h"

namespace mfu {

// nullopt when the family's encoder is not one this reads, or the config has no vision_config (the caller notes it);
// throws InputError naming the
// missing or malformed key (e.g. "vision_config.depth") when it is, so an encoder is never approximated.
// The families whose encoder this reads, for messages: "Qwen2-VL, Qwen2.5-VL, ...".
std::string visionEncoderFamilies();

std::optional<VisionEncoderSpec> visionEncoderFromHfConfig(
    const nlohmann::json& outer, const std::string& outerType, int64_t languageHidden, const std::string& source);

} // namespace mfu
