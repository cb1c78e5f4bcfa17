#include "core/diagnosis/diagnosis_json.h"

#include <nlohmann/json.hpp>

#include "core/number_format.h"

namespace mfu {

namespace {

nlohmann::json findingJson(const Finding& f, const std::string& run)
{
    nlohmann::json j { { "code", f.code }, { "severity", f.severity }, { "message", f.message },
        { "figures", f.figures } };
    if (!run.empty())
        j["run"] = run;
    return j;
}

nlohmann::json optional(const std::optional<double>& v, double scale = 1.0)
{
    return v ? nlohmann::json(*v * scale) : nlohmann::json();
}

} // namespace

std::string correctedMfuText(const RunDiagnosis& r)
{
    if (r.withheld)
        return "no corrected MFU: " + *r.withheld
            + (*r.withheld == "log_model_mismatch"           ? " (the figures describe another model)"
                    : *r.withheld == "log_gpu_count_missing" ? " (the log states no GPU count)"
                                                             : " (the figures describe another GPU)");
    if (!r.consistent)
        return "no consistent reading of the figures fits the GPU: at most " + formatNumber(r.maxTokensPerSecPerGpu)
            + " tokens/s per GPU (the dense " + r.boundPeakPrecision + " peak of "
            + formatTflops(r.boundPeakFlopsPerGpu) + ")";
    if (r.mfuVsFp8Peak)
        return "corrected MFU " + formatPercent(r.mfu) + " vs the dense BF16 peak, " + formatPercent(*r.mfuVsFp8Peak)
            + " vs the dense FP8 peak";
    if (r.mfuVsFp4Peak)
        return "corrected MFU " + formatPercent(r.mfu) + " vs the dense BF16 peak, " + formatPercent(*r.mfuVsFp4Peak)
            + " vs the dense FP4 peak";
    return "corrected MFU " + formatPercent(r.mfu);
}

nlohmann::json diagnosisToJson(const Diagnosis& d)
{
    nlohmann::json runs = nlohmann::json::array();
    nlohmann::json all = nlohmann::json::array();
    for (const auto& r : d.runs) {
        nlohmann::json findings = nlohmann::json::array();
        for (const auto& f : r.findings) {
            findings.push_back(findingJson(f, {}));
            all.push_back(findingJson(f, r.label));
        }
        // Without a consistent reading there is no corrected MFU: null, and the bound beside it.
        // Withheld (the figures describe another model or GPU): null too, with the code that says why.
        runs.push_back(
            { { "label", r.label }, { "mfu", r.hasCorrectedMfu() ? nlohmann::json(r.mfu) : nlohmann::json() },
                { "mfu_withheld", r.withheld ? nlohmann::json(*r.withheld) : nlohmann::json() },
                { "implied_flops_per_token", optional(r.impliedFlopsPerToken) },
                { "implied_params", optional(r.impliedParams) },
                { "implied_peak_tflops", optional(r.impliedPeakFlops, 1e-12) },
                { "implied_gpu", r.impliedGpuId ? nlohmann::json(*r.impliedGpuId) : nlohmann::json() },
                { "consistent", r.consistent }, { "max_tokens_per_sec_per_gpu", r.maxTokensPerSecPerGpu },
                { "peak_dense_tflops_per_gpu", r.peakFlopsPerGpu / 1e12 },
                { "peak_dense_fp8_tflops_per_gpu",
                    r.fp8PeakFlopsPerGpu ? nlohmann::json(*r.fp8PeakFlopsPerGpu / 1e12) : nlohmann::json() },
                { "mfu_vs_fp8_peak", r.mfuVsFp8Peak ? nlohmann::json(*r.mfuVsFp8Peak) : nlohmann::json() },
                { "peak_dense_fp4_tflops_per_gpu",
                    r.fp4PeakFlopsPerGpu ? nlohmann::json(*r.fp4PeakFlopsPerGpu / 1e12) : nlohmann::json() },
                { "mfu_vs_fp4_peak", r.mfuVsFp4Peak ? nlohmann::json(*r.mfuVsFp4Peak) : nlohmann::json() },
                { "mfu_with_stated_flops_per_token",
                    r.mfuWithStatedFlops ? nlohmann::json(*r.mfuWithStatedFlops) : nlohmann::json() },
                { "tokens_per_sec_per_gpu", r.tokensPerSecPerGpu }, { "tokens_per_sec", r.tokensPerSecCluster },
                { "achieved_tflops_per_gpu", r.achievedFlopsPerGpu / 1e12 }, { "flops_per_token", r.flopsPerToken },
                { "flops_formula", r.flopsFormula }, { "peak_tflops_per_gpu", r.peakFlopsPerGpu / 1e12 },
                { "throughput_basis", r.throughputBasis }, { "findings", findings } });
    }
    nlohmann::json comparison = nlohmann::json::array();
    for (const auto& f : d.comparison) {
        comparison.push_back(findingJson(f, {}));
        all.push_back(findingJson(f, "comparison"));
    }
    const bool corrected = d.runs.empty() || d.runs.back().hasCorrectedMfu();
    return { { "mfu", corrected ? nlohmann::json(d.mfu) : nlohmann::json() }, { "findings", all }, { "runs", runs },
        { "comparison", comparison } };
}

std::string diagnosisToText(const Diagnosis& d)
{
    std::string out;
    auto finding = [&out](const Finding& f) {
        const char* mark = f.severity == "error" ? "[error]  " : f.severity == "warning" ? "[warning]" : "[info]   ";
        out += "  " + std::string(mark) + " " + f.code + ": " + f.message + "\n";
    };
    for (const auto& r : d.runs) {
        out += "Run '" + r.label + "': " + correctedMfuText(r) + "\n";
        for (const auto& f : r.findings)
            finding(f);
    }
    if (!d.comparison.empty()) {
        out += "Across runs\n";
        for (const auto& f : d.comparison)
            finding(f);
    }
    return out;
}

} // namespace mfu
