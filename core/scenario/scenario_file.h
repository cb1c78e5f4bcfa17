#pragma once
// Scenario files: everything the user set, as versioned JSON.
//
//   { "format": "mfu-explorer-scenario", "version": 1, "model": {...}, "cluster": {...}, "workload": {...}, ... }
//
// A file is self-contained: the model's architecture and the hardware's figures are embedded (not just preset ids),
// so it opens identically on a machine whose presets differ or after a preset is corrected. Numbers are SI and
// written with round-trip precision, so save -> open gives back the identical scenario.
// Older versions are read by code kept apart (scenario_file_v0.cpp); a file of a newer version, another format, or
// with a bad value is an InputError naming the file, the key and what is wrong, and nothing is half-loaded.
// Writing the file atomically is the caller's job (the GUI uses QSaveFile, app/scenario_io.h).
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/scenario/scenario.h"

namespace mfu {

class PresetLibrary;

inline constexpr const char* kScenarioFormat = "mfu-explorer-scenario";
inline constexpr int kScenarioFileVersion = 1;

// What a scenario file holds: the scenario plus the session around it.
struct ScenarioDocument {
    Scenario scenario; // with the Cost panel's inputs (scenario.cost)
    // What was loaded with it, as the user gave the paths (files or folders), so reopening restores the session:
    std::vector<std::string> tracePaths; // "trace_paths": the profiler traces of the run analysed (one per rank)
    std::vector<std::string> baselineTracePaths; // "baseline_trace_paths": the run it is compared against
    std::vector<std::string> trainingLogPaths; // "training_log_paths": training logs
};

nlohmann::json scenarioToJson(const ScenarioDocument& document);
std::string scenarioFileText(const ScenarioDocument& document); // pretty JSON, newline-terminated

// `fileName` prefixes every error message. `presets` resolves the preset ids that version-0 files refer to; a
// version-0 file read without presets is an error that says so.
ScenarioDocument scenarioFromJson(
    const nlohmann::json& root, const std::string& fileName, const PresetLibrary* presets = nullptr);
ScenarioDocument scenarioFromText(
    std::string_view text, const std::string& fileName, const PresetLibrary* presets = nullptr);
ScenarioDocument readScenarioFile(const std::filesystem::path& path, const PresetLibrary* presets = nullptr);
// The run's files (trace_paths, baseline_trace_paths, training_log_paths) where a reader of the file at `scenarioFile`
// finds them: a relative path is the scenario file's folder's, wherever the reader runs (the window, `report`), and
// an absolute one (as the window saves them) stays. The file's own text keeps what it stores.
ScenarioDocument withRunFilesResolved(ScenarioDocument document, const std::filesystem::path& scenarioFile);

// Parts, shared by the version readers.
// The scenario's cost-model constants (Scenario::costModel) are stored inside the hardware object as "cost_model",
// as they were when the hardware spec carried them, so files read the same both ways.
nlohmann::json hardwareToScenarioJson(
    const HardwareSpec& hardware, const std::optional<CostModelConstants>& costModel = std::nullopt);
HardwareSpec hardwareFromScenarioJson(
    const nlohmann::json& object, const std::string& path, std::optional<CostModelConstants>* costModel = nullptr);
nlohmann::json modelToScenarioJson(const ModelSpec& model);
ModelSpec modelFromScenarioJson(const nlohmann::json& object, const std::string& path);
std::string_view pipelineScheduleKey(PipelineSchedule schedule); // "1f1b", "interleaved_1f1b", "zero_bubble"
std::optional<PipelineSchedule> pipelineScheduleFromKey(std::string_view key);
std::string_view dataParallelKey(DataParallelKind kind); // "fsdp", "zero1", "ddp"
std::optional<DataParallelKind> dataParallelFromKey(std::string_view key);
// "auto", "flash3", "flash2", "flash1", "cudnn", "unfused"
std::string_view attentionKernelKey(AttentionKernel kernel);
std::optional<AttentionKernel> attentionKernelFromKey(std::string_view key);

// Version-0 reader (scenario_file_v0.cpp).
ScenarioDocument scenarioFromJsonV0(const nlohmann::json& root, const PresetLibrary* presets);

} // namespace mfu
