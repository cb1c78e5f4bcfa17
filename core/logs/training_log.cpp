#include "core/logs/training_log.h"

// Reading a training log line by line (format detection, steps, facts, progress), and the user pattern syntax.
// The rule tables are in core/logs/log_formats.cpp and log_facts.cpp, the medians in log_summary.cpp.
#include <algorithm>

#include "core/errors.h"
#include "core/trace/byte_source.h"
#include "core/logs/log_facts.h"
#include "core/logs/log_formats.h"
#include "core/logs/log_text.h"

namespace mfu::trace {

using logtext::withoutAnsi;

namespace {

// Progress and cancel about every megabyte, as the trace readers do (core/trace/byte_source.h).
constexpr uint64_t kReportEvery = 1 << 20;

void report(const ReadControl& control, uint64_t done, uint64_t total)
{
    if (control.cancel && control.cancel->load())
        throw Cancelled();
    if (control.onProgress)
        control.onProgress(done, total);
}

// The bytes from the stream's position to its end, or 0 when it cannot seek (a pipe); the position is kept.
uint64_t bytesLeft(std::istream& in)
{
    const std::istream::pos_type here = in.tellg();
    if (here == std::istream::pos_type(-1) || !in.seekg(0, std::ios::end)) {
        in.clear();
        return 0;
    }
    const std::istream::pos_type end = in.tellg();
    in.seekg(here);
    return end > here ? static_cast<uint64_t>(end - here) : 0;
}

} // namespace

LogPattern logPatternFromGroups(const std::string& regex, const std::string& groups)
{
    LogPattern p;
    p.regex = regex;
    size_t start = 0;
    while (start < groups.size()) {
        const size_t end = std::min(groups.find(',', start), groups.size());
        const std::string item = groups.substr(start, end - start);
        start = end + 1;
        const size_t eq = item.find('=');
        const std::string key = item.substr(0, eq);
        const auto index = eq == std::string::npos ? std::nullopt : logtext::stepNumber(item.substr(eq + 1));
        if (!index || *index <= 0 || *index > 99)
            throw InputError("log groups: '" + item + "' is not KEY=GROUP with a group number from 1 to 99");
        const int g = static_cast<int>(*index);
        if (key == "step")
            p.stepGroup = g;
        else if (key == "time_s" || key == "time_ms") {
            p.stepTimeGroup = g;
            p.stepTimeScaleToSeconds = key == "time_ms" ? 1e-3 : 1.0;
        } else if (key == "tokens_per_sec")
            p.tokensPerSecGroup = g;
        else if (key == "tflops")
            p.tflopsGroup = g;
        else if (key == "mfu_percent")
            p.mfuPercentGroup = g;
        else if (key == "loss")
            p.lossGroup = g;
        else
            throw InputError("log groups: unknown field '" + key
                + "' (use step, time_s, time_ms, tokens_per_sec, tflops, mfu_percent, loss)");
    }
    return p;
}

TrainingLog parseTrainingLog(std::istream& in, const std::string& name, const std::optional<LogPattern>& pattern)
{
    return parseTrainingLog(in, name, pattern, ReadControl {});
}

TrainingLog parseTrainingLog(
    std::istream& in, const std::string& name, const std::optional<LogPattern>& pattern, const ReadControl& control)
{
    const std::optional<LogFormat> custom = pattern ? std::optional(customLogFormat(*pattern, name)) : std::nullopt;
    const LogFormat* format = custom ? &*custom : nullptr;
    const uint64_t total = control.onProgress ? bytesLeft(in) : 0;
    uint64_t done = 0;
    uint64_t nextReport = kReportEvery;
    TrainingLog log;
    std::string raw;
    std::string stripped;
    while (std::getline(in, raw)) {
        done += raw.size() + 1;
        if (done >= nextReport) {
            nextReport = done + kReportEvery;
            report(control, std::min(done, total), total);
        }
        const std::string& line = withoutAnsi(raw, stripped);
        readFacts(line, log.facts);
        std::optional<LogStep> step;
        if (format) {
            step = startStep(line, *format, log.steps.size());
        } else {
            for (const LogFormat& f : builtInLogFormats())
                if ((step = startStep(line, f, 0))) {
                    format = &f;
                    log.format = f.name;
                    log.scope = f.scope;
                    break;
                }
        }
        if (step)
            log.steps.push_back(*step);
        else if (format && format->multiLine && !log.steps.empty())
            readFields(line, *format, log.steps.back());
    }
    report(control, total, total);
    if (log.steps.empty())
        throw InputError(name
            + ": no training-step lines recognised (torchtitan, Megatron-LM, nanoGPT, iteration blocks"
            + std::string(pattern ? ", or the given pattern)" : "); give a custom pattern"));
    if (custom)
        log.format = "custom";
    return log;
}

bool looksLikeTrainingLog(std::string_view head)
{
    const size_t first = head.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos || head.substr(0, 2) == "\x1f\x8b" || head.find('\0') != std::string_view::npos)
        return false; // empty, gzip, SQLite and other binaries
    // A JSON object, or an array of objects; log lines may start with '[' too ("[titan] ...", "[2025-01-01 ...]").
    const size_t second = head.find_first_not_of(" \t\r\n", first + 1);
    if (head[first] == '{' || (head[first] == '[' && (second == std::string_view::npos || head[second] == '{')))
        return false;
    size_t start = 0;
    while (start < head.size()) {
        const size_t end = std::min(head.find('\n', start), head.size());
        std::string stripped;
        const std::string raw(head.substr(start, end - start));
        const std::string& line = withoutAnsi(raw, stripped);
        for (const LogFormat& f : builtInLogFormats())
            if (startStep(line, f, 0))
                return true;
        start = end + 1;
    }
    return false;
}

} // namespace mfu::trace
