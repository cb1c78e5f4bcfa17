#include "core/facts/file_facts.h"

#include <algorithm>
#include <cmath>

#include "core/costmodel/attention_kernels.h"
#include "core/logs/training_log.h"
#include "core/model/flops.h"
#include "core/model/mfu.h"
#include "core/model/param_count.h"
#include "core/number_format.h"
#include "core/presets/gpu_match.h"
#include "core/relative_gap.h"
#include "core/scenario/scenario_facts.h"
#include "core/trace/analysis.h"
#include "core/trace/attention_implementation.h"
#include "core/trace/step_work.h"
#include "core/trace/trace_facts.h"

namespace mfu {

namespace {

// A size the window can offer as the scenario's model: a bare model takes 1 to 10^15 parameters, and a file that
// implies more (a log's TFLOPS against a tiny tokens/s) still shows the difference, with nothing to adopt.
std::optional<double> proposableModelSize(double params)
{
    if (params >= 1 && params <= static_cast<double>(kMaxBareModelParams))
        return params;
    return std::nullopt;
}

std::string upper(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        if (c >= 'a' && c <= 'z')
            c = static_cast<char>(c - 'a' + 'A');
    return out;
}

// The trace's matrix work per step against the scenario model's per GPU (its MFU formula's FLOP/token x the tokens per
// step / the GPUs): the sentence when they are more than kSameRunMatrixWorkFactor apart.
std::optional<std::string> matrixWorkMismatch(const FileFacts& file, const Scenario& s, double scenarioTokensPerStep)
{
    if (!file.matrixFlopsPerStepPerGpu || !(*file.matrixFlopsPerStepPerGpu > 0) || !(scenarioTokensPerStep > 0)
        || s.cluster.gpuCount < 1)
        return std::nullopt;
    double perToken = 0;
    try {
        perToken = scenarioFlopsPerToken(s);
    } catch (const std::exception&) {
        return std::nullopt; // no model to compare with: said elsewhere
    }
    if (!(perToken > 0))
        return std::nullopt;
    const double traced = *file.matrixFlopsPerStepPerGpu;
    const double modelled = perToken * scenarioTokensPerStep / s.cluster.gpuCount;
    const double ratio = modelled / traced;
    if (ratio <= kSameRunMatrixWorkFactor && ratio >= 1.0 / kSameRunMatrixWorkFactor)
        return std::nullopt;
    const std::string factor = ratio >= 1 ? formatNumber(ratio, ratio < 10 ? 1 : 0) + "x more"
                                          : formatNumber(1 / ratio, ratio > 0.1 ? 1 : 0) + "x less";
    return "the trace's operators did " + formatNumber(traced / 1e12, 2) + " TFLOP of matrix work a step per GPU, "
        + "where the scenario's " + s.model.displayName() + " at " + formatNumber(scenarioTokensPerStep)
        + " tokens per step on " + formatCount(s.cluster.gpuCount, "GPU") + " does " + formatNumber(modelled / 1e12, 2)
        + " (" + factor + "): the trace is not a step of this model and batch";
}

std::string billions(double params)
{
    return formatNumber(params / 1e9, 2) + " B parameters";
}

// A log that names no GPU but divided by a peak: the scenario's GPU when it is its dense peak (within the 3% the
// log's rounding allows), else the preset whose dense peak is nearest to it and whose memory the log's device can have,
// proposed in its place. A peak that only GPUs of another memory have is no GPU's: said, not proposed.
void checkImpliedGpu(double peak, std::optional<double> memory, const HardwareSpec& scenarioGpu,
    const std::vector<HardwareSpec>& known, FactsCheck& c)
{
    const auto fits = [memory](const HardwareSpec& h) { return !memory || deviceMemoryAgrees(h, *memory); };
    if (const auto own = scenarioGpu.mfuPeak(); own && agreeWithin(peak, *own, 0.03) && fits(scenarioGpu))
        return;
    const HardwareSpec* refused = nullptr;
    for (const HardwareSpec* h : gpusOfDensePeak(peak, known, 0.03)) {
        if (!fits(*h)) {
            refused = refused ? refused : h;
            continue;
        }
        c.gpuDiffers = true;
        c.hardwarePresetId = h->id;
        c.differences.push_back({ Fact::Gpu,
            h->displayName() + " (its TFLOPS / MFU is that GPU's " + formatNumber(*h->mfuPeak() / 1e12, 0)
                + " TFLOPS peak)",
            scenarioGpu.displayName() });
        return;
    }
    if (refused && memory) {
        const std::string tflops = formatNumber(peak / 1e12, 0) + " TFLOPS";
        const std::string device = "its device has " + formatGiB(*memory) + " of memory, not the "
            + refused->displayName() + "'s " + formatGiB(refused->hbmBytes);
        c.impliedGpuRefused = agreeWithin(peak, trace::kTorchtitanFallbackPeakFlops, 0.03)
            ? "Its TFLOPS / MFU, " + tflops + ", is torchtitan's fallback peak ("
                + formatNumber(trace::kTorchtitanFallbackPeakFlops / 1e12, 0)
                + " TFLOPS) for a GPU it does not know: " + device + "."
            : "Its TFLOPS / MFU, " + tflops + ", is the " + refused->displayName() + "'s peak, but " + device + ".";
    }
}

} // namespace

FileFacts factsFromTrace(const trace::RunAnalysis& run)
{
    FileFacts f;
    for (const auto& r : run.ranks) {
        if (!f.gpuName && r.gpuName && !r.gpuName->empty())
            f.gpuName = r.gpuName;
        if (!f.gpuCount && r.worldSize && *r.worldSize > 0)
            f.gpuCount = r.worldSize;
    }
    if (!f.gpuCount && run.ranks.size() > 1)
        f.gpuCount = static_cast<int>(run.ranks.size());
    // One process in no process group (no distributedInfo) ran on one GPU: its embedding lookups' tokens are the
    // whole run's. Compared with a scenario of 1,024 GPUs, the trace's one-GPU tokens per step were offered as that
    // cluster's global batch; the GPU count now differs with them, and adopting takes both.
    if (!f.gpuCount && run.ranks.size() == 1)
        f.gpuCount = 1;
    // The precision its matrix operators ran in, when it recorded shapes: FP8 or FP4 linear layers when together they
    // do a tenth of the matrix work or more (FP4 when it does more of it than FP8), else the 16-bit mode (BF16, or
    // FP16 on a GPU without BF16).
    double all = 0, eightBit = 0, fourBit = 0;
    for (const auto& r : run.ranks)
        for (const auto& p : r.opFlops.byPrecision) {
            all += p.flops;
            if (p.known && p.precision.format == NumberFormat::FP8)
                eightBit += p.flops;
            if (p.known && p.precision.format == NumberFormat::FP4)
                fourBit += p.flops;
        }
    if (all > 0)
        f.precision = eightBit + fourBit < 0.1 * all ? TrainingPrecision::BF16
            : fourBit > eightBit                     ? TrainingPrecision::BF16_FP4
                                                     : TrainingPrecision::BF16_FP8;
    const trace::TraceFacts recorded = trace::traceFacts(run);
    if (recorded.tokensPerStep)
        f.tokensPerStep = recorded.tokensPerStep;
    if (recorded.tokens && recorded.tokens->seqLen > 0) {
        f.seqLen = recorded.tokens->seqLen;
        f.microBatch = recorded.tokens->microBatch;
    }
    if (recorded.execution)
        f.compiled = recorded.execution->compiled;
    f.autocast = recorded.autocast;
    if (f.tokensPerStep && run.meanStepSeconds > 0)
        f.tokensPerSecPerGpu = *f.tokensPerStep / run.meanStepSeconds / std::max(1, f.gpuCount.value_or(1));
    // Ranks whose recorded shapes reach at least 80% of their GEMM and attention kernels' time: a CUDA graph's
    // replay or operators without shapes would make the work look smaller than it was.
    double work = 0;
    int ranksWithWork = 0;
    for (const auto& r : run.ranks) {
        const double perStep = trace::stepMatrixWork(r).flopsPerStep;
        if (perStep > 0 && r.opFlops.shapesReachMatrixKernels()) {
            work += perStep;
            ++ranksWithWork;
        }
    }
    if (ranksWithWork > 0)
        f.matrixFlopsPerStepPerGpu = work / ranksWithWork;
    for (const auto& r : run.ranks)
        if (r.attention && !f.attentionRan) {
            f.attentionRan = std::string(trace::attentionImplementationLabel(r.attention->implementation));
            f.attentionKernel = trace::attentionKernelFor(r.attention->implementation);
        }
    return f;
}

FileFacts factsFromLog(const trace::LogFacts& facts)
{
    return factsFromLog(facts, trace::LogSummary {});
}

FileFacts factsFromLog(const trace::LogFacts& facts, const trace::LogSummary& summary)
{
    FileFacts f;
    if (facts.device && !facts.device->empty())
        f.gpuName = facts.device;
    else if (summary.medianTflops && summary.medianMfu && *summary.medianMfu > 0 && !summary.medianPeakTflops)
        f.impliedPeakFlops = *summary.medianTflops * 1e12 / *summary.medianMfu;
    if (summary.medianTflops && summary.medianTokensPerSec && *summary.medianTokensPerSec > 0)
        f.impliedFlopsPerToken = *summary.medianTflops * 1e12 / *summary.medianTokensPerSec;
    if (facts.gpus && *facts.gpus > 0)
        f.gpuCount = facts.gpus;
    if (facts.seqLen && *facts.seqLen > 0)
        f.seqLen = facts.seqLen;
    if (facts.tokensPerStep && *facts.tokensPerStep > 0)
        f.tokensPerStep = facts.tokensPerStep;
    else if (facts.globalBatchSamples && f.seqLen) // Megatron: --global-batch-size sequences of --seq-length
        f.tokensPerStep = static_cast<double>(*facts.globalBatchSamples) * static_cast<double>(*f.seqLen);
    if (facts.modelParams && *facts.modelParams > 0)
        f.modelParams = facts.modelParams;
    f.deviceMemoryBytes = facts.deviceMemoryBytes;
    return f;
}

std::string factLabel(Fact fact)
{
    switch (fact) {
    case Fact::Gpu:
        return "GPU";
    case Fact::GpuCount:
        return "GPU count";
    case Fact::TokensPerStep:
        return "tokens per step";
    case Fact::SeqLen:
        return "sequence length";
    case Fact::ModelSize:
        return "model size";
    case Fact::Precision:
        return "precision";
    case Fact::AttentionKernel:
        return "attention kernel";
    case Fact::Compiled:
        return "eager or compiled";
    case Fact::Autocast:
        return "weights";
    case Fact::DeviceMemory:
        return "device memory";
    case Fact::Throughput:
        return "measured throughput";
    }
    return "fact";
}

std::string weightsLabel(bool autocast)
{
    return autocast ? "FP32 under autocast" : "16-bit";
}

std::string weightsPhrase(bool autocast)
{
    return autocast ? "FP32 weights under autocast" : "16-bit weights";
}

std::optional<AsTraced> scenarioAsTraced(const Scenario& s, const FileFacts& file)
{
    AsTraced out { s, {}, {} };
    const auto add = [&out](const std::string& traced, const std::string& scenario) {
        out.how += (out.how.empty() ? "" : ", ") + traced;
        out.scenarioHow += (out.scenarioHow.empty() ? "" : ", ") + scenario;
    };
    if (file.compiled && *file.compiled != s.flags.compiled) {
        out.scenario.flags.compiled = *file.compiled;
        add(trace::executionModeLabel(*file.compiled), trace::executionModeLabel(s.flags.compiled));
    }
    if (file.autocast && *file.autocast != s.flags.autocast) {
        out.scenario.flags.autocast = *file.autocast;
        add(weightsPhrase(*file.autocast), weightsPhrase(s.flags.autocast));
    }
    if (out.how.empty())
        return std::nullopt;
    return out;
}

std::string attentionKernelLabel(AttentionKernel kernel)
{
    switch (kernel) {
    case AttentionKernel::Auto:
        return "the best the GPU has";
    case AttentionKernel::FlashAttention3:
        return "FlashAttention 3";
    case AttentionKernel::FlashAttention2:
        return "FlashAttention 2";
    case AttentionKernel::FlashAttention1:
        return "FlashAttention 1";
    case AttentionKernel::Cudnn:
        return "cuDNN SDPA";
    case AttentionKernel::Unfused:
        return "unfused (math) attention";
    }
    return "attention";
}

FactsCheck checkFileGpu(const FileFacts& file, const HardwareSpec& hw, const std::vector<HardwareSpec>& hardware)
{
    FactsCheck c;
    if (file.gpuName) {
        c.gpuRecorded = true;
        const GpuMatch match = matchGpuName(*file.gpuName, hardware);
        c.hardwarePresetId = match.presetId;
        if (match.presetId)
            c.gpuDiffers = *match.presetId != hw.id;
        else if (match.ambiguous())
            c.gpuDiffers = std::find(match.candidates.begin(), match.candidates.end(), hw.id) == match.candidates.end();
        else
            c.gpuDiffers = hw.id.empty() || upper(*file.gpuName).find(upper(hw.id)) == std::string::npos;
        if (c.gpuDiffers)
            c.differences.push_back({ Fact::Gpu, *file.gpuName, hw.displayName() });
    }
    if (!file.gpuName && file.impliedPeakFlops)
        checkImpliedGpu(*file.impliedPeakFlops, file.deviceMemoryBytes, hw, hardware, c);
    return c;
}

FactsCheck checkFacts(
    const FileFacts& file, const Scenario& s, double scenarioTokensPerStep, const std::vector<HardwareSpec>& hardware)
{
    FactsCheck c = checkFileGpu(file, s.cluster.hardware, hardware);
    const HardwareSpec& hw = s.cluster.hardware;
    // The device's memory, when the log establishes it and the scenario's GPU (or the one proposed) cannot have it.
    if (file.deviceMemoryBytes) {
        const HardwareSpec* gpu = &hw;
        for (const HardwareSpec& h : hardware)
            if (c.gpuDiffers && c.hardwarePresetId && h.id == *c.hardwarePresetId)
                gpu = &h;
        if (!deviceMemoryAgrees(*gpu, *file.deviceMemoryBytes))
            c.differences.push_back({ Fact::DeviceMemory, formatGiB(*file.deviceMemoryBytes),
                formatGiB(gpu->hbmBytes) + " (" + gpu->displayName() + ")" });
    }
    if (file.gpuCount && *file.gpuCount != s.cluster.gpuCount)
        c.differences.push_back({ Fact::GpuCount, formatNumber(*file.gpuCount), formatNumber(s.cluster.gpuCount) });
    if (file.tokensPerStep && !agreeWithin(*file.tokensPerStep, scenarioTokensPerStep, 0.005))
        c.differences.push_back(
            { Fact::TokensPerStep, formatNumber(*file.tokensPerStep), formatNumber(scenarioTokensPerStep) });
    if (file.tokensPerSecPerGpu) {
        const double stated = s.measuredThroughput ? tokensPerSecPerGpu(*s.measuredThroughput, s.cluster.gpuCount) : 0;
        if (!agreeWithin(*file.tokensPerSecPerGpu, stated, 0.005))
            c.differences.push_back({ Fact::Throughput, formatNumber(*file.tokensPerSecPerGpu, 0) + " tokens/s per GPU",
                stated > 0 ? formatNumber(stated, 0) + " tokens/s per GPU" : std::string("none") });
    }
    if (file.seqLen && *file.seqLen != s.workload.seqLen)
        c.differences.push_back({ Fact::SeqLen, formatNumber(static_cast<double>(*file.seqLen)),
            formatNumber(static_cast<double>(s.workload.seqLen)) });
    if (file.modelParams) {
        double scenarioParams = 0;
        try {
            scenarioParams = static_cast<double>(countParameters(s.model).total);
        } catch (const std::exception&) {
            scenarioParams = 0; // a model without an architecture: its size cannot be compared, so it differs
        }
        if (!(scenarioParams > 0) || !agreeWithin(*file.modelParams, scenarioParams, 0.10)) {
            c.proposedModelParams = proposableModelSize(*file.modelParams);
            c.differences.push_back({ Fact::ModelSize, billions(*file.modelParams),
                scenarioParams > 0 ? billions(scenarioParams) : std::string("unknown") });
        }
    } else if (file.impliedFlopsPerToken && *file.impliedFlopsPerToken > 0) {
        // The log's TFLOPS / tokens/s against every formula of the scenario's model: another model when it is far
        // from all of them (a bare count answers 6N).
        bool describes = false;
        try {
            describes = describesModel(
                countFlopsPerToken(s.model, s.workload.seqLen, s.workload.packing), *file.impliedFlopsPerToken);
        } catch (const std::exception&) {
            describes = false;
        }
        if (!describes) {
            const double params = *file.impliedFlopsPerToken / 6.0;
            c.proposedModelParams = proposableModelSize(params);
            c.differences.push_back({ Fact::ModelSize,
                "about " + billions(params) + " (" + formatGflop(*file.impliedFlopsPerToken)
                    + "/token by its TFLOPS and tokens/s)",
                billions(static_cast<double>(countParameters(s.model).total)) });
        }
    }
    if (file.precision && *file.precision != s.precision)
        c.differences.push_back({ Fact::Precision, trainingPrecisionLabel(*file.precision, s.cluster.hardware),
            trainingPrecisionLabel(s.precision, s.cluster.hardware) });
    if (file.attentionKernel) {
        // On the GPU the scenario will have once it adopts the file's: one click, not two.
        const HardwareSpec* gpu = &s.cluster.hardware;
        for (const HardwareSpec& h : hardware)
            if (c.gpuDiffers && c.hardwarePresetId && h.id == *c.hardwarePresetId)
                gpu = &h;
        const AttentionKernel resolved = resolveAttentionKernel(s.flags.attentionKernel, acceleratorFamilyOf(*gpu));
        if (resolved != *file.attentionKernel)
            c.differences.push_back(
                { Fact::AttentionKernel, attentionKernelLabel(*file.attentionKernel), attentionKernelLabel(resolved) });
    }
    if (file.compiled && *file.compiled != s.flags.compiled)
        c.differences.push_back(
            { Fact::Compiled, trace::executionModeLabel(*file.compiled), trace::executionModeLabel(s.flags.compiled) });
    if (file.autocast && *file.autocast != s.flags.autocast)
        c.differences.push_back({ Fact::Autocast, weightsLabel(*file.autocast), weightsLabel(s.flags.autocast) });
    c.workMismatch = matrixWorkMismatch(file, s, scenarioTokensPerStep);
    return c;
}

std::string factDifferencesText(const std::vector<FactDifference>& differences, bool (*include)(Fact))
{
    std::string text;
    for (const FactDifference& d : differences)
        if (!include || include(d.fact))
            text += (text.empty() ? "" : ", ") + factLabel(d.fact) + " " + d.inFile + " in the file vs " + d.inScenario
                + " in the scenario";
    return text;
}

std::optional<std::string> measuredMfuWithheld(const FactsCheck& check, double mfu)
{
    if (check.gpuDiffers)
        for (const auto& d : check.differences)
            if (d.fact == Fact::Gpu)
                return "the file ran on " + d.inFile + " but the scenario's GPU is " + d.inScenario
                    + ": its peak does not apply";
    if (check.workMismatch)
        return check.workMismatch;
    if (!(mfu <= 1.0)) {
        std::string why = "above 100% (" + formatPercent(mfu) + ")";
        if (check.differences.empty())
            return why + ": the scenario's model or tokens per step do not describe this run";
        return why + ": " + factDifferencesText(check.differences);
    }
    return std::nullopt;
}

} // namespace mfu
