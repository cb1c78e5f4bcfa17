// `mfu-explorer trace FILE... [--compare FILE...] [--model ... --gpu ... --tokens-per-step N] [--json]`
// Reads profiler traces (a folder = one multi-rank run), breaks the step time into kernel categories, overlap and
// idle (core/trace), and with a model and tokens per step gives the measured MFU. The JSON keys listed in
// core/trace/analysis_json.h are FIXED (a contract). A training log (detected by content) goes to cmd_trace_log.cpp.
#include <QFileInfo>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <vector>

#include "app/cli/cli_common.h"
#include "app/cli/cli_text.h"
#include "app/cli/cmd_trace_log.h"
#include "app/cli/commands.h"
#include "app/cli/log_input.h"
#include "app/preset_store.h"
#include "core/errors.h"
#include "core/facts/file_facts.h"
#include "core/facts/shown_mfu.h"
#include "core/model/flops.h"
#include "core/number_format.h"
#include "core/presets/gpu_match.h"
#include "core/scenario/scenario_facts.h"
#include "core/text.h"
#include "core/trace/analysis_json.h"
#include "core/trace/builtin_kernel_rules.h"
#include "core/trace/comparison.h"
#include "core/trace/cross_rank.h"
#include "core/trace/rank_summary.h"
#include "core/trace/run_consistency.h"
#include "core/trace/run_reader.h"
#include "core/trace/step_work.h"
#include "core/trace/trace_loader.h"
#include "core/trace/trace_mfu.h"

