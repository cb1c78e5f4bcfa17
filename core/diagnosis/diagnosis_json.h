#pragma once
// The documented output of a diagnosis (docs/cli.md, `diagnose --json`): { mfu, findings (each with its run),
// runs [ { label, mfu, ..., findings } ], comparison }; and the same as plain text for the terminal and the panels.
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/diagnosis/diagnosis.h"

namespace mfu {

nlohmann::json diagnosisToJson(const Diagnosis& diagnosis);
// One "Run '<label>': corrected MFU x%" line per run, then "  [severity] code: message" per finding.
std::string diagnosisToText(const Diagnosis& diagnosis);

} // namespace mfu
