// The denominator a report divided by: the dense peak of its precision, or a sparse figure, another precision's,
// another GPU's, or all GPUs' together under one GPU's numerator.
#include <algorithm>
#include <utility>

#include "core/diagnosis/diagnosis_findings.h"
#include "core/number_format.h"
#include "core/relative_gap.h"
#include "core/text.h"

namespace mfu::diagnosis_detail {

namespace {

// How likely a reading of the stated peak is, before how close it comes: the run's own right peaks, then its other
// figures, then another GPU's.
enum class PeakTier { Right, ThisGpu, OtherGpu };

struct NamedPeak {
    std::string what;
    double flops = 0;
    std::string code; // the finding a report that divided by it gets; empty for a right peak
    PeakTier tier;
};

// The figures of other GPUs, each value once with every GPU and format it is ("the dense BF16 peak of the H100 SXM,
// H200 and H800"; 1,979 TFLOPS is both Hopper's sparse BF16 figure and its dense FP8 peak): several GPUs share a
// peak, and naming one of them names the wrong one as often as not.
void addOtherGpuPeaks(const ReportedRun& run, const std::vector<HardwareSpec>& known, std::vector<NamedPeak>& out)
{
    struct Kind {
        std::string what; // "dense BF16 peak", "BF16 figure with 2:4 structured sparsity"
        std::vector<std::string> gpus;
    };
    struct Figure {
        double flops;
        std::vector<Kind> kinds;
    };
    std::vector<Figure> figures;
    const auto add = [&figures](double flops, const std::string& what, const std::string& gpu) {
        auto figure = std::find_if(
            figures.begin(), figures.end(), [flops](const Figure& f) { return agree(f.flops, flops, 1e-3); });
        if (figure == figures.end())
            figure = figures.insert(figures.end(), Figure { flops, {} });
        auto kind = std::find_if(
            figure->kinds.begin(), figure->kinds.end(), [&what](const Kind& k) { return k.what == what; });
        if (kind == figure->kinds.end())
            kind = figure->kinds.insert(figure->kinds.end(), Kind { what, {} });
        if (std::find(kind->gpus.begin(), kind->gpus.end(), gpu) == kind->gpus.end())
            kind->gpus.push_back(gpu);
    };
    for (const auto& h : known) {
        if (h.id == run.hardware.id)
            continue;
        for (NumberFormat format : kPeakFormats) {
            const std::string label(numberFormatLabel(format));
            if (const auto d = h.densePeak(format))
                add(*d, "dense " + label + " peak", h.name);
            if (const auto sp = h.sparsePeak(format))
                add(*sp, label + " figure with 2:4 structured sparsity", h.name);
        }
    }
    for (const Figure& f : figures) {
        // Kinds the same GPUs share are said once: "the dense BF16 peak and TF32 figure with 2:4 structured
        // sparsity of the H100 ...".
        std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> byGpus; // gpus, kinds
        for (const Kind& k : f.kinds) {
            auto same = std::find_if(byGpus.begin(), byGpus.end(), [&k](const auto& g) { return g.first == k.gpus; });
            if (same == byGpus.end())
                byGpus.push_back({ k.gpus, { k.what } });
            else
                same->second.push_back(k.what);
        }
        std::string what;
        for (size_t i = 0; i < byGpus.size(); ++i)
            what += (i == 0 ? "" : "; also ")
                + ("the " + listInWords(byGpus[i].second) + " of the " + listInWords(byGpus[i].first));
        out.push_back({ what + " (another GPU)", f.flops, "peak_wrong_gpu", PeakTier::OtherGpu });
    }
}

// `linearPrecision` names the format of the run's linear layers (RunFacts::boundPeakPrecision): a BF16+FP8 or BF16+FP4
// run's report may divide by that format's dense peak, as the corrected MFU's second figure does, and is not wrong to.
// The right peaks are the first tier, so that H100's 1,979 TFLOPS in an FP8 run is its dense FP8 peak, not BF16's
// sparse one.
std::vector<NamedPeak> candidatePeaks(
    const ReportedRun& run, const std::string& linearPrecision, const std::vector<HardwareSpec>& known)
{
    std::vector<NamedPeak> out;
    const std::string& name = run.hardware.displayName();
    const NumberFormat right = run.hardware.mfuPeakFormat();
    for (NumberFormat format : kPeakFormats) {
        const std::string label(numberFormatLabel(format));
        if (const auto d = run.hardware.densePeak(format)) {
            const bool correct = format == right || label == linearPrecision;
            out.push_back({ "the " + name + "'s dense " + label + " peak", *d, correct ? "" : "peak_wrong_precision",
                correct ? PeakTier::Right : PeakTier::ThisGpu });
        }
        if (const auto s = run.hardware.sparsePeak(format))
            out.push_back({ "the " + name + "'s " + label + " figure with 2:4 structured sparsity", *s,
                "peak_is_sparse", PeakTier::ThisGpu });
    }
    addOtherGpuPeaks(run, known, out);
    return out;
}

// Which candidate the stated peak is, read per GPU or summed over the GPUs; nullptr when none. Within the likeliest
// tier that has a figure within 1%, the closest: the MI300A's 980.6 TFLOPS is within 1% of 989, and H100's 989 is it.
const NamedPeak* identifyPeak(
    const ReportedRun& run, double stated, const std::vector<NamedPeak>& peaks, bool& clusterWide)
{
    // Candidates in order of likelihood (the run's own precision first), each read per GPU or summed over the GPUs:
    // a 2-GPU B200 report's 9,000 TFLOPS is 2 x 4,500 (sparse BF16) before it is one GPU's dense FP4 (a tie keeps
    // the first).
    constexpr double kTolerance = 0.01;
    for (PeakTier tier : { PeakTier::Right, PeakTier::ThisGpu, PeakTier::OtherGpu }) {
        const NamedPeak* best = nullptr;
        double bestGap = kTolerance;
        for (const auto& p : peaks) {
            if (p.tier != tier)
                continue;
            for (int scope = 0; scope < (run.gpus > 1 ? 2 : 1); ++scope) {
                const double gap = relativeGap(scope == 0 ? stated : stated / run.gpus, p.flops);
                if (best ? gap < bestGap : gap <= kTolerance) {
                    best = &p;
                    bestGap = gap;
                    clusterWide = scope == 1;
                }
            }
        }
        if (best)
            return best;
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
    // Another GPU's peak from a logger that reads its own device's: the run was on that GPU, or the logger was
    // told a fixed peak. log_peak_mismatch (findings_own_figures.cpp) says which GPU and withholds the correction.
    if (run.peakFromDevice && match->tier == PeakTier::OtherGpu)
        return;
    const std::string asStated = clusterWide ? formatTflopsValue(stated) + " TFLOPS is " + std::to_string(run.gpus)
            + " x " + formatTflopsValue(match->flops) + " TFLOPS, "
                                             : formatTflopsValue(stated) + " TFLOPS is ";
    if (match->tier != PeakTier::Right)
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