namespace mfu::cli {

namespace {

void printLine(const QString& text)
{
    printText(text + QLatin1Char('\n'));
}

trace::KernelRules kernelRules(const QCommandLineParser& parser)
{
    // User rules win: each --kernel-rules file is tried before the ones given after it and before the built-ins.
    std::vector<std::string> files;
    for (const QString& f : parser.values(qs("kernel-rules")))
        files.push_back(f.toStdString());
    return trace::kernelRulesWithUserFiles(files);
}

std::vector<std::filesystem::path> paths(const QStringList& names)
{
    std::vector<std::filesystem::path> out;
    for (const QString& n : names)
        out.emplace_back(n.toStdString());
    return out;
}

struct MfuInputs {
    Scenario scenario; // model, sequence, formula, GPU and precision; the GPU count is the run's
    std::optional<double> matmulFlopsPerToken; // training FLOP/token of the matmuls (attention core excluded)
    FileFacts recorded; // what the trace states (its GPU, tokens, sequence), checked against the inputs
    double tokensPerStep = 0;
    nlohmann::json description;
};

// --model/--params switches measured MFU on. What the flags leave out comes from what the trace records, as the
// GPU comes from --gpu, else from the trace's deviceProperties name: the tokens per step from a single process's
// embedding lookups (core/trace/trace_facts.h), the sequence length from their token ids (else 8192). A rank of a
// larger job records only its own tokens, so --tokens-per-step is then required. `gpus` is the run's GPU count
// (--gpus, else the trace's).
std::optional<MfuInputs> mfuInputs(const QCommandLineParser& parser, const trace::RunAnalysis& run, int gpus)
{
    const auto model = resolveOptionalModel(parser);
    const bool tokens = parser.isSet(qs("tokens-per-step"));
    if (!model && !tokens)
        return std::nullopt;
    if (!model)
        throw InputError("measured MFU needs a model (--model or --params) beside --tokens-per-step");
    MfuInputs in;
    in.recorded = factsFromTrace(run);
    const FileFacts& recorded = in.recorded;
    std::string tokensFrom = "flag", seqFrom = "flag";
    if (tokens) {
        in.tokensPerStep = parsePositive(parser.value(qs("tokens-per-step")), qs("tokens-per-step"));
    } else if (recorded.tokensPerStep) {
        in.tokensPerStep = *recorded.tokensPerStep;
        tokensFrom = "trace";
        // The lookups are this process's tokens: a run of more GPUs than the trace holds read others it did not see.
        const int processes = std::max<int>(1, static_cast<int>(run.ranks.size()));
        if (parser.isSet(qs("gpus")) && gpus > processes)
            throw InputError("measured MFU needs --tokens-per-step: the trace records the "
                + formatNumber(in.tokensPerStep) + " tokens a step of " + (processes == 1 ? "one process" : "its ranks")
                + ", but --gpus " + std::to_string(gpus)
                + " says the run had more GPUs, whose tokens it does not record (give the whole run's tokens per step: "
                  "each data-parallel rank's times their number)");
    } else {
        throw InputError(run.ranks.size() > 1 || recorded.gpuCount.value_or(1) > 1
                ? "measured MFU needs --tokens-per-step: each rank's trace records only its own tokens, not the "
                  "run's"
                : "measured MFU needs --tokens-per-step: the trace records no usable token ids (its embedding "
                  "lookups need record_shapes=True)");
    }
    if (!parser.isSet(qs("seq")))
        seqFrom = recorded.seqLen ? "trace" : "default";
    const int64_t seq = resolveSeqLen(parser, recorded.seqLen.value_or(8192));
    const FlopFormula formula = resolveFormula(parser, *model);
    resolveFlopsPerToken(*model, seq, formula); // a formula the model cannot answer is an error now
    in.scenario.model = *model;
    in.scenario.workload.seqLen = seq;
    in.scenario.mfuFormula = formula;
    if (!model->isBare()) {
        const ForwardComponents fc = forwardComponents(*model, seq);
        in.matmulFlopsPerToken = 3.0 * (fc.total() - fc.attentionCore());
    }
    QString gpuId;
    if (!parser.isSet(qs("gpu"))) {
        const auto& known = app::presetLibrary().hardware();
        std::string hint;
        for (const auto& r : run.ranks)
            if (r.gpuName) {
                const GpuMatch match = matchGpuName(*r.gpuName, known);
                if (match.presetId) {
                    gpuId = QString::fromStdString(*match.presetId);
                    break;
                }
                if (hint.empty())
                    hint = unmatchedGpuHint(*r.gpuName, match, app::userPresetFolder().toStdString());
            }
        if (gpuId.isEmpty())
            throw InputError(hint.empty() ? "the trace does not name its GPU; give --gpu ID" : hint);
    }
    in.scenario.cluster.hardware = resolveHardware(parser, gpuId);
    in.scenario.precision = resolvePrecision(parser);
    in.description = { { "model", model->id }, { "seq", seq }, { "seq_from", seqFrom },
        { "formula", std::string(flopFormulaKey(formula)) }, { "gpu", in.scenario.cluster.hardware.id },
        { "tokens_per_step", in.tokensPerStep }, { "tokens_per_step_from", tokensFrom } };
    return in;
}

// "; sequence 4,096 and 32,768 tokens per step as the trace records them": the inputs no flag gave, or "".
std::string recordedInputsText(const nlohmann::json& inputs)
{
    const bool seq = inputs["seq_from"] == "trace", tokens = inputs["tokens_per_step_from"] == "trace";
    if (!seq && !tokens)
        return "";
    std::string text = "; ";
    if (seq)
        text += "sequence " + formatNumber(inputs["seq"].get<double>());
    if (seq && tokens)
        text += " and ";
    if (tokens)
        text += formatNumber(inputs["tokens_per_step"].get<double>()) + " tokens per step";
    return text + (seq && tokens ? " as the trace records them" : " as the trace records it");
}

// The run's JSON, measured MFU included when the flags ask for it; `run` comes from the traces or from summaries.
nlohmann::json runJson(const QCommandLineParser& parser, const trace::RunAnalysis& run)
{
    const int gpus = parser.isSet(qs("gpus")) ? resolveGpuCount(parser) : run.gpuCount();
    const auto in = mfuInputs(parser, run, gpus);
    std::vector<std::optional<MfuResult>> perRank;
    std::optional<MfuResult> overall;
    const trace::GpuPresetContext known { app::presetLibrary().hardware(), app::userPresetFolder().toStdString() };
    std::optional<ShownMfu> shown;
    if (in) {
        // The Trace panel's and the report's measured MFU: one core function (core/scenario/scenario_facts.h),
        // shown under one policy (core/facts/shown_mfu.h).
        Scenario s = in->scenario;
        s.cluster.gpuCount = gpus;
        if (run.meanStepSeconds > 0) {
            overall = scenarioMfuAtStepTime(s, in->tokensPerStep, run.meanStepSeconds);
            const FactsCheck facts = checkFacts(in->recorded, s, in->tokensPerStep, known.hardware);
            shown = shownMeasuredMfu(*overall, facts);
        }
        // A rank's figure divides by the same peak: withheld with the run's.
        for (const auto& r : run.ranks)
            perRank.push_back(r.meanStepSeconds > 0 && (!shown || shown->shown())
                    ? std::optional(scenarioMfuAtStepTime(s, in->tokensPerStep, r.meanStepSeconds))
                    : std::nullopt);
    }
    nlohmann::json j = trace::runToJson(run, known, perRank);
    j["cross_rank"] = trace::crossRankToJson(run);
    if (in && in->matmulFlopsPerToken)
        for (size_t i = 0; i < run.ranks.size(); ++i)
            if (const auto e = trace::measuredGemmEfficiency(*in->matmulFlopsPerToken, in->tokensPerStep, gpus,
                    run.ranks[i], overall ? overall->peakFlopsPerGpu : 0.0))
                j["ranks"][i]["measured_gemm_efficiency"] = *e;
    if (overall) {
        nlohmann::json m = trace::mfuToJson(*overall);
        m["inputs"] = in->description;
        m["gpu_count"] = gpus;
        if (shown->withheld) {
            // No number a script could print as the run's MFU; the figure the inputs give stays on record.
            m["withheld"] = *shown->withheld;
            m["withheld_mfu"] = overall->mfu;
            for (const char* key : { "mfu", "hfu", "mfu_vs_fp8_peak" })
                if (m.contains(key))
                    m[key] = nullptr;
        }
        if (shown->warning)
            m["warning"] = *shown->warning;
        j["measured_mfu"] = m;
    }
    const trace::RunTraceMfu runTraceMfu = trace::traceMfuOfRun(run, known.hardware);
    const auto& traceMfu = runTraceMfu.mfu;
    j["trace_mfu"] = traceMfu ? nlohmann::json(*traceMfu) : nlohmann::json(nullptr);
    j["trace_mfu_note"] = runTraceMfu.note;
    j["trace_hfu"] = runTraceMfu.hfu ? nlohmann::json(*runTraceMfu.hfu) : nlohmann::json(nullptr);
    j["trace_hfu_note"] = trace::traceHfuText(runTraceMfu, run);
    j["trace_mfu_lower_bound"] = runTraceMfu.lowerBound;
    j["trace_mfu_unattributed_share"] = runTraceMfu.unattributedShare;
    if (runTraceMfu.abovePeak)
        j["trace_mfu_above_peak"] = *runTraceMfu.abovePeak;
    // Checked against the trace's own MFU when the policy allows it (the peak is the trace GPU's), as the window does.
    if (traceMfu && shown && shown->crossCheckable) {
        const trace::MfuCrossCheck check = trace::crossCheckMfu(
            run, *traceMfu, *shown->crossCheckable, scenarioFlopFormula(in->scenario), shown->countedDifferences);
        j["mfu_check"] = { { "trace_mfu", check.traceMfu }, { "measured_mfu", check.measuredMfu },
            { "relative_difference", check.relativeDifference }, { "agrees", check.agrees },
            { "explanations", check.explanations }, { "summary", check.summary } };
        if (shown->withheld) // as measured_mfu.mfu: the figure stays on record there, as withheld_mfu
            j["mfu_check"]["measured_mfu"] = nullptr;
    }
    return j;
}

// Files from different jobs are not one run unless the user says so (--as-one-run); then the JSON says what looked
// wrong.
void checkOneRun(const QCommandLineParser& parser, const trace::RunAnalysis& run, nlohmann::json& out)
{
    const trace::RunConsistency c = trace::checkOneRun(run.ranks);
    if (c.oneRun())
        return;
    if (!parser.isSet(QStringLiteral("as-one-run")))
        throw InputError(c.sentence() + " Give --as-one-run to analyse them as one run anyway.");
    out["run_check"] = { { "one_run", false }, { "problems", c.problems } };
}

// Every rank read and analysed in parallel on all cores (core/trace/run_reader.h); same figures as one at a time.
nlohmann::json analyse(const QCommandLineParser& parser, const QStringList& files, const trace::KernelRules& rules,
    const trace::AnalysisOptions& options, trace::RunAnalysis& run)
{
    run = trace::readAndAnalyzeRun(trace::expandRunPaths(paths(files)), rules, options);
    nlohmann::json j = runJson(parser, run);
    checkOneRun(parser, run, j);
    return j;
}

double ms(const nlohmann::json& seconds)
{
    return seconds.get<double>() * 1e3;
}

// The straggler table (step-time distribution per rank beside its collective wait) and the collectives the ranks
// waited longest for: the text form of the JSON's cross_rank object, the same numbers.
void printCrossRank(const nlohmann::json& cross)
{
    const bool waits = cross.contains("collective_wait");
    printLine(QStringLiteral("stragglers: step time per rank (ms, analysed steps)%1")
                  .arg(waits ? QStringLiteral(" and collective wait") : QString()));
    printLine(QString::asprintf("  %6s %6s %10s %10s %10s %10s %10s %10s%s", "rank", "steps", "min", "quartile 1",
        "median", "quartile 3", "max", "mean", waits ? "  | wait (ms)  started last" : ""));
    const auto& times = cross["step_times"];
    for (size_t i = 0; i < times.size(); ++i) {
        const auto& t = times[i];
        QString line = QString::asprintf("  %6d %6zu %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f", t["rank"].get<int>(),
            t["steps"].get<size_t>(), ms(t["min_s"]), ms(t["lower_quartile_s"]), ms(t["median_s"]),
            ms(t["upper_quartile_s"]), ms(t["max_s"]), ms(t["mean_s"]));
        if (waits) {
            const auto& w = cross["collective_wait"]["ranks"][i];
            line += QString::asprintf("  | %9.3f  %zu of %zu", ms(w["wait_s"]), w["times_slowest"].get<size_t>(),
                cross["collective_wait"]["collectives"].size());
        }
        printLine(line);
    }
    if (!waits)
        return;
    const auto& w = cross["collective_wait"];
    const auto& calls = w["collectives"];
    printLine(QString::asprintf("collective wait: %zu collectives matched on every rank, %zu calls left unmatched; "
                                "a rank's wait is the last rank's start minus its own",
        calls.size(), w["unmatched_calls"].get<size_t>()));
    if (calls.empty())
        return;
    std::vector<size_t> order(calls.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&calls](size_t a, size_t b) {
        return calls[a]["max_wait_s"].get<double>() > calls[b]["max_wait_s"].get<double>();
    });
    printLine(QStringLiteral("  longest waits:"));
    printLine(QString::asprintf(
        "  %8s  %-20s %12s %14s %14s", "call #", "category", "waited for", "max wait (ms)", "mean wait (ms)"));
    for (size_t i = 0; i < std::min<size_t>(order.size(), 5); ++i) {
        const auto& c = calls[order[i]];
        printLine(QString::asprintf("  %8zu  %-20s %12s %14.3f %14.3f", c["index"].get<size_t>(),
            c["category"].get<std::string>().c_str(),
            qPrintable(QStringLiteral("rank %1").arg(c["slowest_rank"].get<int>())), ms(c["max_wait_s"]),
            ms(c["mean_wait_s"])));
    }
}

// The kernels whose time per step changed most (comparison.kernels is sorted by |delta per step|): per step, so that
// runs profiled over different step counts compare, as the verdict line's categories do.
void printKernelDiff(const nlohmann::json& kernels)
{
    constexpr size_t kShown = 10;
    constexpr int kNameWidth = 100;
    printLine(QString::asprintf("top kernel changes (per analysed step, all ranks; calls over all analysed steps; %zu "
                                "of %zu kernels):",
        std::min(kShown, kernels.size()), kernels.size()));
    printLine(QString::asprintf("  %12s %13s %13s %17s  %-18s %s", "change (ms)", "baseline (ms)", "optimised (ms)",
        "calls", "category", "kernel"));
    for (size_t i = 0; i < std::min(kShown, kernels.size()); ++i) {
        const auto& k = kernels[i];
        QString name = QString::fromStdString(k["name"].get<std::string>());
        if (name.size() > kNameWidth)
            name = name.left(kNameWidth - 3) + QStringLiteral("..."); // --json has the whole name
        if (k.contains("baseline_name")) // one kernel under two names: say both
            name += QStringLiteral(" (in the baseline: %1)")
                        .arg(QString::fromStdString(k["baseline_name"].get<std::string>()).left(kNameWidth));
        const QString calls = QStringLiteral("%1 -> %2")
                                  .arg(k["baseline_count"].get<int64_t>())
                                  .arg(k["optimised_count"].get<int64_t>());
        printLine(QString::asprintf("  %+12.3f %13.3f %13.3f %17s  %-18s %s", ms(k["delta_s_per_step"]),
            ms(k["baseline_s_per_step"]), ms(k["optimised_s_per_step"]), qPrintable(calls),
            k["category"].get<std::string>().c_str(), qPrintable(name)));
    }
}

QString teraflop(double flops)
{
    return QString::fromStdString(formatNumber(flops / 1e12, 3)) + QStringLiteral(" TFLOP");
}

// What the recorded shapes give (op_flops, roofline) and the critical path: the text of the JSON's keys.
void printWork(const nlohmann::json& r)
{
    const auto& f = r["op_flops"];
    if (!f["records_shapes"].get<bool>()) {
        printLine(QStringLiteral("  FLOPs from shapes: none (the trace records no operator shapes: profile with "
                                 "record_shapes=True)"));
    } else {
        QStringList precisions;
        trace::OpFlops shapeless;
        shapeless.opsWithoutShapes = f["ops_without_shapes"].get<int64_t>();
        shapeless.opsWithImpossibleShapes = f["ops_with_impossible_shapes"].get<int64_t>();
        const double model = f["model_flops"].get<double>();
        for (const auto& [key, flops] : f["by_precision"].items())
            if (model > 0)
                precisions << QString::fromStdString(key + " " + formatPercent(flops.get<double>() / model));
        const double recomputed = f["attention_recomputed_flops"].get<double>();
        const QString attention = teraflop(f["attention_flops"].get<double>())
            + (recomputed > 0 ? QStringLiteral(" (and %1 its backward kernels recompute, no model FLOPs)")
                                    .arg(teraflop(recomputed))
                              : QString());
        printLine(
            QStringLiteral("  model FLOPs from shapes (whole file): matmul %1, attention %2, grouped GEMM %3, "
                           "convolution %4; %5 operators counted, %6; by precision: %7")
                .arg(teraflop(f["matmul_flops"].get<double>()), attention,
                    teraflop(f["grouped_gemm_flops"].get<double>()), teraflop(f["convolution_flops"].get<double>()))
                .arg(f["ops_with_shapes"].get<int64_t>())
                .arg(QString::fromStdString(trace::shapelessOperatorsText(shapeless)))
                .arg(precisions.isEmpty() ? QStringLiteral("-") : precisions.join(QStringLiteral(", "))));
        if (!f["trace_mfu"].is_null())
            printLine(QStringLiteral("  trace MFU %1 (%2 in the analysed steps over %3 s against %4's peak at "
                                     "their precision, %5 TFLOPS)")
                          .arg(QString::fromStdString(formatPercent(f["trace_mfu"].get<double>())),
                              teraflop(f["flops_in_steps"].get<double>()),
                              QString::number(f["trace_mfu_s"].get<double>(), 'f', 6),
                              QString::fromStdString(f["trace_mfu_gpu"].get<std::string>()),
                              QString::fromStdString(formatNumber(f["trace_mfu_peak_tflops"].get<double>(), 1))));
        else if (f.contains("trace_mfu_above_peak"))
            printLine(QStringLiteral("  trace MFU: not shown (%1 of the peak is impossible: the steps found are "
                                     "shorter than the work they launched, the operators' recorded shapes are not "
                                     "what ran, or the trace's GPU is not the one named)")
                          .arg(QString::fromStdString(formatPercent(f["trace_mfu_above_peak"].get<double>()))));
        else
            printLine(QStringLiteral("  trace MFU: not available (%1)")
                          .arg(f["trace_mfu_gpu"].is_null() ? QStringLiteral("the trace names no GPU a preset matches")
                                                            : QStringLiteral("no matrix FLOPs in the analysed steps")));
        if (const double share = f["trace_mfu_unattributed_share"].get<double>(); share > trace::kUnattributedTolerance)
            printLine(QStringLiteral("  %1 of the GEMM and attention kernel time has no operator shapes (CUDA graph "
                                     "replays record none, nor do operators profiled without shapes%2): the trace "
                                     "MFU leaves it out and is a lower bound")
                          .arg(QString::fromStdString(formatPercent(share)),
                              shapeless.opsWithImpossibleShapes > 0
                                  ? QStringLiteral("; some recorded shapes no device could hold")
                                  : QString()));
    }
    const auto& p = r["critical_path"];
    if (!p["steps"].empty()) {
        QStringList shares;
        for (const auto& [key, share] : p["shares"].items())
            if (share.get<double>() > 0)
                shares << QString::fromStdString(key + " " + formatPercent(share.get<double>()));
        printLine(QStringLiteral("  critical path (all analysed steps): %1").arg(shares.join(QStringLiteral(", "))));
        if (p["host_time_note"].is_string())
            printLine(QStringLiteral("    %1").arg(QString::fromStdString(p["host_time_note"].get<std::string>())));
    }
    const auto& marks = r["roofline"]["marks"];
    constexpr size_t kShown = 5;
    const bool roofs = !r["roofline"]["ceilings"].empty();
    if (!marks.empty())
        printLine(
            (roofs ? QStringLiteral("  roofline, the %1 longest operator problems (achieved / attainable TFLOPS at "
                                    "FLOP per byte):")
                   : QStringLiteral("  roofline, the %1 longest operator problems (achieved TFLOPS at FLOP per "
                                    "byte; no roof: the trace names no GPU the presets know):"))
                .arg(std::min(kShown, marks.size())));
    for (size_t i = 0; i < std::min(kShown, marks.size()); ++i) {
        const auto& m = marks[i];
        QString label = QString::fromStdString(m["op"].get<std::string>() + " " + m["shapes"].get<std::string>());
        if (label.size() > 70)
            label = label.left(67) + QStringLiteral("...");
        const QString attainable = m["attainable_tflops"].is_null()
            ? QStringLiteral("%1").arg(QStringLiteral("-"), 9)
            : QString::asprintf("%9.1f", m["attainable_tflops"].get<double>());
        printLine(QString::asprintf("    %9.3f ms  %9.1f / %s TFLOPS at %8.2f  %s", ms(m["seconds"]),
            m["tflops"].get<double>(), qPrintable(attainable), m["arithmetic_intensity"].get<double>(),
            qPrintable(label)));
    }
    if (const auto& above = r["roofline"]["above_peak"]; above["problem_count"].get<int64_t>() > 0)
        printLine(QStringLiteral("  ") + QString::fromStdString(above["note"].get<std::string>()));
}

void printSummary(const nlohmann::json& run, const char* title)
{
    printLine(QString::fromLatin1(title));
    for (const auto& r : run["ranks"]) {
        // The mean step apart from the totals, which are summed over every analysed step.
        printLine(QString::asprintf("rank %d  %s  steps %zu  mean step %.4f s;  over all steps: busy %.4f s, idle %.4f "
                                    "s, %lld kernels",
            r["rank"].get<int>(), r["gpu_name"].is_null() ? "GPU unknown" : r["gpu_name"].get<std::string>().c_str(),
            r["steps"].size(), r["mean_step_s"].get<double>(), r["busy_s"].get<double>(), r["idle_s"].get<double>(),
            static_cast<long long>(r["kernel_count"].get<int64_t>())));
        printLine(QString::fromStdString("  steps: " + r["step_selection"].get<std::string>()));
        if (!r["step_timing_note"].is_null())
            printLine(QString::fromStdString("  " + r["step_timing_note"].get<std::string>()));
        if (r.contains("warnings"))
            for (const auto& w : r["warnings"])
                printLine(QString::fromStdString("  warning: " + w.get<std::string>()));
        for (const auto& [key, c] : r["categories"].items())
            if (c["seconds"].get<double>() > 0)
                printLine(QString::asprintf("  %-20s %10.6f s  %6.2f%%", key.c_str(), c["seconds"].get<double>(),
                    100.0 * c["share"].get<double>()));
        printLine(QString::asprintf("  communication %.6f s, %.1f%% hidden under compute, exposed %.6f s",
            r["comm_s"].get<double>(), 100.0 * r["comm_overlap_fraction"].get<double>(),
            r["exposed_comm_s"].get<double>()));
        for (const auto& c : r["collective_sizes"])
            printLine(QStringLiteral("  ") + QString::fromStdString(c["summary"].get<std::string>()));
        if (!r["proposed_gpu_preset"].is_null())
            printLine(QString::fromStdString("  GPU preset " + r["proposed_gpu_preset"].get<std::string>()));
        else if (r.contains("gpu_preset_hint"))
            printLine(QString::fromStdString("  GPU preset: " + r["gpu_preset_hint"].get<std::string>()));
        if (r.contains("measured_mfu"))
            printLine(QString::asprintf("  measured MFU %.2f%%", 100.0 * r["measured_mfu"].get<double>()));
        printWork(r);
    }
    if (run.contains("straggler")) {
        const auto& s = run["straggler"];
        if (s.value("stands_out", true))
            printLine(QString::asprintf("slowest rank %d: %s +%.6f s per step over the median", s["rank"].get<int>(),
                s["cause"].get<std::string>().c_str(), s["excess_s_per_step"].get<double>()));
        else
            printLine(QString::asprintf("no rank stands out: rank %d does the most computation, %s +%.6f s per step "
                                        "over the median, within its steps' spread of %.6f s",
                s["rank"].get<int>(), s["cause"].get<std::string>().c_str(), s["excess_s_per_step"].get<double>(),
                s.value("rank_step_spread_s", 0.0)));
    }
    if (run["ranks"].size() >= 2)
        printCrossRank(run["cross_rank"]);
}

} // namespace

