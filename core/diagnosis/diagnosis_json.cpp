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

} // namespace

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
        runs.push_back({ { "label", r.label }, { "mfu", r.mfu },
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
    return { { "mfu", d.mfu }, { "findings", all }, { "runs", runs }, { "comparison", comparison } };
}

std::string diagnosisToText(const Diagnosis& d)
{
    std::string out;
    auto finding = [&out](const Finding& f) {
        const char* mark = f.severity == "error" ? "[error]  " : f.severity == "warning" ? "[warning]" : "[info]   ";
        out += "  " + std::string(mark) + " " + f.code + ": " + f.message + "\n";
    };
    for (const auto& r : d.runs) {
        out += "Run '" + r.label + "': corrected MFU " + formatPercent(r.mfu) + "\n";
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
