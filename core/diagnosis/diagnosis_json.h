#pragma once
// The documented output of a diagnosis (docs/cli.md, `diagnose --json`): { mfu, findings (each with its run),
// runs [ { label, mfu, ..., findings } ], comparison }; and the same as plain text for the terminal and the panels.
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/diagnosis/diagnosis.h"

namespace mfu {

nlohmann::json diagnosisToJson(const Diagnosis& diagnosis);
// "corrected MFU 54.34%"; for BF16+FP8 runs "corrected MFU x% vs the dense BF16 peak, y% vs the dense FP8 peak"; when
// no reading fits the GPU, "no consistent reading of the figures fits the GPU: at most N tokens/s per GPU (...)".
std::string correctedMfuText(const RunDiagnosis& run);
// One "Run '<label>': <correctedMfuText>" line per run, then "  [severity] code: message" per finding.
std::string diagnosisToText(const Diagnosis& diagnosis);

} // namespace mfu