int runTrace(const QStringList& args)
{
    const QString command = qs("trace");
    return runSubcommand(command, [&]() -> int {
        QCommandLineParser parser;
        parser.addPositionalArgument(qs("files"),
            qs("Trace files (Kineto .json/.json.gz, Nsight SQLite); a folder is a multi-rank run; or one training log"),
            qs("FILE..."));
        parser.addOption(option(qs("compare"),
            qs("Baseline-vs-optimised: the positional FILEs are the baseline, these "
               "(repeat the option) the optimised run"),
            qs("FILE")));
        parser.addOption(option(qs("kernel-rules"),
            qs("Extra kernel classification rules (JSON), tried before the "
               "built-in ones; repeatable"),
            qs("FILE")));
        addFlopFormulaOption(parser);
        parser.addOption(option(qs("span"),
            qs("What a rank's totals cover: steps (default: the kept steps' GPU windows) or hta (as Holistic Trace "
               "Analysis: every activity launched before the last step starts, those before the first included)"),
            qs("DEF")));
        parser.addOption(option(qs("summary-out"),
            qs("Map step of a cluster-scale run: also write this one trace's per-rank summary here "
               "(reduce with `trace merge SUMMARY...`)"),
            qs("FILE")));
        parser.addOption(
            option(qs("tokens-per-step"), qs("Global tokens per step (all data-parallel ranks)"), qs("N")));
        parser.addOption(option(qs("as-one-run"),
            qs("Analyse the files as one run even when they look like different jobs (world sizes, GPUs or clocks "
               "that differ, a rank number twice)")));
        addModelOptions(parser);
        addClusterOptions(parser);
        addWorkloadOptions(parser);
        addLogOptions(parser);
        addJsonOption(parser);
        if (const auto status = parseArguments(parser, args, command))
            return *status;
        const QStringList files = parser.positionalArguments();
        if (files.isEmpty())
            throw InputError("give at least one trace file or folder");
        for (const QString& file : files) { // printed as given, and by their names
            noteEchoedName(file.toStdString());
            noteEchoedName(QFileInfo(file).fileName().toStdString());
        }
        if (parser.isSet(qs("log-pattern")) || std::any_of(files.begin(), files.end(), isTrainingLogFile)) {
            if (!parser.isSet(qs("log-pattern")) && !std::all_of(files.begin(), files.end(), isTrainingLogFile))
                throw InputError("give profiler traces or one training log, not both");
            return runTraceLog(parser, files);
        }
        const bool merge = files.first() == qs("merge");
        if (merge && files.size() < 2)
            throw InputError("trace merge: give the per-rank summaries (*.summary.json files or a folder of them)");
        if (merge && (parser.isSet(qs("summary-out")) || parser.isSet(qs("kernel-rules"))))
            throw InputError("trace merge: --summary-out and --kernel-rules belong to the map step (trace FILE ...)");
        const trace::KernelRules rules = kernelRules(parser); // for --compare traces; merge reads no trace

        trace::AnalysisOptions options;
        if (parser.isSet(qs("span"))) {
            const QString span = parser.value(qs("span"));
            if (span != qs("steps") && span != qs("hta"))
                throw InputError("--span: " + quotedForMessage(span.toStdString()) + " is neither steps nor hta");
            if (merge)
                throw InputError("trace merge: --span belongs to the map step (trace FILE ... --span hta)");
            options.span = span == qs("hta") ? trace::SpanDefinition::Hta : trace::SpanDefinition::Steps;
        }

        trace::RunAnalysis baseline;
        nlohmann::json out;
        if (merge) {
            baseline = trace::mergeRankSummaries(paths(files.mid(1)), &options);
            out = runJson(parser, baseline);
            checkOneRun(parser, baseline, out);
        } else {
            out = analyse(parser, files, rules, options, baseline);
        }
        if (parser.isSet(qs("summary-out"))) {
            if (baseline.ranks.size() != 1)
                throw InputError("--summary-out writes one rank's summary: give one trace file");
            refuseWritingOverInput(parser.value(qs("summary-out")), files, qs("summary-out"));
            trace::writeRankSummary(parser.value(qs("summary-out")).toStdString(), baseline.ranks[0], options);
        }
        if (parser.isSet(qs("compare"))) {
            trace::RunAnalysis optimised;
            out["compare"] = analyse(parser, parser.values(qs("compare")), rules, options, optimised);
            out["comparison"] = trace::comparisonToJson(trace::compareRuns(baseline, optimised));
            out["comparison"]["kernels"] = trace::kernelDiffToJson(trace::kernelDiff(baseline, optimised));
        }
        if (parser.isSet(qs("json"))) {
            printJson(out);
            return 0;
        }
        printSummary(out, parser.isSet(qs("compare")) ? "baseline" : "trace");
        if (out.contains("compare")) {
            printSummary(out["compare"], "optimised");
            const auto& c = out["comparison"];
            printLine(QString::fromStdString(c["verdict"].get<std::string>()));
            printKernelDiff(c["kernels"]);
        }
        if (out.contains("measured_mfu") && out["measured_mfu"].contains("warning"))
            printLine(QString::fromStdString("warning: " + out["measured_mfu"]["warning"].get<std::string>()));
        if (out.contains("measured_mfu") && out["measured_mfu"].contains("withheld"))
            printLine(QString::fromStdString(
                "measured MFU not shown: " + out["measured_mfu"]["withheld"].get<std::string>()));
        else if (out.contains("measured_mfu"))
            printLine(QString::asprintf("measured MFU %.2f%% (%.1f TFLOPS per GPU of %.1f dense peak)",
                          100.0 * out["measured_mfu"]["mfu"].get<double>(),
                          out["measured_mfu"]["achieved_tflops_per_gpu"].get<double>(),
                          out["measured_mfu"]["peak_dense_tflops_per_gpu"].get<double>())
                + QString::fromStdString(recordedInputsText(out["measured_mfu"]["inputs"])));
        printLine(QString::fromStdString("trace MFU: " + out["trace_mfu_note"].get<std::string>()));
        if (!out["trace_hfu"].is_null())
            printLine(QString::fromStdString("trace HFU: " + out["trace_hfu_note"].get<std::string>()));
        if (out.contains("mfu_check")) {
            printLine(QString::fromStdString(out["mfu_check"]["summary"].get<std::string>()));
            for (const auto& why : out["mfu_check"]["explanations"])
                printLine(QString::fromStdString("  may explain it: " + why.get<std::string>()));
        }
        return 0;
    });
}

} // namespace mfu::cli
