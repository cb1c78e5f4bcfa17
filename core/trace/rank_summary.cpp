#include "core/trace/rank_summary.h"
#include "core/io/json_errors.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>

#include "core/errors.h"
#include "core/io/atomic_file.h"
#include "core/io/read_file.h"
#include "core/trace/byte_source.h"
#include "core/trace/rank_summary_work.h"
#include "core/trace/summary_reader.h"
#include "core/trace/trace_loader.h"
#include "core/trace/trace_time.h"

namespace mfu::trace {

namespace {

using nlohmann::json;
using summary::Reader;

json breakdownToJson(const Breakdown& b)
{
    json categories = json::array();
    json exclusive = json::array();
    for (size_t c = 0; c < b.categoryNs.size(); ++c) {
        categories.push_back(b.categoryNs[c]);
        exclusive.push_back(b.exclusiveNs[c]);
    }
    return { { "span_ns", b.spanNs }, { "busy_ns", b.busyNs }, { "category_ns", categories },
        { "exclusive_ns", exclusive }, { "compute_ns", b.computeNs }, { "comm_ns", b.commNs },
        { "memory_ns", b.memoryNs }, { "overlap_ns", b.overlapNs }, { "idle_gap_count", b.idleGapCount },
        { "idle_gap_ns", b.idleGapNs }, { "idle_gap_host_ns", b.idleGapHostNs },
        { "idle_gap_queued_ns", b.idleGapQueuedNs }, { "kernel_count", b.kernelCount },
        { "kernel_time_ns", b.kernelTimeNs }, { "tiny_kernel_count", b.tinyKernelCount },
        { "tiny_kernel_time_ns", b.tinyKernelTimeNs } };
}

// What this build writes always holds together: nothing negative, no part of a window longer than the window. A
// summary that breaks it was made elsewhere or edited, and merged it would print busy times of 292 years inside a
// one-second step; it is refused with the figure named.
void checkBreakdown(const Breakdown& b, const Reader& in)
{
    const auto atMost = [&in](const char* key, int64_t value, int64_t limit, const char* what) {
        if (value < 0 || value > limit)
            in.fail(key,
                std::to_string(value) + " is " + (value < 0 ? "negative" : std::string("more than ") + what)
                    + ": not a summary this program wrote");
    };
    atMost("span_ns", b.spanNs, kTraceTimeLimitNs, "any trace's clock");
    atMost("busy_ns", b.busyNs, b.spanNs, "the span");
    for (size_t c = 0; c < b.categoryNs.size(); ++c) {
        atMost("category_ns", b.categoryNs[c], b.spanNs, "the span");
        atMost("exclusive_ns", b.exclusiveNs[c], b.busyNs, "the busy time");
    }
    atMost("compute_ns", b.computeNs, b.spanNs, "the span");
    atMost("comm_ns", b.commNs, b.spanNs, "the span");
    atMost("memory_ns", b.memoryNs, b.spanNs, "the span");
    atMost("overlap_ns", b.overlapNs, std::min(b.computeNs, b.commNs), "the compute or communication time");
    atMost("idle_gap_ns", b.idleGapNs, b.idleNs(), "the idle time");
    atMost("idle_gap_queued_ns", b.idleGapQueuedNs, b.idleGapNs, "the gaps' time"); // first: the next cannot overflow
    atMost("idle_gap_host_ns", b.idleGapHostNs, b.idleGapNs - b.idleGapQueuedNs, "the gaps' time");
    atMost("idle_gap_count", b.idleGapCount, kTraceTimeLimitNs, "any trace holds");
    atMost("kernel_count", b.kernelCount, kTraceTimeLimitNs, "any trace holds");
    atMost("tiny_kernel_count", b.tinyKernelCount, b.kernelCount, "the kernel count");
    atMost("kernel_time_ns", b.kernelTimeNs, kTraceTimeLimitNs, "any trace's clock");
    atMost("tiny_kernel_time_ns", b.tinyKernelTimeNs, b.kernelTimeNs, "the kernel time");
}

Breakdown breakdownFromJson(const json& j, const Reader& in)
{
    Breakdown b;
    b.spanNs = in.get<int64_t>(j, "span_ns");
    b.busyNs = in.get<int64_t>(j, "busy_ns");
    const json& categories = in.array(j, "category_ns");
    const json& exclusive = in.array(j, "exclusive_ns");
    if (categories.size() != b.categoryNs.size() || exclusive.size() != b.exclusiveNs.size())
        in.fail("category_ns", "expected " + std::to_string(b.categoryNs.size()) + " categories");
    for (size_t c = 0; c < b.categoryNs.size(); ++c) {
        if (!categories[c].is_number_integer() || !exclusive[c].is_number_integer())
            in.fail("category_ns", "not an integer");
        b.categoryNs[c] = categories[c].get<int64_t>();
        b.exclusiveNs[c] = exclusive[c].get<int64_t>();
    }
    b.computeNs = in.get<int64_t>(j, "compute_ns");
    b.commNs = in.get<int64_t>(j, "comm_ns");
    b.memoryNs = in.get<int64_t>(j, "memory_ns");
    b.overlapNs = in.get<int64_t>(j, "overlap_ns");
    b.idleGapCount = in.get<int64_t>(j, "idle_gap_count");
    b.idleGapNs = in.get<int64_t>(j, "idle_gap_ns");
    if (j.contains("idle_gap_host_ns")) { // added within version 3: absent from the summaries made before
        b.idleGapHostNs = in.get<int64_t>(j, "idle_gap_host_ns");
        b.idleGapQueuedNs = in.get<int64_t>(j, "idle_gap_queued_ns");
    }
    b.kernelCount = in.get<int64_t>(j, "kernel_count");
    b.kernelTimeNs = in.get<int64_t>(j, "kernel_time_ns");
    b.tinyKernelCount = in.get<int64_t>(j, "tiny_kernel_count");
    b.tinyKernelTimeNs = in.get<int64_t>(j, "tiny_kernel_time_ns");
    checkBreakdown(b, in);
    return b;
}

KernelCategory summaryCategory(const std::string& key, const Reader& in)
{
    for (int c = 0; c < kKernelCategoryCount; ++c)
        if (categoryKey(static_cast<KernelCategory>(c)) == key)
            return static_cast<KernelCategory>(c);
    in.fail("kernels[].category", "unknown category '" + key + "'");
}

StepSource stepSourceFromKey(const std::string& key, const Reader& in)
{
    for (StepSource s :
        { StepSource::GpuAnnotation, StepSource::CpuAnnotation, StepSource::Inferred, StepSource::WholeTrace })
        if (stepSourceKey(s) == key)
            return s;
    in.fail("step_source", "unknown step source '" + key + "'");
}

GpuStepAnnotations gpuStepAnnotationsFromKey(const std::string& key, const Reader& in)
{
    for (GpuStepAnnotations g : { GpuStepAnnotations::None, GpuStepAnnotations::Agree, GpuStepAnnotations::Partial })
        if (gpuStepAnnotationsKey(g) == key)
            return g;
    in.fail("gpu_step_annotations", "unknown value '" + key + "'");
}

json optionsToJson(const AnalysisOptions& o)
{
    return { { "tiny_kernel_ns", o.breakdown.tinyKernelNs }, { "idle_gap_ns", o.breakdown.idleGapNs },
        { "top_kernel_count", o.topKernelCount }, { "span", o.span == SpanDefinition::Hta ? "hta" : "steps" } };
}

} // namespace

json rankSummaryToJson(const RankAnalysis& r, const AnalysisOptions& options)
{
    json j;
    j["format"] = std::string(kRankSummaryFormat);
    j["version"] = kRankSummaryVersion;
    j["options"] = optionsToJson(options);
    j["rank"] = r.rankFromTrace ? json(r.rank) : json(nullptr);
    j["source_file"] = r.sourceFile;
    j["gpu_name"] = r.gpuName ? json(*r.gpuName) : json(nullptr);
    j["world_size"] = r.worldSize ? json(*r.worldSize) : json(nullptr);
    j["trace_format"] = r.traceFormat;
    j["attention"] = r.attention ? json { { "implementation",
                                              std::string(attentionImplementationKey(r.attention->implementation)) },
        { "share", r.attention->shareOfAttentionTime ? json(*r.attention->shareOfAttentionTime) : json(nullptr) } }
                                 : json(nullptr);
    j["recorded_tokens"] = recordedTokensToJson(r.recordedTokens);
    j["fp32_matrix_casts"] = fp32MatrixCastsToJson(r.fp32MatrixCasts);
    j["step_source"] = std::string(stepSourceKey(r.stepSource));
    j["dropped_last_step"] = r.droppedLastStep;
    j["step_selection"] = r.stepSelection;
    j["gpu_step_annotations"] = std::string(gpuStepAnnotationsKey(r.gpuStepAnnotations));
    j["mean_step_s"] = r.meanStepSeconds;
    j["step_spread_s"] = r.stepSpreadSeconds;
    j["mean_gpu_work_s"] = r.meanGpuWorkSeconds;
    j["mean_gpu_busy_s"] = r.meanGpuBusySeconds;
    json steps = json::array();
    for (const auto& s : r.steps)
        steps.push_back({ { "number", s.step.number }, { "annotation_start_ns", s.step.annotationStartNs },
            { "annotation_end_ns", s.step.annotationEndNs }, { "window_start_ns", s.step.windowStartNs },
            { "window_end_ns", s.step.windowEndNs }, { "activity_count", s.step.activityCount },
            { "work_start_ns", s.step.workStartNs }, { "work_end_ns", s.step.workEndNs },
            { "start_ns_absolute", s.startNsAbsolute }, { "breakdown", breakdownToJson(s.breakdown) } });
    j["steps"] = steps;
    j["total"] = breakdownToJson(r.total);
    json kernels = json::array();
    for (const auto& k : r.kernels)
        kernels.push_back({ { "name", k.name }, { "category", std::string(categoryKey(k.category)) },
            { "count", k.count }, { "total_ns", k.totalNs }, { "max_ns", k.maxNs }, { "share", k.shareOfKernelTime } });
    j["kernels"] = kernels;
    // [category, start_ns_absolute, duration_ns], and message_bytes and group_size where the trace recorded the
    // message: compact, one per call.
    json collectives = json::array();
    for (const auto& c : r.collectives) {
        json entry = { std::string(categoryKey(c.category)), c.startNsAbsolute, c.durationNs };
        if (c.messageBytes > 0) {
            entry.push_back(c.messageBytes);
            entry.push_back(c.groupSize);
        }
        collectives.push_back(std::move(entry));
    }
    j["collectives"] = collectives;
    j["work"] = workToJson(r);
    j["warnings"] = r.warnings;
    return j;
}

RankAnalysis rankSummaryFromJson(const json& j, const std::string& fileName, AnalysisOptions& options)
{
    const Reader in(fileName);
    if (!j.is_object() || !j.contains("format") || j["format"] != kRankSummaryFormat)
        in.fail("format", "not an mfu-explorer trace summary (expected \"" + std::string(kRankSummaryFormat) + "\")");
    const int version = in.get<int>(j, "version");
    if (version < 1 || version > kRankSummaryVersion)
        in.fail("version",
            std::to_string(version) + " is not supported (this build reads versions 1 to "
                + std::to_string(kRankSummaryVersion) + "; make the summaries again with this build)");
    const json& o = in.at(j, "options");
    options.breakdown.tinyKernelNs = in.get<int64_t>(o, "tiny_kernel_ns");
    options.breakdown.idleGapNs = in.get<int64_t>(o, "idle_gap_ns");
    options.topKernelCount = in.get<size_t>(o, "top_kernel_count");
    const std::string span = in.get<std::string>(o, "span");
    if (span != "steps" && span != "hta")
        in.fail("options.span", "'" + span + "' is neither \"steps\" nor \"hta\"");
    options.span = span == "hta" ? SpanDefinition::Hta : SpanDefinition::Steps;

    RankAnalysis r;
    const json& rank = in.at(j, "rank");
    r.rankFromTrace = !rank.is_null();
    r.rank = r.rankFromTrace ? in.get<int>(j, "rank") : 0;
    r.sourceFile = in.get<std::string>(j, "source_file");
    if (!in.at(j, "gpu_name").is_null())
        r.gpuName = in.get<std::string>(j, "gpu_name");
    if (!in.at(j, "world_size").is_null())
        r.worldSize = in.get<int>(j, "world_size");
    // Added within version 2: absent from the summaries made before.
    if (j.contains("trace_format"))
        r.traceFormat = in.get<std::string>(j, "trace_format");
    if (j.contains("attention") && !j["attention"].is_null()) {
        const json& a = j["attention"];
        const auto implementation = attentionImplementationFromKey(in.get<std::string>(a, "implementation"));
        if (!implementation)
            in.fail("attention.implementation", "not one of cudnn, flash2, flash3, efficient, math");
        r.attention = DetectedAttention { *implementation, std::nullopt };
        if (!in.at(a, "share").is_null())
            r.attention->shareOfAttentionTime = in.get<double>(a, "share");
    }
    // Added within version 3: absent from the summaries made before.
    if (j.contains("recorded_tokens") && !j["recorded_tokens"].is_null()) {
        const json& t = j["recorded_tokens"];
        RecordedTokens tokens;
        tokens.perStep = in.get<double>(t, "per_step");
        tokens.perMicroStep = in.get<int64_t>(t, "per_micro_step");
        tokens.microSteps = in.get<int64_t>(t, "micro_steps");
        tokens.seqLen = in.get<int64_t>(t, "seq_len");
        tokens.microBatch = in.get<int64_t>(t, "micro_batch");
        tokens.stepsCounted = in.get<int>(t, "steps_counted");
        tokens.varies = in.get<bool>(t, "varies");
        if (!(tokens.perStep > 0) || tokens.perMicroStep <= 0 || tokens.microSteps <= 0)
            in.fail("recorded_tokens", "not a positive token count: not a summary this program wrote");
        r.recordedTokens = tokens;
    }
    // Added within version 3, after recorded_tokens: absent from the summaries made before.
    if (j.contains("fp32_matrix_casts") && !j["fp32_matrix_casts"].is_null()) {
        const json& c = j["fp32_matrix_casts"];
        Fp32MatrixCasts casts;
        casts.perStep = in.get<double>(c, "per_step");
        casts.shapes = in.get<int64_t>(c, "shapes");
        casts.rows = in.get<int64_t>(c, "rows");
        casts.columns = in.get<int64_t>(c, "columns");
        casts.stepsCounted = in.get<int>(c, "steps_counted");
        casts.castsRead = in.get<bool>(c, "casts_read");
        if (!(casts.perStep >= 0 && casts.perStep < 1e12) || casts.shapes < 0 || casts.rows < 0 || casts.columns < 0
            || casts.stepsCounted < 1)
            in.fail("fp32_matrix_casts", "not a count of casts: not a summary this program wrote");
        r.fp32MatrixCasts = casts;
    }
    r.stepSource = stepSourceFromKey(in.get<std::string>(j, "step_source"), in);
    r.droppedLastStep = in.get<bool>(j, "dropped_last_step");
    r.meanStepSeconds = in.get<double>(j, "mean_step_s");
    r.stepSpreadSeconds = in.get<double>(j, "step_spread_s");
    for (const auto& [key, value] :
        { std::pair { "mean_step_s", r.meanStepSeconds }, std::pair { "step_spread_s", r.stepSpreadSeconds } })
        if (!(value >= 0 && value <= static_cast<double>(kTraceTimeLimitNs) / 1e9))
            in.fail(key, json(value).dump() + " is not a step time: not a summary this program wrote");
    if (version >= 3) {
        r.stepSelection = in.get<std::string>(j, "step_selection");
        r.gpuStepAnnotations = gpuStepAnnotationsFromKey(in.get<std::string>(j, "gpu_step_annotations"), in);
        r.meanGpuWorkSeconds = in.get<double>(j, "mean_gpu_work_s");
        r.meanGpuBusySeconds = in.get<double>(j, "mean_gpu_busy_s");
    } else {
        r.stepSelection = "a summary of version " + std::to_string(version)
            + ", made before steps followed the CPU ProfilerStep annotations: make it again with this build";
    }
    for (const json& s : in.array(j, "steps")) {
        StepFigures f;
        f.step.number = in.get<int64_t>(s, "number");
        f.step.annotationStartNs = in.get<int64_t>(s, "annotation_start_ns");
        f.step.annotationEndNs = in.get<int64_t>(s, "annotation_end_ns");
        f.step.windowStartNs = in.get<int64_t>(s, "window_start_ns");
        f.step.windowEndNs = in.get<int64_t>(s, "window_end_ns");
        if (version >= 3) {
            f.step.activityCount = in.get<int64_t>(s, "activity_count");
            f.step.workStartNs = in.get<int64_t>(s, "work_start_ns");
            f.step.workEndNs = in.get<int64_t>(s, "work_end_ns");
        }
        f.startNsAbsolute = in.get<int64_t>(s, "start_ns_absolute");
        f.breakdown = breakdownFromJson(in.at(s, "breakdown"), in);
        const auto onClock = [](int64_t t) { return t >= -kTraceTimeLimitNs && t <= kTraceTimeLimitNs; };
        if (!onClock(f.step.annotationStartNs) || !onClock(f.step.annotationEndNs) || !onClock(f.step.windowStartNs)
            || !onClock(f.step.windowEndNs) || !onClock(f.step.workStartNs) || !onClock(f.step.workEndNs))
            in.fail("steps[]", "step " + std::to_string(f.step.number) + " lies beyond any trace's clock (+-4e18 ns)");
        if (f.step.annotationEndNs < f.step.annotationStartNs || f.step.windowEndNs < f.step.windowStartNs
            || f.step.workEndNs < f.step.workStartNs || f.breakdown.spanNs != f.step.windowDurationNs())
            in.fail("steps[]",
                "step " + std::to_string(f.step.number) + " ends before it starts: not a summary this program wrote");
        r.steps.push_back(f);
    }
    r.total = breakdownFromJson(in.at(j, "total"), in);
    for (const json& k : in.array(j, "kernels")) {
        KernelStat s;
        s.name = in.get<std::string>(k, "name");
        s.category = summaryCategory(in.get<std::string>(k, "category"), in);
        s.count = in.get<int64_t>(k, "count");
        s.totalNs = in.get<int64_t>(k, "total_ns");
        s.maxNs = in.get<int64_t>(k, "max_ns");
        s.shareOfKernelTime = in.get<double>(k, "share");
        if (s.count < 0 || s.totalNs < 0 || s.maxNs < 0 || s.maxNs > s.totalNs || !(s.shareOfKernelTime >= 0)
            || s.shareOfKernelTime > 1)
            in.fail("kernels[]",
                "'" + s.name.substr(0, 60)
                    + "': a negative count or time, a longest call beyond the total, or a share outside [0, 1]: "
                      "not a summary this program wrote");
        r.kernels.push_back(std::move(s));
    }
    r.topKernels.assign(r.kernels.begin(),
        r.kernels.begin() + static_cast<std::ptrdiff_t>(std::min(options.topKernelCount, r.kernels.size())));
    for (const json& c : in.array(j, "collectives")) {
        const bool message = c.is_array() && c.size() == 5 && c[3].is_number() && c[4].is_number_integer()
            && c[3].get<double>() > 0 && std::isfinite(c[3].get<double>()) && c[4].get<int64_t>() >= 0
            && c[4].get<int64_t>() <= 10'000'000; // the most GPUs the command line takes (--gpus)
        if (!c.is_array() || (c.size() != 3 && !message) || !c[0].is_string() || !c[1].is_number_integer()
            || !c[2].is_number_integer())
            in.fail("collectives",
                "each entry is [category, start_ns_absolute, duration_ns] or the same with message_bytes and "
                "group_size");
        r.collectives.push_back(
            { summaryCategory(c[0].get<std::string>(), in), c[1].get<int64_t>(), c[2].get<int64_t>(),
                message ? c[3].get<double>() : 0.0, message ? static_cast<int32_t>(c[4].get<int64_t>()) : 0 });
    }
    if (version >= 2)
        workFromJson(in.at(j, "work"), in, r); // version 1 summaries were made before shapes were read
    for (const json& w : in.array(j, "warnings")) {
        if (!w.is_string())
            in.fail("warnings", "not a string");
        r.warnings.push_back(w.get<std::string>());
    }
    if (version >= 2 && version < 5 && r.opFlops.attentionFlops > 0 && r.opFlops.backward)
        r.warnings.push_back("a summary of version " + std::to_string(version)
            + " counts the Q·Kᵀ that fused attention backward kernels recompute among its model FLOPs (a fifth of "
              "their work): its trace MFU reads high; make it again with this build");
    return r;
}

void writeRankSummary(const std::filesystem::path& path, const RankAnalysis& rank, const AnalysisOptions& options)
{
    // Atomic (docs/cluster-scale.md): a full disk leaves the previous summary whole, never a truncated one that a
    // script's `[ -s file ]` would take for a result.
    std::string reason;
    // A kernel name that is not UTF-8 is written as U+FFFD rather than losing the whole summary.
    const std::string text
        = rankSummaryToJson(rank, options).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (!writeFileAtomically(path, text + '\n', &reason))
        throw InputError(path.string() + ": cannot be written: " + reason);
}

std::vector<std::filesystem::path> summaryFilesInFolder(const std::filesystem::path& folder)
{
    std::vector<std::filesystem::path> files;
    constexpr std::string_view suffix = ".summary.json";
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
        const std::string name = entry.path().filename().string();
        if (entry.is_regular_file() && name.size() > suffix.size()
            && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
            files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

RunAnalysis mergeRankSummaries(
    const std::vector<std::filesystem::path>& paths, AnalysisOptions* optionsOut, const RunReadControl& control)
{
    std::vector<std::filesystem::path> files;
    for (const auto& p : paths) {
        if (!std::filesystem::is_directory(p)) {
            files.push_back(p);
            continue;
        }
        const auto inFolder = summaryFilesInFolder(p);
        if (inFolder.empty())
            throw InputError(p.string() + ": no trace summaries (*.summary.json) in this folder");
        files.insert(files.end(), inFolder.begin(), inFolder.end());
    }
    if (files.empty())
        throw InputError("give at least one trace summary");
    std::vector<RankAnalysis> ranks;
    std::optional<json> firstOptions;
    for (size_t i = 0; i < files.size(); ++i) {
        if (control.cancel && control.cancel->load())
            throw Cancelled();
        const std::string name = files[i].string();
        const std::string text = readWholeFile(files[i], "a trace summary");
        json j;
        try {
            j = readingInput(name, [&] { return json::parse(text); });
        } catch (const json::parse_error& e) {
            throw InputError(name + ": " + jsonParseProblem(e, text.size()));
        } catch (const json::out_of_range&) { // a number beyond double range, e.g. 1e309
            throw InputError(name + ": " + kJsonNumberTooLarge);
        }
        AnalysisOptions options;
        RankAnalysis r = rankSummaryFromJson(j, name, options);
        if (!r.rankFromTrace)
            r.rank = static_cast<int>(i); // as loadRun: the order given
        const json o = optionsToJson(options);
        if (!firstOptions) {
            firstOptions = o;
            if (optionsOut)
                *optionsOut = options;
        } else if (o != *firstOptions) {
            throw InputError(name + ": options: " + o.dump() + " differ from the first summary's "
                + firstOptions->dump() + "; make every summary with the same options");
        }
        ranks.push_back(std::move(r));
        if (control.onFileDone)
            control.onFileDone(i);
    }
    std::stable_sort(
        ranks.begin(), ranks.end(), [](const RankAnalysis& a, const RankAnalysis& b) { return a.rank < b.rank; });
    return finishRun(std::move(ranks));
}

RankFolderKind rankFolderKind(const std::filesystem::path& folder)
{
    if (!std::filesystem::is_directory(folder))
        throw InputError(folder.string() + ": not a folder");
    const auto summaries = summaryFilesInFolder(folder);
    std::vector<OtherFileInFolder> others;
    const auto traces = traceFilesInFolder(folder, &others); // *.summary.json end in .json: they are among these
    if (traces.empty())
        throw InputError(folder.string()
            + ": no trace files (*.json, *.json.gz, *.sqlite) or trace summaries "
              "(*.summary.json) in this folder"
            + otherFilesText(others));
    if (summaries.empty())
        return RankFolderKind::Traces;
    if (summaries.size() == traces.size())
        return RankFolderKind::Summaries;
    throw InputError(folder.string()
        + ": holds both trace files and trace summaries (*.summary.json); open a "
          "folder of one kind (the summaries are the same ranks, already analysed)");
}

} // namespace mfu::trace
