// Findings across the runs of one report: scaling from one GPU count to another, different work per step, a reported
// MFU change that the corrected figures do not show.
#include "core/diagnosis/diagnosis_findings.h"

#include <map>
#include <string>

#include "core/number_format.h"

namespace mfu::diagnosis_detail {

std::vector<Finding> compareRuns(const std::vector<ReportedRun>& runs, const std::vector<RunFacts>& facts,
    const std::vector<RunDiagnosis>& diagnosed)
{
    std::vector<Finding> out;
    const auto& base = diagnosed.front();
    for (size_t i = 1; i < runs.size(); ++i) {
        const auto& run = diagnosed[i];
        if (facts[0].stepTokens && facts[i].stepTokens && !agree(*facts[0].stepTokens, *facts[i].stepTokens, 0.01))
            out.push_back({ "different_work_per_step", "warning",
                "'" + runs[0].label + "' and '" + runs[i].label
                    + "' do different work per step: " + tok(*facts[0].stepTokens) + " vs " + tok(*facts[i].stepTokens)
                    + " tokens (" + formatNumber(*facts[i].stepTokens / *facts[0].stepTokens, 1)
                    + "x). Their iteration times are not comparable; compare tokens/s per GPU or MFU instead.",
                { { "tokens_per_step_baseline", *facts[0].stepTokens },
                    { "tokens_per_step", *facts[i].stepTokens } } });
        const double gpuRatio = double(runs[i].gpus) / runs[0].gpus;
        const double efficiency = run.tokensPerSecPerGpu / base.tokensPerSecPerGpu;
        const double clusterRatio = run.tokensPerSecCluster / base.tokensPerSecCluster;
        const bool scaled = efficiency >= 0.9;
        // A run whose corrected MFU is withheld (its figures describe another model or GPU, or none is possible) has
        // no MFU to compare: the throughput still does.
        const bool bothCorrected = base.hasCorrectedMfu() && run.hasCorrectedMfu();
        std::map<std::string, double> scalingFigures { { "scaling_efficiency", efficiency },
            { "throughput_ratio", clusterRatio }, { "gpu_ratio", gpuRatio } };
        if (bothCorrected)
            scalingFigures.insert({ { "mfu_baseline", base.mfu }, { "mfu", run.mfu } });
        out.push_back({ "scaling", scaled ? "info" : "warning",
            "From " + std::to_string(runs[0].gpus) + " to " + std::to_string(runs[i].gpus)
                + " GPUs, tokens/s per GPU went from " + tok(base.tokensPerSecPerGpu) + " to "
                + tok(run.tokensPerSecPerGpu) + " (" + formatPercent(efficiency)
                + " scaling efficiency) and the whole run from " + tok(base.tokensPerSecCluster) + " to "
                + tok(run.tokensPerSecCluster) + " tokens/s (" + formatNumber(clusterRatio, 2) + "x on "
                + formatNumber(gpuRatio, 2) + "x the GPUs): " + (scaled ? "it scaled." : "it did not scale well.")
                + (bothCorrected ? " Corrected MFU " + formatPercent(base.mfu) + " -> " + formatPercent(run.mfu) + "."
                                 : std::string()),
            scalingFigures });
        if (bothCorrected && runs[0].mfu && runs[i].mfu) {
            const double statedRatio = *runs[i].mfu / *runs[0].mfu;
            const double correctedRatio = run.mfu / base.mfu;
            if (!agree(statedRatio, correctedRatio, 0.1))
                out.push_back({ "reported_mfu_change_artifact", "error",
                    "The reported MFU went from " + formatPercent(*runs[0].mfu) + " to " + formatPercent(*runs[i].mfu)
                        + " (" + formatNumber(statedRatio, 2) + "x) while the corrected MFU went from "
                        + formatPercent(base.mfu) + " to " + formatPercent(run.mfu) + " ("
                        + formatNumber(correctedRatio, 2)
                        + "x): the change is an artefact of how the report computes "
                          "MFU (see each run's findings), not of how hard the GPUs work.",
                    { { "stated_mfu_ratio", statedRatio }, { "corrected_mfu_ratio", correctedRatio } } });
        }
    }
    return out;
}

} // namespace mfu::diagnosis_detail
