#pragma once
// The hardware preset a GPU name points to: a trace's deviceProperties name ("NVIDIA H100 80GB HBM3"), Nsight's
// TARGET_INFO_GPU name or a training log's "Device: NVIDIA B200". Matching is data: each hardware preset lists
// name patterns under "match" (HardwareSpec::matchPatterns), so a user preset file adds a GPU, or a name, without
// code. A pattern is a case-insensitive glob over the whole name: '*' matches any run of characters, '?' one;
// leading and trailing spaces of the name are ignored.
//
// Choosing among several matching presets: the pattern with the most literal (non-wildcard) characters wins, and
// an exact name (no wildcard) beats a glob of the same length, so "*GB200*" beats "*B200*" for "NVIDIA GB200" and
// "NVIDIA H100 NVL" beats "*H100". When different presets tie for best, the name is ambiguous: no preset is
// proposed and the candidates are listed (a bare "NVIDIA A100" could be the 40 GB SXM4, 40 GB PCIe or 80 GB part,
// which differ in memory and bandwidth). To re-point a name a built-in matches, override that built-in by id, or
// give a longer pattern.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/model/hardware_spec.h"

namespace mfu {

struct GpuMatch {
    std::optional<std::string> presetId; // the one preset the name means; nullopt when none or ambiguous
    std::string pattern; // the winning pattern, when presetId is set
    std::vector<std::string> candidates; // ambiguous: the ids that tie for best (two or more), else empty
    bool ambiguous() const { return !candidates.empty(); }
};

// Whether a pattern matches the whole name (case-insensitive glob, see above).
bool gpuPatternMatches(std::string_view pattern, std::string_view name);

// "match": ["NVIDIA H100 80GB HBM3", "*H100*SXM*"]: a hardware entry's name patterns, in a preset or a scenario file;
// not figures, so they need no source. Throws FieldError under `key` ("match[1]: must be a string ...").
std::vector<std::string> matchPatternsFromJson(const nlohmann::json& list, const std::string& key);

GpuMatch matchGpuName(std::string_view gpuName, const std::vector<HardwareSpec>& hardware);

// The preset id the name means, or nullopt (no match, or ambiguous).
std::optional<std::string> proposeHardwarePresetId(std::string_view gpuName, const std::vector<HardwareSpec>& hardware);

// One sentence for a name that maps to no preset: the candidates when ambiguous, else how to add a preset with a
// "match" pattern in the user presets folder (`folderHint`: where that folder is, e.g. the settings path or
// "$MFU_EXPLORER_PRESETS_DIR").
std::string unmatchedGpuHint(std::string_view gpuName, const GpuMatch& match, std::string_view folderHint);

} // namespace mfu
