#pragma once
// Numeric formats a GPU has a peak for, and the training precision modes a run can use.
#include <optional>
#include <string>
#include <string_view>

namespace mfu {

// Tensor-core formats with a datasheet peak. BF16 and FP16 share one peak on every device that has both, so
// presets give "bf16"; FP16 is its own format for devices without BF16 (V100), whose 16-bit training peak is FP16
// and is then the MFU denominator (HardwareSpec::mfuPeak). FP16 is last so the older formats keep their indices.
enum class NumberFormat { FP32, TF32, BF16, FP8, FP4, FP16 };
inline constexpr int kNumberFormatCount = 6;

// How a run computes: BF16 everywhere, BF16 with FP8 linear layers (torchao float8 / Transformer Engine), or BF16
// with FP4 linear layers (Transformer Engine's NVFP4 recipe, MXFP4). New modes go last: files and sweeps keep their
// indices.
enum class TrainingPrecision { BF16, BF16_FP8, BF16_FP4 };

std::string_view numberFormatKey(NumberFormat f); // "fp32", "tf32", "bf16", "fp8", "fp4", "fp16"
std::string_view numberFormatLabel(NumberFormat f); // "FP32", "TF32", "BF16", "FP8", "FP4", "FP16"
std::optional<NumberFormat> numberFormatFromKey(std::string_view key);
std::string_view trainingPrecisionKey(TrainingPrecision p); // "bf16", "fp8", "fp4"
std::string_view trainingPrecisionLabel(TrainingPrecision p); // "BF16", "BF16+FP8", "BF16+FP4"
// The format the linear layers' GEMMs run in: BF16, FP8 or FP4.
NumberFormat linearLayerFormat(TrainingPrecision p);
// Accepts "bf16", "fp8", "bf16+fp8", "fp4", "bf16+fp4" (case-insensitive, "_" for "+"); nullopt otherwise.
std::optional<TrainingPrecision> trainingPrecisionFromKey(std::string_view key);

} // namespace mfu
