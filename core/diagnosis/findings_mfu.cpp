// The MFU a report states (its arithmetic, attention over the packing length, above 100%), the FP8 peak of a
// BF16+FP8 run, and the closing finding: the corrected MFU, or why no reading of the figures fits the GPU.
#include "core/diagnosis/diagnosis_findings.h"
#include "core/model/mfu.h"
#include "core/number_format.h"

namespace mfu::diagnosis_detail {

namespace {

void mfuArithmetic(const ReportedRun& run, RunDiagnosis& d)
{
    if (!run.mfu || !run.achievedFlops || !run.peakFlops || agree(*run.mfu, *run.achievedFlops / *run.peakFlops, 0.02))
        return;
    d.findings.push_back({ "mfu_arithmetic", "warning",
        "The stated MFU " + formatPercent(*run.mfu) + " is not " + formatTflopsValue(*run.achievedFlops) + " / "
            + formatTflopsValue(*run.peakFlops) + " TFLOPS = " + formatPercent(*run.achievedFlops / *run.peakFlops)
            + ".",
        { { "stated_mfu", *run.mfu } } });
}

// A stated MFU (without a stated FLOP/token) that only the packing-length count explains.
void mfuOverPackingLength(const ReportedRun& run, const RunFacts& f, const Witness& chosen, RunDiagnosis& d)
{
    if (!run.mfu || run.flopsPerToken || !f.flopsOverPackingLength || !(d.peakFlopsPerGpu > 0))
        return;
    const double useful = chosen.perGpu * usefulTokenFraction(run.packing);
    const double naiveMfu = mfuAt(*f.flopsOverPackingLength, useful, d.peakFlopsPerGpu);
    const double rightMfu = mfuAt(f.flopsCorrect, useful, d.peakFlopsPerGpu);
    if (!agree(*run.mfu, naiveMfu, 0.03) || agree(*run.mfu, rightMfu, 0.03))
        return;
    const double naive = *f.flopsOverPackingLength;
    d.findings.push_back({ "attention_counted_over_packing_length", "error",
        "The stated MFU of " + formatPercent(*run.mfu)
            + " counts attention over the packing length (12LHQS with S = the packed sequence, " + formatGflop(naive)
            + "/token), but each token attends only within its own document: with per-document masking the "
              "attention term runs over sum(d^2)/sum(d) = "
            + formatNumber(f.effectiveAttentionLength, 0) + " tokens, which gives " + formatGflop(f.flopsCorrect)
            + "/token. FLOP/token, and MFU, are overstated " + formatNumber(naive / f.flopsCorrect, 2)
            + "x. Corrected MFU: " + formatPercent(rightMfu) + ".",
        { { "flops_per_token_over_packing_length", naive }, { "corrected_flops_per_token", f.flopsCorrect },
            { "effective_attention_length", f.effectiveAttentionLength }, { "stated_mfu", *run.mfu },
            { "corrected_mfu", rightMfu } } });
}

// MFU is against the BF16 peak, so a BF16+FP8 or BF16+FP4 run may pass 100% up to its own peak (mfuCeiling).
void mfuAbove100(const ReportedRun& run, const RunFacts& f, RunDiagnosis& d)
{
    const bool stated = run.mfu && *run.mfu > f.mfuCeiling;
    if (!stated && !(d.hasCorrectedMfu() && d.mfu > f.mfuCeiling))
        return;
    d.findings.push_back({ "mfu_above_100", "error",
        "MFU above " + mfuCeilingText(f.mfuCeiling, run.precision) + " is impossible: "
            + (stated ? "the report states " + formatPercent(*run.mfu) : "the figures imply " + formatPercent(d.mfu))
            + ". Look for a sparse or wrong-GPU peak, or a throughput counted on the wrong scope.",
        { { "mfu", d.mfu } } });
}

std::string formulaInWords(const std::string& key)
{
    if (key == "stated")
        return "as stated";
    if (const auto f = flopFormulaFromKey(key))
        return std::string(flopFormulaLabel(*f));
    return key;
}

} // namespace

void checkPrecision(const ReportedRun& run, RunDiagnosis& d)
{
    const bool fp8 = run.precision == TrainingPrecision::BF16_FP8;
    if (!fp8 && run.precision != TrainingPrecision::BF16_FP4)
        return;
    if (const auto peak = linearLayerPeakFlops(run.hardware, run.precision)) {
        (fp8 ? d.fp8PeakFlopsPerGpu : d.fp4PeakFlopsPerGpu) = *peak;
        (fp8 ? d.mfuVsFp8Peak : d.mfuVsFp4Peak) = d.achievedFlopsPerGpu / *peak;
        return;
    }
    const std::string format = fp8 ? "FP8" : "FP4";
    d.findings.push_back({ fp8 ? "fp8_without_fp8_peak" : "fp4_without_fp4_peak", "warning",
        "The run is stated as BF16+" + format + ", but " + run.hardware.name + " has no dense " + format + " peak (no "
            + format + " tensor cores): its matmuls ran in " + (fp8 ? "16 bits" : "a wider format")
            + ". MFU is against the " + std::string(numberFormatLabel(run.hardware.mfuPeakFormat()))
            + " peak either way.",
        {} });
}

void checkStatedMfu(const ReportedRun& run, const RunFacts& f, const Witness& chosen, RunDiagnosis& d)
{
    mfuArithmetic(run, d);
    mfuOverPackingLength(run, f, chosen, d);
    mfuAbove100(run, f, d);
}

std::optional<Finding> conclusion(const ReportedRun& run, const RunFacts& f, const RunDiagnosis& d)
{
    if (!d.consistent) {
        std::map<std::string, double> bound { { "max_tokens_per_sec_per_gpu", f.maxPerGpu },
            { "peak_dense_tflops_per_gpu", f.densePeak / 1e12 }, { "flops_per_token", f.flopsCorrect } };
        if (f.mfuCeiling > 1.0)
            bound["bound_peak_dense_tflops_per_gpu"] = f.boundPeak / 1e12;
        if (run.mfu)
            bound["stated_mfu"] = *run.mfu;
        return Finding { "no_consistent_reading", "error",
            "No consistent reading of the figures fits the " + run.hardware.displayName() + ": at "
                + formatGflop(f.flopsCorrect) + "/token its dense " + f.boundPeakPrecision + " peak of "
                + formatTflopsValue(f.boundPeak) + " TFLOPS allows at most " + tok(f.maxPerGpu) + " tokens/s per GPU ("
                + formatPercent(f.mfuCeiling) + " MFU), and every stated "
                + "throughput needs more. There is no corrected MFU; check the GPU, the GPU count and the model.",
            bound };
    }
    if (d.withheld)
        return std::nullopt;
    // "Corrected" only where there is a stated MFU this figure departs from; a run that states none, or states
    // this one, gets its MFU checked, not corrected.
    const bool corrects = run.mfu && !agree(*run.mfu, d.mfu, 0.03);
    std::string summary = std::string(corrects ? "Corrected MFU: " : "MFU from the figures: ")
        + tok(d.tokensPerSecPerGpu) + " tokens/s per GPU x " + formatGflop(f.flopsCorrect) + "/token ("
        + formulaInWords(f.formula) + ") = " + formatTflopsValue(d.achievedFlopsPerGpu) + " TFLOPS per GPU / "
        + formatTflopsValue(f.densePeak) + " TFLOPS dense " + f.peakPrecision + " = " + formatPercent(d.mfu) + ".";
    if (d.mfuVsFp8Peak)
        summary += " Against the dense FP8 peak of " + formatTflopsValue(*d.fp8PeakFlopsPerGpu)
            + " TFLOPS (BF16+FP8 run): " + formatPercent(*d.mfuVsFp8Peak) + ".";
    if (d.mfuVsFp4Peak)
        summary += " Against the dense FP4 peak of " + formatTflopsValue(*d.fp4PeakFlopsPerGpu)
            + " TFLOPS (BF16+FP4 run): " + formatPercent(*d.mfuVsFp4Peak) + ".";
    if (d.mfuWithStatedFlops)
        summary += " With the report's own " + formatGflop(*run.flopsPerToken)
            + "/token: " + formatPercent(*d.mfuWithStatedFlops) + ".";
    if (run.mfu)
        summary += " The report said " + formatPercent(*run.mfu) + (corrects ? "." : ": it holds.");
    std::map<std::string, double> figures { { "corrected_mfu", d.mfu },
        { "tokens_per_sec_per_gpu", d.tokensPerSecPerGpu }, { "achieved_tflops_per_gpu", d.achievedFlopsPerGpu / 1e12 },
        { "dense_peak_tflops_per_gpu", f.densePeak / 1e12 }, { "peak_dense_tflops_per_gpu", f.densePeak / 1e12 },
        { "flops_per_token", f.flopsCorrect } };
    if (d.mfuVsFp8Peak) {
        figures["mfu_vs_fp8_peak"] = *d.mfuVsFp8Peak;
        figures["peak_dense_fp8_tflops_per_gpu"] = *d.fp8PeakFlopsPerGpu / 1e12;
    }
    if (d.mfuVsFp4Peak) {
        figures["mfu_vs_fp4_peak"] = *d.mfuVsFp4Peak;
        figures["peak_dense_fp4_tflops_per_gpu"] = *d.fp4PeakFlopsPerGpu / 1e12;
    }
    if (run.mfu)
        figures["stated_mfu"] = *run.mfu;
    if (d.mfuWithStatedFlops)
        figures["mfu_with_stated_flops_per_token"] = *d.mfuWithStatedFlops;
    return Finding { "corrected_mfu", "info", summary, figures };
}

} // namespace mfu::diagnosis_detail
