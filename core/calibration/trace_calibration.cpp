#include "core/calibration/trace_calibration.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "core/calibration/shape_bins.h"
#include "core/costmodel/cost_model.h"
#include "core/costmodel/physical_bounds.h"
#include "core/errors.h"
#include "core/model/flops.h"
#include "core/number_format.h"
#include "core/presets/gpu_match.h"
#include "core/scenario/scenario_facts.h"
#include "core/text.h"
#include "core/trace/analysis.h"
#include "core/trace/collective_sizes.h"
#include "core/trace/kernel_category.h"
#include "core/trace/trace_flops.h"

namespace mfu {

namespace {

using trace::KernelCategory;

// A term shorter than this per step (or under 0.5% of the step) is noise to fit a factor on: left at 1.
constexpr double kMinFitSeconds = 1e-4;
constexpr double kMinFitShare = 0.005;

CalibratedTerm termOfCategory(KernelCategory c)
{
    switch (c) {
    case KernelCategory::Gemm:
        return CalibratedTerm::Matmul;
    case KernelCategory::AttentionFwd:
    case KernelCategory::AttentionBwd:
        return CalibratedTerm::Attention;
    case KernelCategory::CommAllReduce:
    case KernelCategory::CommAllGather:
    case KernelCategory::CommReduceScatter:
    case KernelCategory::CommAllToAll:
    case KernelCategory::CommSendRecv:
    case KernelCategory::CommBroadcast:
    case KernelCategory::CommOther:
        return CalibratedTerm::Communication;
    case KernelCategory::Elementwise:
    case KernelCategory::Normalization:
    case KernelCategory::SoftmaxLoss:
    case KernelCategory::Optimizer:
    case KernelCategory::Memcpy:
    case KernelCategory::Memset:
    case KernelCategory::Other:
        return CalibratedTerm::MemoryBound;
    }
    return CalibratedTerm::MemoryBound;
}

size_t index(CalibratedTerm t)
{
    return static_cast<size_t>(t);
}

} // namespace

// The model's time for each term of a prediction, as the trace's categories see it.
std::array<double, 5> predictedTermSeconds(const StepPrediction& p)
{
    std::array<double, 5> out {};
    out[index(CalibratedTerm::Matmul)] = p.time.matmul + p.time.recompute;
    out[index(CalibratedTerm::Attention)] = p.time.attention;
    out[index(CalibratedTerm::MemoryBound)] = p.time.memoryBound;
    out[index(CalibratedTerm::Communication)] = p.time.exposedCommTotal();
    out[index(CalibratedTerm::Overhead)] = p.time.overhead;
    return out;
}

namespace {

// Whether any rank's trace holds a collective (its communication time, core/trace/breakdown.h): a rank of a
// multi-GPU run waits on one every step (its gradients at least), a lone GPU never does.
bool recordsACollective(const trace::RunAnalysis& run)
{
    return std::any_of(run.ranks.begin(), run.ranks.end(),
        [](const trace::RankAnalysis& r) { return r.total.commNs > 0 || !r.collectives.empty(); });
}

// The traced run's GPU count against the scenario's. A trace of one GPU calibrated as one rank of eight fits its
// factors to the wrong prediction: the lone GPU's GEMMs run at its own constants (runsAsLoneGpu), so the matmul
// factor took in that difference (0.70 where the same trace as the one GPU it ran on gives 0.95), and the
// collectives the model predicts were never there to fit.
void checkTraceGpuCount(const Scenario& s, const trace::RunAnalysis& run)
{
    const int gpus = s.cluster.gpuCount;
    for (const trace::RankAnalysis& r : run.ranks)
        if (r.worldSize && *r.worldSize > 0 && *r.worldSize != gpus)
            throw InputError("the trace ran on " + formatNumber(*r.worldSize) + " GPUs (the world size " + r.sourceFile
                + " records), the scenario on " + formatNumber(gpus) + ": set the traced run's GPU count (--gpus "
                + std::to_string(*r.worldSize)
                + " on the command line), then predict other counts with the calibration");
    if (gpus > 1 && run.gpuCount() == 1 && !recordsACollective(run))
        throw InputError("the trace records one GPU (no world size, no collective), the scenario " + formatNumber(gpus)
            + " GPUs: calibrate as the run that was traced (--gpus 1 on the command line), then predict "
            + formatNumber(gpus) + " GPUs with the calibration (what the trace never saw is said to be extrapolated)");
}

// The sequence the traced attention ran over against the scenario's: `--seq 2048 --micro-batch 16` describes as
// many tokens a step as the trace's 4,096 x 8, passed the token check, and fitted an attention factor of 1.74 to
// the wrong work. Longer keys than the scenario's sequence are another run; shorter ones are too, where every layer
// the scenario has of full attention would see the whole sequence (no CP split, no chunked or windowed kernel).
void checkTracedSequence(const Scenario& s, const std::vector<AttentionShapeBin>& shapes)
{
    double longest = 0;
    for (const AttentionShapeBin& b : shapes)
        longest = std::max(longest, b.seqK);
    if (longest <= 0)
        return;
    const auto seq = static_cast<double>(s.workload.seqLen);
    bool fullAttention = true;
    for (const LayerRun& run : layerRuns(s.model))
        fullAttention = fullAttention && run.kind.tokenMixer == TokenMixer::FullAttention;
    const bool wholeSequence = fullAttention && s.parallelism.cp == 1;
    if (longest > seq || (wholeSequence && longest < seq))
        throw InputError("the trace's attention ran over sequences of " + formatNumber(longest)
            + " tokens, the scenario's sequence is " + formatNumber(seq)
            + ": set the traced run's sequence length and micro-batch (--seq, --micro-batch on the command line)");
}

// The weights the traced matrices read against the scenario's (core/trace/weight_casts.h). A trace that cast FP32
// weights to 16 bits every step ran under torch.autocast: calibrated as a 16-bit run, its memory-bound factor took
// in the casts and the FP32 traffic around them (2.92 on the PyTorch 2.11 H200 trace, about 1.0 as run) and
// carried them into every scenario. The other way, the factor would take out costs the run never had.
void checkTracedWeights(const Scenario& s, const trace::RunAnalysis& run)
{
    const trace::TraceFacts facts = trace::traceFacts(run);
    if (!facts.autocast || *facts.autocast == s.flags.autocast || !facts.casts)
        return;
    const trace::Fp32MatrixCasts& c = *facts.casts;
    if (*facts.autocast)
        throw InputError("the trace casts FP32 weights to 16 bits every step (" + formatNumber(c.perStep)
            + " matrices a step, such as " + formatNumber(static_cast<double>(c.rows)) + " x "
            + formatNumber(static_cast<double>(c.columns))
            + "): it ran under torch.autocast over FP32 weights; calibrate as it ran: turn on torch.autocast "
              "(FP32 weights), or give --autocast on the command line");
    throw InputError("the trace records its casts and casts no FP32 weight to 16 bits, where autocast over FP32 "
                     "weights casts every one each step: its weights were 16-bit; calibrate as it ran: turn off "
                     "torch.autocast (FP32 weights), or leave out --autocast on the command line");
}

// The trace must be of this scenario's GPU and GPU count, and of its tokens per step when it recorded them.
void checkTraceFitsScenario(const Scenario& s, const trace::RunAnalysis& run)
{
    checkTraceGpuCount(s, run);
    checkTracedWeights(s, run);
    for (const trace::RankAnalysis& r : run.ranks) {
        if (const auto other = r.gpuName ? tracedOnAnotherGpu(*r.gpuName, s.cluster.hardware) : std::nullopt)
            throw InputError(*other + ": set the GPU the trace ran on (--gpu on the command line)");
        if (r.recordedTokens && r.recordedTokens->perStep > 0 && !r.recordedTokens->varies) {
            const double perRankTokens = r.recordedTokens->perStep;
            // The lookups of one rank: its data-parallel share of the global batch (TP and CP ranks see all of it).
            const double dataParallel = static_cast<double>(dataParallelRanks(s));
            const double scenarioPerRank = static_cast<double>(processedTokensPerStep(s)) / std::max(1.0, dataParallel);
            if (std::abs(perRankTokens / scenarioPerRank - 1.0) > 0.01)
                throw InputError("the trace looked up " + formatNumber(perRankTokens) + " tokens per step on rank "
                    + std::to_string(r.rank) + ", the scenario " + formatNumber(scenarioPerRank)
                    + " per data-parallel rank: set the traced run's sequence length, micro-batch and global batch "
                      "(--seq, --micro-batch, --global-batch-tokens on the command line)");
        }
    }
}

// The model's work against the trace's: the FLOPs its operators did per step (from their recorded shapes) against
// what the scenario's model predicts per GPU. A trace of another model fails here rather than fitting factors that
// would be nonsense. Skipped when the trace recorded no shapes or a CUDA graph hides most of its matrix kernels.
void checkTraceWorkFitsModel(const Scenario& s, const StepPrediction& p, const trace::RunAnalysis& run)
{
    constexpr double kTolerance = 0.35;
    for (const trace::RankAnalysis& r : run.ranks) {
        const trace::OpFlops& f = r.opFlops;
        if (!f.recordsShapes || r.steps.empty() || f.unattributedMatrixShare() > 0.2)
            continue;
        const double traced = trace::totalFlops(f.inSteps) / static_cast<double>(r.steps.size());
        const double predicted = p.hardwareFlopsPerToken * p.tokensPerStep / s.cluster.gpuCount;
        if (traced > 0 && predicted > 0 && std::abs(traced / predicted - 1.0) > kTolerance)
            throw InputError("rank " + std::to_string(r.rank) + "'s operators did " + formatNumber(traced / 1e12, 1)
                + " TFLOP a step (from their recorded shapes); the scenario's model would do "
                + formatNumber(predicted / 1e12, 1)
                + " TFLOP per GPU: set the traced model, sequence length and micro-batch (--model, --seq, "
                  "--micro-batch on the command line)");
    }
}

// "matmul x 0.99, attention x 0.98": each fitted term's factor, for messages.
std::string fittedFactorsText(const TraceCalibration& cal)
{
    std::string text;
    for (const TermFit& fit : cal.fits) {
        if (!fit.fitted)
            continue;
        char factor[32];
        std::snprintf(factor, sizeof factor, "%.3g", fit.factor); // 3 significant digits: 0.994, 2.92, 1e-09
        text += (text.empty() ? "" : ", ") + std::string(calibratedTermKey(fit.term)) + " x " + factor;
    }
    return text.empty() ? std::string("none fitted") : text;
}

// A calibrated step beyond physics comes from the measured times, not from the FLOP count that physical_bounds.h
// would blame (the uncalibrated step is within physics): refused with the factors that did it and the cause.
void refuseFasterThanTheGpu(
    const StepPrediction& calibrated, const Scenario& s, const TraceCalibration& cal, const char* cause)
{
    if (!isBeyondPhysics(calibrated, s))
        return;
    throw InputError("calibration: its fitted factors (" + fittedFactorsText(cal) + ") would make this step MFU "
        + formatPercent(calibrated.mfu) + " at " + formatNumber(calibrated.tflopsPerGpu, 0)
        + " TFLOPS per GPU, faster than the GPU can run it: " + cause);
}

// The memory-bound work the trace can weigh: the bytes its operators' recorded shapes say the memory-bound kernels
// moved, per step and rank, and those kernels' time. "; 71% of it by kernels whose operators recorded shapes: 251 GB
// a step at 3,580 GB/s (75% of HBM)"; "" when the trace recorded no shapes.
std::string memoryBoundBytesText(const trace::RunAnalysis& run, double measuredSeconds, const HardwareSpec& hardware)
{
    double bytes = 0, seconds = 0;
    for (const trace::RankAnalysis& r : run.ranks) {
        const double steps = static_cast<double>(std::max<size_t>(1, r.steps.size()));
        for (const trace::KernelWork& k : r.opFlops.categories)
            if (termOfCategory(k.category) == CalibratedTerm::MemoryBound && k.bytes > 0) {
                bytes += k.bytes / steps;
                seconds += static_cast<double>(k.ns) * 1e-9 / steps;
            }
    }
    const double ranks = static_cast<double>(std::max<size_t>(1, run.ranks.size()));
    bytes /= ranks;
    seconds /= ranks;
    if (!(bytes > 0 && seconds > 0 && measuredSeconds > 0))
        return "";
    const double rate = bytes / seconds;
    return "; " + formatPercent(std::min(1.0, seconds / measuredSeconds), 0)
        + " of it by kernels whose operators recorded shapes: " + formatNumber(bytes / 1e9, 1) + " GB a step at "
        + formatNumber(rate / 1e9, 0) + " GB/s"
        + (hardware.hbmBandwidthBytesPerSec > 0
                ? " (" + formatPercent(rate / hardware.hbmBandwidthBytesPerSec, 0) + " of HBM)"
                : std::string());
}

// Per step and rank: each communication kind's time and the share of it not hidden under computation. "all-reduce
// 12.30 ms a step, 40% exposed; all-gather ..."; "" without communication.
std::string communicationKindsText(const trace::RunAnalysis& run)
{
    std::array<double, trace::kKernelCategoryCount> total {}, exposed {};
    for (const trace::RankAnalysis& r : run.ranks) {
        const double steps = static_cast<double>(std::max<size_t>(1, r.steps.size()));
        for (int c = 0; c < trace::kKernelCategoryCount; ++c) {
            total[static_cast<size_t>(c)]
                += static_cast<double>(r.total.categoryNs[static_cast<size_t>(c)]) * 1e-9 / steps;
            exposed[static_cast<size_t>(c)]
                += static_cast<double>(r.total.exclusiveNs[static_cast<size_t>(c)]) * 1e-9 / steps;
        }
    }
    const double ranks = static_cast<double>(std::max<size_t>(1, run.ranks.size()));
    std::string text;
    for (int c = 0; c < trace::kKernelCategoryCount; ++c) {
        const auto category = static_cast<KernelCategory>(c);
        const double t = total[static_cast<size_t>(c)] / ranks;
        if (!trace::isCommunication(category) || !(t > 0))
            continue;
        std::string label(trace::categoryLabel(category));
        for (char& ch : label)
            ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        text += (text.empty() ? "" : ", ") + label + " " + formatMilliseconds(t) + " a step, "
            + formatPercent(exposed[static_cast<size_t>(c)] / ranks / t, 0) + " exposed";
    }
    return text.empty() ? "" : "; " + text;
}

// What the trace's collectives moved, from their recorded messages, over all ranks and analysed steps: "; on all
// ranks and steps, All-reduce over 8 ranks: 96 calls of 2.1-67.1 MB, ..."; "" when no message was recorded.
std::string collectiveMessagesText(const trace::RunAnalysis& run)
{
    std::vector<trace::CollectiveCall> calls;
    for (const trace::RankAnalysis& r : run.ranks)
        calls.insert(calls.end(), r.collectives.begin(), r.collectives.end());
    std::string text;
    for (const trace::CollectiveSizeStat& c : trace::collectiveSizeStats(calls))
        text += (text.empty() ? "; on all ranks and steps, " : "; ") + trace::collectiveSizeText(c);
    return text;
}

// The idle time's gaps per step and rank, by what they waited on, and the predicted bubble taken out of it.
std::string overheadDetailText(const trace::RunAnalysis& run, double bubble)
{
    trace::IdleGapsPerStep mean;
    const double ranks = static_cast<double>(std::max<size_t>(1, run.ranks.size()));
    for (const trace::RankAnalysis& r : run.ranks) {
        const trace::IdleGapsPerStep g = trace::idleGapsPerStep(r.total, r.steps.size());
        mean.count += g.count / ranks;
        mean.seconds += g.seconds / ranks;
        mean.hostSeconds += g.hostSeconds / ranks;
        mean.queuedSeconds += g.queuedSeconds / ranks;
    }
    std::string text;
    if (mean.count > 0)
        text += "; of it " + trace::idleGapText(mean);
    if (bubble > 0)
        text += "; the predicted pipeline bubble, " + formatMilliseconds(bubble) + ", taken out";
    return text;
}

// What a term's measurement rests on: kernels, steps, ranks, and per term what the trace says of it beyond its time.
std::string evidenceOf(
    const TermFit& f, const TraceCalibration& cal, const trace::RunAnalysis& run, int64_t kernels, double bubble)
{
    const std::string where = std::to_string(cal.steps) + " step(s) of " + std::to_string(cal.ranks) + " rank(s)";
    // The step less its GPU work, not the trace's idle time within its analysed span (5.629 ms where this is 6.252 on
    // the H200 trace): said as what it is, so the two figures do not read as one contradicting the other.
    if (f.term == CalibratedTerm::Overhead)
        return "the step less its GPU work: " + formatMilliseconds(f.measuredSeconds) + " per step (" + where + ")"
            + overheadDetailText(run, bubble);
    // GPU activities, copies and memsets among them: more than the trace's count of kernels alone.
    std::string text = formatNumber(static_cast<double>(kernels)) + " GPU activities in " + where + ", "
        + formatMilliseconds(f.measuredSeconds) + " per step";
    switch (f.term) {
    case CalibratedTerm::Matmul:
        if (!cal.gemmShapes.empty())
            text += "; " + std::to_string(cal.gemmShapes.size()) + " GEMM shapes (gemm_shapes)";
        break;
    case CalibratedTerm::Attention:
        if (!cal.attentionShapes.empty())
            text += "; " + std::to_string(cal.attentionShapes.size()) + " attention shapes (attention_shapes)";
        break;
    case CalibratedTerm::MemoryBound:
        text += memoryBoundBytesText(run, f.measuredSeconds, cal.traced.cluster.hardware);
        break;
    case CalibratedTerm::Communication:
        text += " not hidden under computation" + communicationKindsText(run) + collectiveMessagesText(run);
        break;
    case CalibratedTerm::Overhead:
        break;
    }
    return text;
}

// Traced shapes at speeds no kernel runs at (impossibleShapeSpeed) are left out: a FLOP count that went wrong must
// not become a calibration that its own file would refuse.
void dropImpossibleShapes(
    std::vector<GemmShapeBin>& gemms, std::vector<AttentionShapeBin>& attention, const HardwareSpec& hw)
{
    std::erase_if(
        gemms, [&](const GemmShapeBin& b) { return impossibleShapeSpeed(b.flopsPerSecond(), peakOf(b, hw)); });
    std::erase_if(attention,
        [&](const AttentionShapeBin& b) { return impossibleShapeSpeed(b.flopsPerSecond(), attentionPeakOf(hw)); });
}

} // namespace

std::string_view calibratedTermKey(CalibratedTerm t)
{
    switch (t) {
    case CalibratedTerm::Matmul:
        return "matmul";
    case CalibratedTerm::Attention:
        return "attention";
    case CalibratedTerm::MemoryBound:
        return "memory_bound";
    case CalibratedTerm::Communication:
        return "communication";
    case CalibratedTerm::Overhead:
        return "overhead";
    }
    return "overhead";
}

std::optional<CalibratedTerm> calibratedTermFromKey(std::string_view key)
{
    for (const CalibratedTerm t : kAllCalibratedTerms)
        if (calibratedTermKey(t) == key)
            return t;
    return std::nullopt;
}

namespace {

// The factor of a stretched term (communication, overhead) at which the traced run, every other factor applied, leaves
// the step `measured` seconds of it: by bisection over 1/1000 to 1000, since the time the step waits grows with the
// stretch but not in proportion (what the compute beside it hides does not grow). The nearer bound when out of reach.
double stretchToMeasured(const CostModel& model, const Scenario& traced, TermScales scales, double TermScales::*stretch,
    CalibratedTerm term, double measured)
{
    const auto waited = [&](double factor) {
        scales.*stretch = factor;
        return predictedTermSeconds(model.evaluateValid(traced, scales))[index(term)];
    };
    double low = std::log(1e-3), high = std::log(1e3);
    if (waited(std::exp(high)) <= measured)
        return std::exp(high);
    if (waited(std::exp(low)) >= measured)
        return std::exp(low);
    for (int i = 0; i < 48; ++i) { // 48 halvings of a 1e6 range: a relative step below 1e-13
        const double mid = 0.5 * (low + high);
        (waited(std::exp(mid)) < measured ? low : high) = mid;
    }
    return std::exp(0.5 * (low + high));
}

// Each fitted term's measured / predicted, communication and overhead included: what the fits say, before the
// stretches are solved for.
TermScales measuredOverPredicted(const std::vector<TermFit>& fits)
{
    TermScales s;
    for (const TermFit& f : fits) {
        switch (f.term) {
        case CalibratedTerm::Matmul:
            s.matmul = f.factor;
            break;
        case CalibratedTerm::Attention:
            s.attention = f.factor;
            break;
        case CalibratedTerm::MemoryBound:
            s.memoryBound = f.factor;
            break;
        case CalibratedTerm::Communication:
            s.communication = f.factor;
            break;
        case CalibratedTerm::Overhead:
            s.overhead = f.factor;
            break;
        }
    }
    return s;
}

const TermFit* fittedTerm(const std::vector<TermFit>& fits, CalibratedTerm t)
{
    const auto f = std::find_if(fits.begin(), fits.end(), [t](const TermFit& x) { return x.term == t; });
    return f != fits.end() && f->fitted ? &*f : nullptr;
}

// Whether a term is fitted whose seconds meet others' in the step, so that its scale needs the traced run's model.
bool fitsMeetInTheStep(const std::vector<TermFit>& fits)
{
    return fittedTerm(fits, CalibratedTerm::Communication) || fittedTerm(fits, CalibratedTerm::Overhead);
}

// termScalesOf with the traced run's cost model already built (calibrateFromTrace has one).
TermScales termScalesWith(const std::vector<TermFit>& fits, const Scenario& traced, const CostModel& model)
{
    TermScales s = measuredOverPredicted(fits);
    const TermFit* comm = fittedTerm(fits, CalibratedTerm::Communication);
    const TermFit* host = fittedTerm(fits, CalibratedTerm::Overhead);
    if (!comm && !host)
        return s;
    // The two meet in the step (the host's waits sit in the passes the collectives hide behind): each fitted with the
    // other's last value, three rounds, which settles them to well within a trace's own step-to-step spread.
    if (const auto why = model.invalidReasonText(traced)) // a calibration file's scenario edited out of shape
        throw InputError("the traced run's scenario cannot be predicted: " + *why);
    for (int round = 0; round < 3; ++round) {
        if (comm)
            s.communication = stretchToMeasured(
                model, traced, s, &TermScales::communication, CalibratedTerm::Communication, comm->measuredSeconds);
        if (host)
            s.overhead = stretchToMeasured(
                model, traced, s, &TermScales::overhead, CalibratedTerm::Overhead, host->measuredSeconds);
    }
    return s;
}

} // namespace

TermScales termScalesOf(const std::vector<TermFit>& fits, const Scenario& traced)
{
    if (!fitsMeetInTheStep(fits)) // the ratios alone: no model to build
        return measuredOverPredicted(fits);
    return termScalesWith(fits, traced, CostModel(traced));
}

std::string_view termBasisKey(TermBasis b)
{
    switch (b) {
    case TermBasis::Measured:
        return "measured";
    case TermBasis::Interpolated:
        return "interpolated";
    case TermBasis::Extrapolated:
        return "extrapolated";
    }
    return "extrapolated";
}

void refuseRanksWithoutSteps(const trace::RunAnalysis& run)
{
    if (run.ranks.empty())
        throw InputError("no trace to calibrate from");
    for (const trace::RankAnalysis& r : run.ranks)
        if (r.steps.empty())
            throw InputError(r.sourceFile + ": no step to calibrate from (" + r.stepSelection + ")");
}

TraceCalibration calibrateFromTrace(
    const Scenario& traced, const trace::RunAnalysis& run, const std::vector<std::string>& tracePaths)
{
    refuseRanksWithoutSteps(run);
    checkTraceFitsScenario(traced, run);
    TraceCalibration cal;
    cal.traced = traced;
    cal.tracePaths = tracePaths;
    cal.ranks = static_cast<int>(run.ranks.size());
    cal.gemmShapes = gemmShapeBinsOf(run);
    cal.attentionShapes = attentionShapeBinsOf(run);
    dropImpossibleShapes(cal.gemmShapes, cal.attentionShapes, traced.cluster.hardware);
    checkTracedSequence(traced, cal.attentionShapes);

    // Measured: each rank's exclusive time per analysed step by term, averaged over ranks; the idle rest of the
    // step (its duration less the GPU's busy time) is the overhead side.
    std::array<double, 5> measured {};
    std::array<int64_t, 5> kernels {};
    double step = 0, spread = 0;
    for (const trace::RankAnalysis& r : run.ranks) {
        const double steps = static_cast<double>(r.steps.size());
        cal.steps = static_cast<int>(r.steps.size());
        for (int c = 0; c < trace::kKernelCategoryCount; ++c) {
            const auto category = static_cast<KernelCategory>(c);
            measured[index(termOfCategory(category))] += static_cast<double>(r.total.exclusiveNs[c]) * 1e-9 / steps;
        }
        const double busy = static_cast<double>(r.total.busyNs) * 1e-9 / steps;
        measured[index(CalibratedTerm::Overhead)] += std::max(0.0, r.meanStepSeconds - busy);
        step += r.meanStepSeconds;
        spread = std::max(spread, r.stepSpreadSeconds);
        for (const trace::KernelStat& k : r.kernels)
            kernels[index(termOfCategory(k.category))] += k.count;
        if (!cal.gpuName.empty() || !r.gpuName)
            continue;
        cal.gpuName = *r.gpuName;
    }
    const double ranks = static_cast<double>(run.ranks.size());
    for (double& m : measured)
        m /= ranks;
    cal.measuredStepSeconds = step / ranks;
    cal.stepSpreadSeconds = spread;

    const CostModel model(traced);
    const StepPrediction before = model.evaluate(traced);
    checkTraceWorkFitsModel(traced, before, run);
    cal.uncalibratedStepSeconds = before.stepTimeSeconds;
    const std::array<double, 5> predicted = predictedTermSeconds(before);
    for (const CalibratedTerm t : kAllCalibratedTerms) {
        TermFit f;
        f.term = t;
        f.measuredSeconds = measured[index(t)];
        f.predictedSeconds = predicted[index(t)];
        if (t == CalibratedTerm::Overhead) // the bubble is idle time too: the factor is for the rest
            f.measuredSeconds = std::max(0.0, f.measuredSeconds - before.time.pipelineBubble);
        const double floor = std::max(kMinFitSeconds, kMinFitShare * cal.measuredStepSeconds);
        f.fitted = f.measuredSeconds >= floor && f.predictedSeconds >= floor;
        f.factor = f.fitted ? f.measuredSeconds / f.predictedSeconds : 1.0;
        f.evidence = evidenceOf(f, cal, run, kernels[index(t)], before.time.pipelineBubble);
        if (!f.fitted)
            f.evidence += f.measuredSeconds < floor ? "; too little in the trace to fit, the model's kept"
                                                    : "; the model predicts too little to fit, the model's kept";
        cal.fits.push_back(f);
    }
    cal.scales = termScalesWith(cal.fits, traced, model);
    const StepPrediction replay = model.evaluateValid(traced, cal.scales);
    refuseFasterThanTheGpu(replay, traced, cal,
        "the trace took less time than this scenario's work needs, so the scenario does not describe the traced run: "
        "set its model, sequence length, micro-batch, GPU count and layout (--model, --seq, --micro-batch, --gpus "
        "and the layout's flags on the command line)");
    cal.replayStepSeconds = replay.stepTimeSeconds;
    return cal;
}

std::optional<std::string> tracedOnAnotherGpu(const std::string& tracedGpuName, const HardwareSpec& scenarioGpu)
{
    if (matchGpuName(tracedGpuName, { scenarioGpu }).presetId)
        return std::nullopt;
    // Quoted as read: a trace's device name is the file's text, of any length.
    return "the trace ran on " + quotedForMessage(tracedGpuName) + ", the scenario's GPU is " + scenarioGpu.name;
}

std::optional<std::string> calibrationMismatch(const Scenario& s, const TraceCalibration& cal)
{
    const ModelSpec& a = s.model;
    const ModelSpec& b = cal.traced.model;
    if (a.layers != b.layers || a.hidden != b.hidden || a.heads != b.heads || a.vocab != b.vocab || a.ffnDim != b.ffnDim
        || a.moe.experts != b.moe.experts) {
        // Two configs of one name (an edited copy) differ in a dimension: it is named, not the name twice.
        std::string differs;
        const auto add = [&](const char* what, int64_t traced, int64_t now) {
            if (traced != now && differs.empty())
                differs = " (" + std::string(what) + " " + formatNumber(double(now)) + ", traced "
                    + formatNumber(double(traced)) + ")";
        };
        add("layers", b.layers, a.layers);
        add("hidden size", b.hidden, a.hidden);
        add("heads", b.heads, a.heads);
        add("vocabulary", b.vocab, a.vocab);
        add("FFN width", b.ffnDim, a.ffnDim);
        add("experts", b.moe.experts, a.moe.experts);
        return "the calibration was fitted on " + b.displayName() + ", the scenario's model is " + a.displayName()
            + (a.displayName() == b.displayName() ? differs : std::string()) + ": calibrate on a trace of this model";
    }
    if (s.cluster.hardware.id != cal.traced.cluster.hardware.id)
        return "the calibration was fitted on " + cal.traced.cluster.hardware.name + ", the scenario's GPU is "
            + s.cluster.hardware.name + ": calibrate on a trace of this GPU";
    return std::nullopt;
}

namespace {

// What the scenario changes of the traced run's shapes, which the model carries a measured factor across:
// "sequence 8,192 (traced 4,096), micro-batch 4 (traced 8)"; "" when nothing.
std::string shapeDifferences(const Scenario& s, const Scenario& r)
{
    std::string out;
    const auto add = [&](const char* what, double now, double then) {
        if (now != then)
            out += (out.empty() ? "" : ", ") + std::string(what) + " " + formatNumber(now) + " (traced "
                + formatNumber(then) + ")";
    };
    add("sequence", static_cast<double>(s.workload.seqLen), static_cast<double>(r.workload.seqLen));
    add("micro-batch", static_cast<double>(s.workload.microBatch), static_cast<double>(r.workload.microBatch));
    add("tokens per step", static_cast<double>(processedTokensPerStep(s)),
        static_cast<double>(processedTokensPerStep(r)));
    add("GPUs", s.cluster.gpuCount, r.cluster.gpuCount);
    add("PP", s.parallelism.pp, r.parallelism.pp);
    add("virtual stages", s.parallelism.virtualStages, r.parallelism.virtualStages);
    if (s.activationCheckpointing != r.activationCheckpointing)
        out += (out.empty() ? "" : ", ") + std::string("checkpointing ")
            + std::string(activationCheckpointingKey(s.activationCheckpointing)) + " (traced "
            + std::string(activationCheckpointingKey(r.activationCheckpointing)) + ")";
    return out;
}

// Time beyond (or off) the trace's shapes up to this share still counts as measured (or interpolated).
constexpr double kBeyondShare = 0.01;

// How the scenario's GEMMs and attention calls stand against the trace's shapes; nullopt where either side has none
// (the layout then decides).
struct ShapeMatches {
    std::optional<ShapeMatch> gemms, attention; // the scenario's
    std::optional<ShapeMatch> tracedGemms, tracedAttention; // the traced run's own
};

// The scenario's match, when the trace's shapes can speak for it: the traced run's own shapes must be the ones the
// trace ran (a trace of fused projections, Megatron's linear_qkv, leaves the traced run's own GEMMs unmatched, and
// the layout then decides).
const ShapeMatch* usableMatch(const std::optional<ShapeMatch>& scenario, const std::optional<ShapeMatch>& traced)
{
    return scenario && traced && traced->exactShare >= 1.0 - kBeyondShare ? &*scenario : nullptr;
}

// A term that the trace measured by shape (GEMMs, attention): its basis follows the shapes. `family`: "GEMM",
// "attention".
void basisByShape(
    CalibratedTermTime& out, const ShapeMatch& m, const char* family, const Scenario& s, const Scenario& traced)
{
    const std::string f(family);
    if (m.beyondShare > kBeyondShare) {
        out.basis = TermBasis::Extrapolated;
        out.why = f + " shapes beyond the trace's (" + formatPercent(m.beyondShare, 0) + " of the " + f
            + " time), e.g. " + m.beyond;
    } else if (m.exactShare < 1.0 - kBeyondShare) {
        out.basis = TermBasis::Interpolated;
        out.why = f + " shapes within the range the trace ran (" + formatPercent(m.exactShare, 0) + " of the " + f
            + " time at shapes it ran as they are)";
    } else if (s.activationCheckpointing != traced.activationCheckpointing) {
        // The shapes the trace ran, recomputed in another measure than it did.
        out.basis = TermBasis::Interpolated;
        out.why = f + " shapes the trace ran, under checkpointing "
            + std::string(activationCheckpointingKey(s.activationCheckpointing)) + " (traced "
            + std::string(activationCheckpointingKey(traced.activationCheckpointing)) + ")";
    } else if (s.cluster.gpuCount != traced.cluster.gpuCount) {
        // The shapes the trace ran, whatever the batch or pipeline around them; on another number of GPUs they share
        // the GPU with other collectives than the trace saw.
        out.basis = TermBasis::Interpolated;
        out.why = f + " shapes the trace ran, on " + formatNumber(s.cluster.gpuCount) + " GPUs (traced "
            + formatNumber(traced.cluster.gpuCount) + ")";
    }
}

// Which terms a scenario shares with the traced run, and how closely (see TermBasis).
CalibratedTermTime basisOf(
    CalibratedTerm t, double seconds, const Scenario& s, const TraceCalibration& cal, const ShapeMatches& shapes)
{
    const Scenario& r = cal.traced;
    const Parallelism& p = s.parallelism;
    const Parallelism& q = r.parallelism;
    CalibratedTermTime out { t, seconds, TermBasis::Measured, "" };
    const auto extrapolated = [&](std::string why) {
        out.basis = TermBasis::Extrapolated;
        out.why = std::move(why);
    };
    if (seconds <= 0)
        return out; // nothing of it in this step to trust or doubt
    const TermFit& fit = cal.fits[index(t)];
    if (!fit.fitted) {
        extrapolated("the traced run had too little of it to fit");
        return out;
    }
    const auto degrees = [](const Parallelism& x) {
        return "TP " + std::to_string(x.tp) + ", CP " + std::to_string(x.cp) + ", EP " + std::to_string(x.ep);
    };
    const bool sameSplit = p.tp == q.tp && p.cp == q.cp && p.ep == q.ep && p.expertTp == q.expertTp;
    bool byShape = false;
    switch (t) {
    case CalibratedTerm::Matmul:
        if (s.precision == r.precision && s.precision == TrainingPrecision::BF16_FP8
            && s.flags.fp8Recipe != r.flags.fp8Recipe)
            extrapolated("another FP8 recipe than the trace's");
        else if (const ShapeMatch* m = usableMatch(shapes.gemms, shapes.tracedGemms); (byShape = m != nullptr))
            basisByShape(out, *m, "GEMM", s, r);
        else if (!sameSplit)
            extrapolated("GEMM shapes the trace never ran: " + degrees(p) + " where it ran " + degrees(q));
        else if (s.precision != r.precision)
            extrapolated("another precision than the trace's");
        break;
    case CalibratedTerm::Attention:
        if (p.cp != q.cp || s.flags.attentionKernel != r.flags.attentionKernel)
            extrapolated("another attention split or kernel than the trace's");
        else if (const ShapeMatch* m = usableMatch(shapes.attention, shapes.tracedAttention); (byShape = m != nullptr))
            basisByShape(out, *m, "attention", s, r);
        break;
    case CalibratedTerm::MemoryBound:
        if (s.flags.compiled != r.flags.compiled)
            extrapolated(std::string(s.flags.compiled ? "compiled" : "eager") + " where the trace ran "
                + (r.flags.compiled ? "compiled" : "eager"));
        else if (s.flags.autocast != r.flags.autocast) // the casts and FP32 traffic the trace measured, or none
            extrapolated(std::string(s.flags.autocast ? "FP32 weights under autocast" : "16-bit weights")
                + " where the trace ran " + (r.flags.autocast ? "FP32 weights under autocast" : "16-bit weights"));
        break;
    case CalibratedTerm::Communication: {
        const int domain = std::max(1, s.cluster.domainSize());
        const int tracedDomains = (r.cluster.gpuCount + domain - 1) / domain;
        const int domains = (s.cluster.gpuCount + domain - 1) / domain;
        if (!sameSplit || p.pp != q.pp || p.dataParallel != q.dataParallel)
            extrapolated(
                "collectives of another layout than the trace's (" + degrees(p) + ", PP " + std::to_string(p.pp) + ")");
        else if (domains > tracedDomains)
            extrapolated("collectives across " + std::to_string(domains) + " scale-up domains; the trace spanned "
                + std::to_string(tracedDomains));
        break;
    }
    case CalibratedTerm::Overhead:
        break;
    }
    if (out.basis == TermBasis::Measured && !byShape) {
        const std::string differs = shapeDifferences(s, r);
        if (!differs.empty()) {
            out.basis = TermBasis::Interpolated;
            out.why = "the trace's factor carried to " + differs;
        }
    }
    return out;
}

// A term's factor carried to the scenario's shapes: the measured shapes its kernels fall nearest ran at another
// measured-over-modelled ratio than the traced run's kernels as a whole.
// 1 when the shapes cannot speak for the scenario (usableMatch).
double carriedByShape(const std::optional<ShapeMatch>& scenario, const std::optional<ShapeMatch>& traced)
{
    const ShapeMatch* usable = usableMatch(scenario, traced);
    const double carried = usable ? usable->measuredOverModel / traced->measuredOverModel : 1.0;
    return carried > 0 && std::isfinite(carried) ? carried : 1.0;
}

} // namespace

CalibratedPrediction calibratedPrediction(const Scenario& s, const TraceCalibration& cal,
    const StepPrediction& uncalibrated, double uncalibratedBandHalfWidth)
{
    if (const auto why = calibrationMismatch(s, cal))
        throw InputError(*why);
    CalibratedPrediction out;
    out.uncalibrated = uncalibrated;
    TermScales scales = cal.scales;
    const Scenario& r = cal.traced;
    const ShapeMatches shapes { matchGemmShapes(s, r, cal.gemmShapes), matchAttentionShapes(s, r, cal.attentionShapes),
        matchGemmShapes(r, r, cal.gemmShapes), matchAttentionShapes(r, r, cal.attentionShapes) };
    if (cal.fits[index(CalibratedTerm::Matmul)].fitted)
        scales.matmul *= carriedByShape(shapes.gemms, shapes.tracedGemms);
    if (cal.fits[index(CalibratedTerm::Attention)].fitted)
        scales.attention *= carriedByShape(shapes.attention, shapes.tracedAttention);
    out.calibrated = CostModel(s).evaluateValid(s, scales);
    refuseFasterThanTheGpu(out.calibrated, s, cal,
        "its measured times are not what a trace of this GPU can show (an edited file?); calibrate again from the "
        "trace");
    const std::array<double, 5> seconds = predictedTermSeconds(out.calibrated);
    double shares[3] = { 0, 0, 0 };
    for (const CalibratedTerm t : kAllCalibratedTerms) {
        out.terms.push_back(basisOf(t, seconds[index(t)], s, cal, shapes));
        shares[static_cast<size_t>(out.terms.back().basis)] += seconds[index(t)];
    }
    // The bubble is not a term of its own: it follows the compute it waits on, measured or not, and is counted
    // with the matmul's basis.
    shares[static_cast<size_t>(out.terms[index(CalibratedTerm::Matmul)].basis)] += out.calibrated.time.pipelineBubble;
    const double total = out.calibrated.stepTimeSeconds;
    out.measuredShare = shares[0] / total;
    out.interpolatedShare = shares[1] / total;
    out.extrapolatedShare = shares[2] / total;
    // Measured time is trusted to the trace's own step-to-step spread and replay error; interpolated time also to
    // half the model's band (the model carries the measured factor to the new shapes, and its shape dependence is
    // what the published runs validate); extrapolated time only to the model's band.
    const double traced = cal.stepSpreadSeconds / cal.measuredStepSeconds + std::abs(cal.replayError());
    out.bandHalfWidth = out.measuredShare * traced + out.interpolatedShare * (traced + 0.5 * uncalibratedBandHalfWidth)
        + out.extrapolatedShare * uncalibratedBandHalfWidth;
    // The short end stops where the GPU does: no step is shorter than its FLOPs take at the utilisation ceiling (MFU
    // and HFU alike), so the band's step, MFU and HFU agree (a 93.6 s short end had read as 105% MFU beside an MFU
    // capped at 100%).
    const double ceiling = utilisationCeiling(s.cluster.hardware, s.precision);
    const double shortest = total * std::max(out.calibrated.mfu, out.calibrated.hfu) / ceiling;
    out.stepSecondsLow = std::max(total * (1.0 - out.bandHalfWidth), shortest);
    out.stepSecondsHigh = total * (1.0 + out.bandHalfWidth);
    // A shorter step is a higher MFU.
    out.mfuLow = out.calibrated.mfu * total / out.stepSecondsHigh;
    out.mfuHigh = out.calibrated.mfu * total / out.stepSecondsLow;
    return out;
}

} // namespace mfu
