#pragma once
// Hugging Face config.json import for the Llama, Mistral, Qwen2, Mixtral, GPT-2, GPT-NeoX and DeepSeek (V2/V3)
// families. The family is recognised from "model_type" (or "architectures"); an unknown one, a missing key or a
// value of the wrong type is an InputError that names the key.
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "core/model/model_spec.h"

namespace mfu {

ModelSpec modelFromHfConfig(const nlohmann::json& config, const std::string& sourceName);
// Parses text first; a syntax error names the source and byte position.
ModelSpec modelFromHfConfigText(std::string_view text, const std::string& sourceName);
// Reads a config.json from disk: path names the file, or a downloaded model's folder with its config.json beside the
// weights. The model's id, and every error, name the file by its absolute path. A FIFO or a file beyond
// readWholeFile's limit is refused, as is a folder without a config.json ("<path>: is a folder without ...").
// The command line's --model, the window's Import and the predict line of a scenario all read through here.
ModelSpec modelFromHfConfigFile(const std::filesystem::path& path);

} // namespace mfu
