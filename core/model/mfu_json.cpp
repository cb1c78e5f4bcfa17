#include "core/model/mfu_json.h"

#include <string>

namespace mfu {

namespace {
nlohmann::json orNull(const std::optional<double>& v, double scale = 1.0)
{
    return v ? nlohmann::json(*v / scale) : nlohmann::json();
}
} // namespace

nlohmann::json mfuResultToJson(const std::optional<MfuResult>& result)
{
    auto figure = [&result](double MfuResult::*member, double scale = 1.0) {
        return result ? nlohmann::json((*result).*member / scale) : nlohmann::json();
    };
    return { { "tokens_per_sec_per_gpu", figure(&MfuResult::tokensPerSecPerGpu) },
        { "tokens_per_sec", figure(&MfuResult::tokensPerSecCluster) },
        // Trained tokens: the processed ones less the padding kept in the batch (MFU counts these).
        { "useful_tokens_per_sec_per_gpu", figure(&MfuResult::usefulTokensPerSecPerGpu) },
        { "achieved_tflops_per_gpu", figure(&MfuResult::achievedFlopsPerGpu, 1e12) },
        { "achieved_tflops_cluster", figure(&MfuResult::achievedFlopsCluster, 1e12) },
        { "peak_dense_tflops_per_gpu", figure(&MfuResult::peakFlopsPerGpu, 1e12) }, { "mfu", figure(&MfuResult::mfu) },
        { "hfu", figure(&MfuResult::hfu) },
        // "bf16_dense", or "fp16_dense" on a device without BF16 (V100)
        { "mfu_peak_basis",
            result ? nlohmann::json(std::string(numberFormatKey(result->peakFormat)) + "_dense") : nlohmann::json() },
        { "peak_format", result ? nlohmann::json(std::string(numberFormatKey(result->peakFormat))) : nlohmann::json() },
        { "peak_dense_fp8_tflops_per_gpu", orNull(result ? result->fp8PeakFlopsPerGpu : std::nullopt, 1e12) },
        { "mfu_vs_fp8_peak", orNull(result ? result->mfuVsFp8Peak : std::nullopt) },
        { "peak_dense_fp4_tflops_per_gpu", orNull(result ? result->fp4PeakFlopsPerGpu : std::nullopt, 1e12) },
        { "mfu_vs_fp4_peak", orNull(result ? result->mfuVsFp4Peak : std::nullopt) } };
}

} // namespace mfu
