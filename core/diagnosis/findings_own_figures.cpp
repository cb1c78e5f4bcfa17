// A report's (a training log's) own figures checked against each other before anything is corrected with them:
// tokens/s with TFLOPS imply the FLOP/token its logger counted, TFLOPS with MFU the peak it divided by. A torchtitan
// log of a model 800 times smaller than the scenario's, or one recorded on a B200 and read against an H100, would
// otherwise be "corrected" into a figure that looks right and is not.
#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "core/diagnosis/diagnosis_findings.h"
#include "core/logs/training_log.h"
#include "core/number_format.h"
#include "core/text.h"

namespace mfu::diagnosis_detail {

namespace {

// TFLOPS and MFU are printed rounded; the peak they imply is good to about this.
constexpr double kPeakTolerance = 0.03;
// A peak the log prints itself (torchtitan's "9.890e+14", four figures) is good to this: tight enough that the
// MI300A's 980.6 TFLOPS is not read as H100's 989.
constexpr double kPrintedPeakTolerance = 0.002;

double peakTolerance(const ReportedRun& run)
{
    return run.peakFromDevice ? kPrintedPeakTolerance : kPeakTolerance;
}

// FLOP per token in the unit that keeps three figures: "71.06 MFLOP", "57.91 GFLOP".
std::string flopText(double flop)
{
    return flop < 1e9 ? formatNumber(flop / 1e6, 2) + " MFLOP" : formatGflop(flop);
}

double perGpu(double value, StatedScope scope, int gpus)
{
    return scope == StatedScope::Cluster ? value / gpus : value;
}

struct ImpliedFlops {
    double flopsPerToken = 0;
    std::string how; // "its TFLOPS / tokens/s", ...
    bool perGpuFromWholeRun = false; // a whole run's figure divided by the GPU count: it scales with that count
};

// The FLOP/token the report's own figures imply, from the most direct pair it states.
std::optional<ImpliedFlops> impliedFlopsPerToken(const ReportedRun& run, const RunFacts& f)
{
    if (run.tokensPerSec && run.achievedFlops && *run.tokensPerSec > 0) {
        const double tps = perGpu(*run.tokensPerSec, run.tokensPerSecScope, run.gpus);
        const double flops = perGpu(*run.achievedFlops, run.achievedScope, run.gpus);
        return ImpliedFlops { flops / tps, "its " + formatTflopsValue(flops) + " TFLOPS / " + tok(tps) + " tokens/s" };
    }
    if (run.flopsPerToken)
        return ImpliedFlops { *run.flopsPerToken, "the FLOP/token it states" };
    // A log that prints TFLOPS and a step time but no tokens/s (Megatron's): the tokens a step over the step time
    // are its tokens/s. The step time is per iteration, so the tokens are the whole run's.
    if (run.achievedFlops && run.stepTimeSeconds && f.stepTokens && *run.stepTimeSeconds > 0 && *f.stepTokens > 0) {
        const double tps = *f.stepTokens / *run.stepTimeSeconds / run.gpus;
        const double flops = perGpu(*run.achievedFlops, run.achievedScope, run.gpus);
        return ImpliedFlops { flops / tps,
            "its " + formatTflopsValue(flops) + " TFLOPS / (" + tok(*f.stepTokens) + " tokens a step / "
                + formatNumber(*run.stepTimeSeconds, 3) + " s a step / " + std::to_string(run.gpus)
                + (run.gpus == 1 ? " GPU)" : " GPUs)"),
            true };
    }
    if (run.tokensPerSec && run.mfu && run.peakFlops && *run.tokensPerSec > 0) {
        const double tps = perGpu(*run.tokensPerSec, run.tokensPerSecScope, run.gpus);
        return ImpliedFlops { *run.mfu * *run.peakFlops / tps,
            "its MFU x its " + formatTflopsValue(*run.peakFlops) + " TFLOPS peak / " + tok(tps) + " tokens/s" };
    }
    return std::nullopt;
}

// The GPU counts at which a FLOP/token that scales with the count describes the model, when 1 was assumed: the
// range (the FLOP formulas differ by tens of percent, so several counts can), and the likeliest in it, a power of
// two, else a multiple of a node's 8, else the nearest to the ratio. Nullopt when no count from 2 does.
struct FittingGpuCounts {
    int likeliest = 0;
    int fewest = 0;
    int most = 0;
};

std::optional<FittingGpuCounts> gpuCountsThatFit(const ReportedRun& run, const RunFacts& f, const ImpliedFlops& implied)
{
    if (run.gpusStated || !implied.perGpuFromWholeRun || run.gpus != 1 || !(implied.flopsPerToken > 0))
        return std::nullopt;
    const double ratio = f.flopsCorrect / implied.flopsPerToken;
    if (!(ratio >= 1.5) || ratio > 1e6)
        return std::nullopt;
    std::optional<FittingGpuCounts> out;
    const auto score = [ratio](int k) {
        const bool powerOfTwo = (k & (k - 1)) == 0;
        return std::pair { powerOfTwo ? 0 : k % 8 == 0 ? 1 : 2, std::abs(k - ratio) };
    };
    for (int k = std::max(2, static_cast<int>(ratio / 2)); k <= static_cast<int>(ratio * 2) + 1; ++k) {
        if (!describesModel(*f.modelCounts, implied.flopsPerToken * k))
            continue;
        if (!out) {
            out = FittingGpuCounts { k, k, k };
            continue;
        }
        out->most = k;
        if (score(k) < score(out->likeliest))
            out->likeliest = k;
    }
    return out;
}

void modelMismatch(const ReportedRun& run, const RunFacts& f, RunDiagnosis& d)
{
    if (!run.model || !f.modelCounts)
        return;
    const auto implied = impliedFlopsPerToken(run, f);
    if (!implied || !(implied->flopsPerToken > 0) || !std::isfinite(implied->flopsPerToken))
        return;
    d.impliedFlopsPerToken = implied->flopsPerToken;
    d.impliedParams = implied->flopsPerToken / 6.0;
    if (describesModel(*f.modelCounts, implied->flopsPerToken)) {
        // The same model, counted with PaLM's full attention on every layer of a hybrid or windowed model: said as
        // a stated count is (checkFlopsPerToken), to the rounding of the figures that imply it.
        if (!run.flopsPerToken)
            if (auto palm = palmEveryLayerFinding(run, f, implied->flopsPerToken,
                    "The report's own figures (" + implied->how + ") imply " + formatGflop(implied->flopsPerToken),
                    kPeakTolerance))
                d.findings.push_back(std::move(*palm));
        return;
    }
    // 6 x a MoE's total parameters is the same model counted wrongly, not another model: said (once, when the stated
    // FLOP/token already said it), and the corrected MFU given.
    if (auto total = moeTotalParametersFinding(run, f, implied->flopsPerToken,
            "The report's own figures (" + implied->how + ") imply " + formatGflop(implied->flopsPerToken))) {
        const bool said = std::any_of(
            d.findings.begin(), d.findings.end(), [](const Finding& x) { return x.code == "moe_total_parameters"; });
        if (!said)
            d.findings.push_back(std::move(*total));
        return;
    }
    const std::string model = run.model->displayName();
    if (const auto gpus = gpuCountsThatFit(run, f, *implied)) {
        const std::string range = gpus->fewest == gpus->most ? std::string()
                                                             : " (any count from " + std::to_string(gpus->fewest)
                + " to " + std::to_string(gpus->most) + " would, by one FLOP formula or another)";
        d.withheld = "log_gpu_count_missing";
        d.findings.push_back({ "log_gpu_count_missing", "error",
            "The log states no GPU count and none was given, so 1 GPU was assumed: the report's own figures ("
                + implied->how + ") then imply " + flopText(implied->flopsPerToken) + "/token, where " + model
                + " counts " + flopText(f.flopsCorrect) + ". On " + std::to_string(gpus->likeliest)
                + " GPUs they describe it" + range
                + ". The corrected MFU is withheld: give the GPU count the run used.",
            { { "implied_flops_per_token", implied->flopsPerToken }, { "model_flops_per_token", f.flopsCorrect },
                { "gpu_count_that_fits", gpus->likeliest } } });
        return;
    }
    const double ratio = implied->flopsPerToken / f.flopsCorrect;
    const std::string factor = ratio < 1 ? formatNumber(1 / ratio, 1 / ratio < 10 ? 1 : 0) + " times fewer"
                                         : formatNumber(ratio, 1) + " times more";
    d.withheld = "log_model_mismatch";
    d.findings.push_back({ "log_model_mismatch", "error",
        "The report's own figures imply " + flopText(implied->flopsPerToken) + "/token (" + implied->how + "), "
            + factor + " than the " + flopText(f.flopsCorrect) + "/token " + model
            + " counts at this sequence length, beyond any FLOP formula's difference: they describe another model, "
              "of about "
            + formatParameters(*d.impliedParams)
            + " parameters by 6N. The corrected MFU is withheld: set the model the run trained (or its parameter "
              "count)"
            + (!run.gpusStated ? ", and the GPU count: the log states none and 1 was assumed." : "."),
        { { "implied_flops_per_token", implied->flopsPerToken }, { "model_flops_per_token", f.flopsCorrect },
            { "implied_params", *d.impliedParams }, { "ratio", ratio } } });
}

// The peak the report divided by, from its TFLOPS and MFU (per GPU), or as a logger that takes it from its own
// device printed it.
std::optional<double> impliedPeak(const ReportedRun& run)
{
    if (run.peakFlops && run.peakFromDevice)
        return run.peakFlops;
    if (run.peakFlops || !run.achievedFlops || !run.mfu || !(*run.mfu > 0))
        return std::nullopt; // a stated peak is checked as stated (findings_peak.cpp)
    return perGpu(*run.achievedFlops, run.achievedScope, run.gpus) / *run.mfu;
}

bool isOneOfThisGpusPeaks(double peak, const HardwareSpec& gpu, double tolerance)
{
    for (NumberFormat format : kPeakFormats) {
        if (const auto dense = gpu.densePeak(format); dense && agree(peak, *dense, tolerance))
            return true;
        if (const auto sparse = gpu.sparsePeak(format); sparse && agree(peak, *sparse, tolerance))
            return true;
    }
    return false;
}

void peakMismatch(const ReportedRun& run, const RunFacts& f, const std::vector<HardwareSpec>& known, RunDiagnosis& d)
{
    const auto peak = impliedPeak(run);
    if (!peak || !std::isfinite(*peak))
        return;
    d.impliedPeakFlops = *peak;
    const double tolerance = peakTolerance(run);
    if (isOneOfThisGpusPeaks(*peak, run.hardware, tolerance))
        return;
    // Where the figure comes from, as the sentences below begin with it.
    const std::string source = run.peakFromDevice
        ? "The peak the log prints for its device, " + formatTflopsValue(*peak) + " TFLOPS per GPU,"
        : "The report's TFLOPS / MFU = " + formatTflopsValue(*peak) + " TFLOPS per GPU";
    std::vector<const HardwareSpec*> others;
    const HardwareSpec* otherMemory = nullptr; // a GPU of that peak the log's device memory rules out
    for (const HardwareSpec* h : gpusOfDensePeak(*peak, known, tolerance))
        if (h->id != run.hardware.id) {
            if (run.deviceMemoryBytes && !deviceMemoryAgrees(*h, *run.deviceMemoryBytes))
                otherMemory = otherMemory ? otherMemory : h;
            else
                others.push_back(h);
        }
    if (others.empty() && otherMemory && agree(*peak, trace::kTorchtitanFallbackPeakFlops, tolerance)) {
        // torchtitan divides by the A100's 312 TFLOPS on a GPU it does not know: the peak names no GPU here.
        d.findings.push_back({ "log_peak_fallback", "warning",
            source + " is torchtitan's fallback peak (" + formatTflopsValue(trace::kTorchtitanFallbackPeakFlops)
                + " TFLOPS) for a GPU it does not know, not the " + otherMemory->name + "'s: the log's device has "
                + formatGiB(*run.deviceMemoryBytes) + " of memory, the " + otherMemory->name + " "
                + formatGiB(otherMemory->hbmBytes)
                + ". The log's own MFU is against that fallback, not its GPU's peak.",
            { { "implied_peak_tflops", *peak / 1e12 },
                { "device_memory_gib", *run.deviceMemoryBytes / (1024.0 * 1024.0 * 1024.0) } } });
        return;
    }
    if (others.empty())
        return;
    std::vector<std::string> otherNames;
    for (const HardwareSpec* h : others)
        otherNames.push_back(h->name);
    const std::string names = listInWords(otherNames, "or");
    const std::string gpu = run.hardware.displayName();
    // The MFU on that GPU counts with the model's FLOP/token: none when the figures describe another model
    // (modelMismatch ran first), or it would be a figure of the wrong model.
    const bool modelMatches = d.withheld != "log_model_mismatch";
    const double mfuThere = d.tokensPerSecPerGpu * f.flopsCorrect / *others.front()->mfuPeak();
    d.impliedGpuId = others.front()->id;
    if (!d.withheld)
        d.withheld = "log_peak_mismatch";
    std::map<std::string, double> figures { { "implied_peak_tflops", *peak / 1e12 },
        { "peak_dense_tflops_per_gpu", f.densePeak / 1e12 } };
    if (modelMatches)
        figures["corrected_mfu_on_implied_gpu"] = mfuThere;
    d.findings.push_back({ "log_peak_mismatch", "error",
        source + (run.peakFromDevice ? " is" : ":") + " the dense peak of the " + names + ", not the " + gpu + "'s "
            + formatTflopsValue(f.densePeak) + " TFLOPS. The run was most likely recorded on that GPU (torchtitan "
            + "divides by its own device's peak), while this diagnosis counts with the " + gpu
            + ". The corrected MFU is withheld: set the GPU"
            + (modelMatches ? " (on the " + others.front()->name + " it would be " + formatPercent(mfuThere) + ")"
                            : std::string(" and the model"))
            + "; if the logger divides by a fixed peak instead, its MFU is wrong.",
        std::move(figures) });
}

// The device memory the log establishes against the GPU the diagnosis counts with: a 14.6 GiB device is no B200,
// so its peak is not the one to divide by.
void memoryMismatch(const ReportedRun& run, RunDiagnosis& d)
{
    if (!run.deviceMemoryBytes || deviceMemoryAgrees(run.hardware, *run.deviceMemoryBytes))
        return;
    const std::string gpu = run.hardware.displayName();
    if (!d.withheld)
        d.withheld = "log_memory_mismatch";
    d.findings.push_back({ "log_memory_mismatch", "error",
        "The log's device has " + formatGiB(*run.deviceMemoryBytes)
            + " of memory (the memory it reports in use over its share), not the " + gpu + "'s "
            + formatGiB(run.hardware.hbmBytes)
            + ": the run was recorded on another GPU. The corrected MFU is withheld: set the GPU the run used.",
        { { "device_memory_gib", *run.deviceMemoryBytes / (1024.0 * 1024.0 * 1024.0) },
            { "gpu_memory_gib", run.hardware.hbmBytes / (1024.0 * 1024.0 * 1024.0) } } });
}

} // namespace

void checkOwnFigures(const ReportedRun& run, const RunFacts& f, const std::vector<HardwareSpec>& known, RunDiagnosis& d)
{
    modelMismatch(run, f, d);
    peakMismatch(run, f, known, d);
    memoryMismatch(run, d);
    // Once the figures say another model (or another GPU count), a step time held against the report's TFLOPS over
    // the model's FLOP/token disagrees because of that, not because it is wrong: "the other figures imply 149.68 s
    // per step" would point at the one right figure. So when no tokens/s is stated, or the stated one agrees with
    // the step time, that finding goes.
    const bool modelOrCountWrong
        = d.withheld && (*d.withheld == "log_model_mismatch" || *d.withheld == "log_gpu_count_missing");
    const auto stepAgreesWithTokensPerSec = [&run, &f] {
        if (!run.tokensPerSec || !run.stepTimeSeconds || !f.stepTokens || !(*run.stepTimeSeconds > 0))
            return false;
        const double fromStep = *f.stepTokens / *run.stepTimeSeconds / run.gpus;
        return agree(fromStep, perGpu(*run.tokensPerSec, run.tokensPerSecScope, run.gpus), kPeakTolerance);
    };
    if (modelOrCountWrong && (!run.tokensPerSec || stepAgreesWithTokensPerSec()))
        std::erase_if(d.findings, [](const Finding& x) { return x.code == "step_time_inconsistent"; });
}

} // namespace mfu::diagnosis_detail
