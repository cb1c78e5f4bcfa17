// The denominator a report divided by: the dense peak of its precision, or a sparse figure, another precision's,
// another GPU's, or all GPUs' together under one GPU's numerator.
#include <algorithm>

#include "core/diagnosis/diagnosis_findings.h"
#include "core/number_format.h"

namespace mfu::diagnosis_detail {

namespace {

struct NamedPeak {
    std::string what;
    double flops = 0;
    bool correct = false;
    std::string code;
};

// `linearPrecision` names the format of the run's linear layers (RunFacts::boundPeakPrecision): a BF16+FP8 or BF16+FP4
// run's report may divide by that format's dense peak, as the corrected MFU's second figure does, and is not wrong to.
// The right peaks come first, so that H100's 1,979 TFLOPS in an FP8 run is its dense FP8 peak, not BF16's sparse one.
std::vector<NamedPeak> candidatePeaks(
    const ReportedRun& run, const std::string& linearPrecision, const std::vector<HardwareSpec>& known)
{
    std::vector<NamedPeak> out;
    const std::string& name = run.hardware.displayName();
    static const std::pair<NumberFormat, const char*> formats[]
        = { { NumberFormat::BF16, "BF16" }, { NumberFormat::FP16, "FP16" }, { NumberFormat::FP8, "FP8" },
              { NumberFormat::TF32, "TF32" }, { NumberFormat::FP32, "FP32" }, { NumberFormat::FP4, "FP4" } };
    const NumberFormat right = run.hardware.mfuPeakFormat();
    for (const auto& [format, label] : formats) {
        if (const auto d = run.hardware.densePeak(format)) {
            const bool correct = format == right || label == linearPrecision;
            out.push_back(
                { "the " + name + "'s dense " + label + " peak", *d, correct, correct ? "" : "peak_wrong_precision" });
        }
        if (const auto s = run.hardware.sparsePeak(format))
            out.push_back({ "the " + name + "'s " + label + " figure with 2:4 structured sparsity", *s, false,
                "peak_is_sparse" });
    }
    for (const auto& h : known)
        if (h.id != run.hardware.id)
            if (const auto d = h.mfuPeak())
                out.push_back({ "the " + h.name + "'s dense " + std::string(numberFormatLabel(h.mfuPeakFormat()))
                        + " peak (another GPU)",
                    *d, false, "peak_wrong_gpu" });
    std::stable_partition(out.begin(), out.end(), [](const NamedPeak& p) { return p.correct; });
    return out;
}

// Which candidate the stated peak is, read per GPU or summed over the GPUs; nullptr when none.
const NamedPeak* identifyPeak(
    const ReportedRun& run, double stated, const std::vector<NamedPeak>& peaks, bool& clusterWide)
{
    // Candidates in order of likelihood (the run's own precision first), each read per GPU or summed over the GPUs:
    // a 2-GPU B200 report's 9,000 TFLOPS is 2 x 4,500 (sparse BF16) before it is one GPU's dense FP4.
    for (const auto& p : peaks)
        for (int scope = 0; scope < (run.gpus > 1 ? 2 : 1); ++scope)
            if (agree(scope == 0 ? stated : stated / run.gpus, p.flops, 0.01)) {
                clusterWide = scope == 1;
                return &p;
            }
    return nullptr;
}

// One GPU's achieved TFLOPS over the whole cluster's peak: the ratio shrinks with every GPU added.
void perGpuOverClusterPeak(const ReportedRun& run, const RunFacts& f, const Witness& chosen, RunDiagnosis& d)
{
    if (!run.achievedFlops)
        return;
    const double perGpuAchieved = chosen.perGpu * f.flopsStated;
    if (!agree(*run.achievedFlops, perGpuAchieved))
        return;
    d.findings.push_back({ "per_gpu_over_cluster_peak", "error",
        "Per-GPU numerator over a cluster-wide denominator: " + formatTflopsValue(*run.achievedFlops)
            + " TFLOPS is what ONE GPU achieves (" + tok(chosen.perGpu) + " tokens/s per GPU x "
            + formatGflop(f.flopsStated) + "), but " + formatTflopsValue(*run.peakFlops) + " TFLOPS is the peak of all "
            + std::to_string(run.gpus) + " GPUs. The ratio shrinks " + std::to_string(run.gpus)
            + "x as GPUs are added even when every GPU works as hard.",
        { { "achieved_tflops_per_gpu", perGpuAchieved / 1e12 },
            { "achieved_tflops_cluster", perGpuAchieved * run.gpus / 1e12 } } });
}

} // namespace

void checkPeak(const ReportedRun& run, const RunFacts& f, const Witness& chosen, const std::vector<HardwareSpec>& known,
    RunDiagnosis& d)
{
    if (!run.peakFlops)
        return;
    const double stated = *run.peakFlops;
    bool clusterWide = false;
    const std::vector<NamedPeak> peaks
        = candidatePeaks(run, f.boundPeakPrecision, known); // outlives `match`, which points into it
    const NamedPeak* match = identifyPeak(run, stated, peaks, clusterWide);
    const std::string right = formatTflopsValue(f.densePeak) + " TFLOPS";
    if (!match) {
        d.findings.push_back({ "peak_unrecognised", "warning",
            "The peak " + formatTflopsValue(stated)
                + " TFLOPS matches no figure of this or any known GPU, per GPU or for all " + std::to_string(run.gpus)
                + ". MFU uses the dense " + f.peakPrecision + " peak: " + right + " per GPU.",
            { { "stated_peak_tflops", stated / 1e12 }, { "dense_peak_tflops_per_gpu", f.densePeak / 1e12 },
                { "peak_dense_tflops_per_gpu", f.densePeak / 1e12 } } });
        return;
    }
    const std::string asStated = clusterWide ? formatTflopsValue(stated) + " TFLOPS is " + std::to_string(run.gpus)
            + " x " + formatTflopsValue(match->flops) + " TFLOPS, "
                                             : formatTflopsValue(stated) + " TFLOPS is ";
    if (!match->correct)
        d.findings.push_back({ match->code, "error",
            "Wrong peak: " + asStated + match->what
                + ". MFU is measured against the dense peak of the precision the "
                  "run trains in: "
                + right + " (dense " + f.peakPrecision + ") per GPU for this GPU.",
            { { "stated_peak_tflops", stated / 1e12 }, { "peak_used_tflops_per_gpu", match->flops / 1e12 },
                { "dense_peak_tflops_per_gpu", f.densePeak / 1e12 },
                { "peak_dense_tflops_per_gpu", f.densePeak / 1e12 } } });
    if (clusterWide)
        perGpuOverClusterPeak(run, f, chosen, d);
}

} // namespace mfu::diagnosis_detail
