// `trace LOGFILE [--model ... --gpu ... --gpus N --seq S --tokens-per-step N] [--json]`: a training log's steps and
// medians (core/logs/training_log.h), and the core diagnosis of the MFU and TFLOPS it claims
// (core/diagnosis/log_diagnosis.h). JSON: { "log": <core/logs/log_json.h>, "diagnosis":
// <core/diagnosis/diagnosis_json.h> | null, "diagnosis_unavailable": reason (only when null), "measured_mfu_withheld":
// why the recomputed MFU is not shown (only when the log ran on another GPU than --gpu; its mfu keys are then null) }.
#include "app/cli/cmd_trace_log.h"

#include <QFileInfo>

#include <nlohmann/json.hpp>

#include "app/cli/cli_common.h"
#include "app/cli/log_input.h"
#include "app/preset_store.h"
#include "core/diagnosis/diagnosis_json.h"
#include "core/errors.h"
#include "core/facts/shown_log_mfu.h"
#include "core/logs/log_json.h"
#include "core/number_format.h"

namespace mfu::cli {

namespace {

std::string figure(const nlohmann::json& v, double scale, int decimals, const char* unit)
{
    return v.is_null() ? std::string("not logged") : formatNumber(v.get<double>() * scale, decimals) + unit;
}

void printLogText(const nlohmann::json& out, const std::optional<Diagnosis>& diagnosis)
{
    const auto& log = out["log"];
    const auto& s = log["summary"];
    std::string text = "training log " + log["file"].get<std::string>() + " (" + log["format"].get<std::string>()
        + "): " + std::to_string(log["step_count"].get<size_t>()) + " steps, medians over "
        + std::to_string(s["steps_used"].get<size_t>()) + " after "
        + std::to_string(s["warmup_steps_left_out"].get<size_t>()) + " warm-up";
    if (s["warmup_steps_left_out"] != log["warmup_steps"])
        text += " (" + std::to_string(log["warmup_steps"].get<size_t>())
            + " asked; the log has too few steps, so its last step is used)";
    if (const size_t zeros = s["zero_figures_left_out"].get<size_t>(); zeros > 0)
        text += "; " + std::to_string(zeros) + " figure" + (zeros == 1 ? "" : "s")
            + " stated as 0 (a stalled step or a placeholder) left out of the medians";
    if (const size_t dropped = log["implausible_figures_dropped"].get<size_t>(); dropped > 0)
        text += "; " + std::to_string(dropped) + " figure" + (dropped == 1 ? "" : "s")
            + " beyond any real job (a logger's overflow or a unit slip) left out";
    text += "\n";
    const char* scope = log["scope"] == "per_gpu" ? " per GPU" : " (scope not stated)";
    text += "  step time   " + figure(s["median_step_time_s"], 1, 3, " s") + "\n";
    text += "  tokens/s    " + figure(s["median_tokens_per_sec"], 1, 0, "") + scope + "\n";
    text += "  TFLOPS      " + figure(s["median_tflops"], 1, 1, "") + scope + "\n";
    text += "  MFU claimed " + figure(s["median_mfu_claimed"], 100, 2, "%") + "\n";
    if (out.contains("measured_mfu_withheld")) // as the Training log tab says it, above the findings
        text += "  MFU recomputed: not shown: " + out["measured_mfu_withheld"].get<std::string>() + "\n";
    if (diagnosis)
        text += diagnosisToText(*diagnosis);
    else
        text += "no diagnosis: " + out["diagnosis_unavailable"].get<std::string>() + "\n";
    printText(QString::fromStdString(text));
}

} // namespace

int runTraceLog(const QCommandLineParser& parser, const QStringList& files)
{
    if (files.size() != 1)
        throw InputError("one training log at a time (compare logs with 'diagnose --log A --log B')");
    for (const char* flag : { "compare", "kernel-rules" })
        if (parser.isSet(QString::fromLatin1(flag)))
            throw InputError("--" + std::string(flag) + " applies to profiler traces, not to training logs");
    const QString& path = files.first();
    const trace::TrainingLog log = readTrainingLog(path, resolveLogPattern(parser));
    const size_t warmup = resolveWarmupSteps(parser);
    const auto& presets = app::presetLibrary();
    // The window's and the report's policy for the recomputed MFU (core/facts/shown_log_mfu.h): a log that ran on
    // another GPU than --gpu shows no figure.
    const ShownLogMfu shown
        = shownLogMfu(log, logRunContext(parser, QFileInfo(path).fileName()), presets.hardware(), warmup);
    const trace::LogCheck& check = shown.check;
    // Without a model or GPU on the command line the check runs when the log itself names enough; only a check the
    // user asked for turns its failure into an error.
    if (!check.diagnosis
        && (parser.isSet(QStringLiteral("model")) || parser.isSet(QStringLiteral("params"))
            || parser.isSet(QStringLiteral("gpu"))))
        throw InputError(check.unavailable);
    nlohmann::json out;
    const bool json = parser.isSet(QStringLiteral("json"));
    out["log"] = trace::logToJson(log, check.summary, warmup, json); // the text prints only the count
    out["log"]["file"] = path.toStdString();
    out["diagnosis"] = check.diagnosis ? diagnosisToJson(*check.diagnosis) : nlohmann::json();
    if (!check.diagnosis)
        out["diagnosis_unavailable"] = check.unavailable;
    if (shown.withheld) {
        // No number a script could print as the run's MFU, as for a trace's measured_mfu.
        out["measured_mfu_withheld"] = *shown.withheld;
        if (out["diagnosis"].is_object()) {
            out["diagnosis"]["mfu"] = nullptr;
            for (auto& run : out["diagnosis"]["runs"])
                run["mfu"] = nullptr;
        }
    }
    if (json)
        printJson(out);
    else
        printLogText(out, check.diagnosis);
    return 0;
}

} // namespace mfu::cli
