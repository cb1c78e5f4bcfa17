#pragma once
// Preset library: hardware and model presets loaded from JSON text. Built-in files ship in presets/ (embedded in
// the application as Qt resources); users add or override entries by id with files in their settings folder.
// A file or entry that fails validation is recorded as a PresetProblem (file, key, reason) and the rest still load.
//
// Hardware file:  { "format": "mfu-explorer-hardware", "version": 1, "hardware": [ {entry}, ... ] }
//   entry: id, name, vendor, peak_dense_tflops {fp32,tf32,bf16,fp16,fp8,fp4} (TFLOPS; bf16 required, or fp16
//          on a device without BF16 such as V100: it is then the MFU denominator; "fp16" is not given otherwise),
//          peak_sparse_tflops {...} (the 2:4-sparsity headline; never below dense), memory_gb (decimal GB),
//          hbm_bandwidth_gbps (GB/s), scale_up {name, domain_gpus, bandwidth_gbps (GB/s per GPU, one direction)},
//          scale_out_gbitps (Gb/s per GPU), host_link {name, bandwidth_gbps (GB/s per GPU, one direction: the
//          GPU's link to host memory, what offloads cross; optional, PCIe Gen5 x16's 64 assumed when absent)},
//          price_per_gpu_hour_usd, power_watts (optional),
//          match [ "GPU name or glob", ... ] (optional: the names traces and logs give this GPU, matched by
//          core/presets/gpu_match.h; a user file adds names by overriding the entry or adding one),
//          cost_model {...} (optional: the cost model's constants for this device, key by key over the defaults,
//          docs/cost-model.md; kept beside the spec, PresetLibrary::costModelFor),
//          sources { <figure key>: "datasheet name, year" } - every figure present must name its source. A key
//          is the figure's path ("peak_dense_tflops.bf16", "memory_gb", "scale_up.bandwidth_gbps") or its group
//          ("peak_dense_tflops", "scale_up") covering all figures in it; HardwareSpec::sources holds the resolved
//          source per figure path. A source that names no figure of the entry is an error (a typo).
//   The parser converts to SI: TFLOPS x 1e12 -> FLOP/s, GB x 1e9 -> bytes, GB/s x 1e9, Gb/s x 1e9 / 8 -> B/s.
// Model file:     { "format": "mfu-explorer-models", "version": 1, "models": [ {entry}, ... ] }
//   entry: id, name, source, and exactly one of "params" (a bare count), "hf_config" (a Hugging Face config.json
//          object, read by the same importer as user files), or native fields: layers, hidden, heads, kv_heads
//          (default heads), head_dim (default hidden/heads), ffn_dim, activation (swiglu|gelu), vocab,
//          norm (rmsnorm|layernorm), tied_embeddings, qkv_bias, linear_bias, learned_positions (default false/0),
//          moe {experts, experts_per_token, expert_ffn_dim, shared_experts, shared_expert_ffn_dim, dense_layers,
//          router_bias}, mla {q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim}.
// Common rules: ids are lower-case letters, digits, '-', '_', '.'; an id appears once per file; unknown keys are
// errors (a misspelt key would drop a figure silently) except "notes" and keys starting with "_", which are
// comments; a "version" newer than 1 is refused; files of other formats in the folder (kernel rules, the validation
// runs) are skipped.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/model/cost_model_constants.h"
#include "core/model/hardware_spec.h"
#include "core/model/model_spec.h"

namespace mfu {

struct PresetProblem {
    std::string file;
    std::string key; // JSON path of the offending value, e.g. "hardware[3].peak_dense_tflops.bf16"
    std::string reason;
    std::string message() const; // "file: key: reason"
};

class PresetLibrary {
public:
    // Parses one preset file; valid entries are added (replacing any with the same id), problems are recorded.
    void loadText(const std::string& fileName, std::string_view jsonText);
    // Loads every *.json file in a folder and its subfolders, in path order. A missing folder is not an error.
    void loadDirectory(const std::filesystem::path& folder);

    // Replaces any entry with the same id, and that entry's cost-model constants by costModel (none: defaults).
    void addHardware(HardwareSpec spec, std::optional<CostModelConstants> costModel = std::nullopt);
    void addModel(ModelSpec spec);

    const std::vector<HardwareSpec>& hardware() const { return m_hardware; }
    const std::vector<ModelSpec>& models() const { return m_models; }
    const std::vector<PresetProblem>& problems() const { return m_problems; }

    const HardwareSpec* findHardware(std::string_view id) const;
    // The cost-model constants a hardware entry's "cost_model" gives; empty when it gives none (use the defaults).
    std::optional<CostModelConstants> costModelFor(std::string_view hardwareId) const;
    const ModelSpec* findModel(std::string_view id) const;

private:
    std::vector<HardwareSpec> m_hardware;
    std::map<std::string, CostModelConstants, std::less<>> m_costModels; // by hardware id
    std::vector<ModelSpec> m_models;
    std::vector<PresetProblem> m_problems;
};

// Single-entry parsers; throw InputError("<key>: <reason>") on the first problem.
HardwareSpec hardwareFromPresetJson(const nlohmann::json& entry);
// The entry's optional "cost_model" over the defaults for `hardware` (the spec read from the same entry).
std::optional<CostModelConstants> costModelFromPresetJson(const nlohmann::json& entry, const HardwareSpec& hardware);
ModelSpec modelFromPresetJson(const nlohmann::json& entry);

} // namespace mfu
