#include "core/model/precision.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "core/text.h"

namespace mfu {

namespace {
constexpr std::array<std::string_view, kNumberFormatCount> kFormatKeys { "fp32", "tf32", "bf16", "fp8", "fp4", "fp16" };
constexpr std::array<std::string_view, kNumberFormatCount> kFormatLabels { "FP32", "TF32", "BF16", "FP8", "FP4",
    "FP16" };
} // namespace

std::string_view numberFormatKey(NumberFormat f)
{
    return kFormatKeys[static_cast<size_t>(f)];
}

std::string_view numberFormatLabel(NumberFormat f)
{
    return kFormatLabels[static_cast<size_t>(f)];
}

std::optional<NumberFormat> numberFormatFromKey(std::string_view key)
{
    const std::string k = asciiLowered(key);
    for (size_t i = 0; i < kFormatKeys.size(); ++i)
        if (kFormatKeys[i] == k)
            return static_cast<NumberFormat>(i);
    return std::nullopt;
}

std::string_view trainingPrecisionKey(TrainingPrecision p)
{
    return p == TrainingPrecision::BF16 ? "bf16" : "fp8";
}

std::string_view trainingPrecisionLabel(TrainingPrecision p)
{
    return p == TrainingPrecision::BF16 ? "BF16" : "BF16+FP8";
}

std::optional<TrainingPrecision> trainingPrecisionFromKey(std::string_view key)
{
    const std::string k = asciiLowered(key);
    if (k == "bf16" || k == "fp16")
        return TrainingPrecision::BF16;
    if (k == "fp8" || k == "bf16+fp8" || k == "bf16_fp8")
        return TrainingPrecision::BF16_FP8;
    return std::nullopt;
}

} // namespace mfu
