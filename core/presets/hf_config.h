#pragma once
// Hugging Face config.json import for the Llama, Mistral, Qwen2, Mixtral, GPT-2, GPT-NeoX and DeepSeek (V2/V3)
// families. The family is recognised from "model_type" (or "architectures"); an unknown one, a missing key or a
// value of the wrong type is an InputError that names the key.
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "core/model/model_spec.h"

namespace mfu {

ModelSpec modelFromHfConfig(const nlohmann::json& config, const std::string& sourceName);
// Parses text first; a syntax error names the source and byte position.
ModelSpec modelFromHfConfigText(std::string_view text, const std::string& sourceName);

} // namespace mfu
