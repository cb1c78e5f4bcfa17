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
    switch (p) {
    case TrainingPrecision::BF16:
        return "bf16";
    case TrainingPrecision::BF16_FP8:
        return "fp8";
    case TrainingPrecision::BF16_FP4:
        return "fp4";
    }
    return "bf16";
}

std::string_view trainingPrecisionLabel(TrainingPrecision p)
{
    switch (p) {
    case TrainingPrecision::BF16:
        return "BF16";
    case TrainingPrecision::BF16_FP8:
        return "BF16+FP8";
    case TrainingPrecision::BF16_FP4:
        return "BF16+FP4";
    }
    return "BF16";
}

NumberFormat linearLayerFormat(TrainingPrecision p)
{
    switch (p) {
    case TrainingPrecision::BF16:
        return NumberFormat::BF16;
    case TrainingPrecision::BF16_FP8:
        return NumberFormat::FP8;
    case TrainingPrecision::BF16_FP4:
        return NumberFormat::FP4;
    }
    return NumberFormat::BF16;
}

std::optional<TrainingPrecision> trainingPrecisionFromKey(std::string_view key)
{
    const std::string k = asciiLowered(key);
    if (k == "bf16" || k == "fp16")
        return TrainingPrecision::BF16;
    if (k == "fp8" || k == "bf16+fp8" || k == "bf16_fp8")
        return TrainingPrecision::BF16_FP8;
    // Not "nvfp4" or "mxfp4": the recipe is a setting of its own (fp4_recipe), and a word naming one here could
    // contradict it.
    if (k == "fp4" || k == "bf16+fp4" || k == "bf16_fp4")
        return TrainingPrecision::BF16_FP4;
    return std::nullopt;
}

} // namespace mfu
