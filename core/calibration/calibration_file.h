#pragma once
// A trace calibration as a file (docs/json-keys.md, "Calibration files"): what `calibrate --out` writes and
// `predict`, `sweep` and `plan` read with --calibration. It holds the traced run's whole scenario (so the fit can be
// checked and repeated), the traces it came from, and each term's measured and predicted seconds with the evidence
// behind them; the scales are derived from those on reading, never stored apart from them.
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "core/calibration/trace_calibration.h"

namespace mfu {

inline constexpr const char* kCalibrationFormat = "mfu-explorer-calibration";
inline constexpr int kCalibrationFileVersion = 2; // 2: gemm_shapes, attention_shapes

nlohmann::json calibrationToJson(const TraceCalibration& calibration);
// Throws InputError naming the file and the key at fault.
TraceCalibration calibrationFromJson(const nlohmann::json& root, const std::string& fileName);
// A file's text: JSON that does not parse (1e309 included) is an InputError as well.
TraceCalibration calibrationFromText(std::string_view text, const std::string& fileName);
TraceCalibration readCalibrationFile(const std::filesystem::path& path);
// Atomic (core/io/atomic_file.h); throws InputError with the system's reason.
void writeCalibrationFile(const std::filesystem::path& path, const TraceCalibration& calibration);

} // namespace mfu
