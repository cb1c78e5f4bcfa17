#include "core/logs/training_log.h"

// Reading a training log line by line (format detection, steps, facts, progress), and the user pattern syntax.
// The rule tables are in core/logs/log_formats.cpp and log_facts.cpp, the medians in log_summary.cpp.
#include <algorithm>
#include <limits>
#include <set>

#include "core/errors.h"
#include "core/io/read_file.h"
#include "core/job_ceilings.h"
#include "core/large_stack.h"
#include "core/logs/log_facts.h"
#include "core/logs/log_formats.h"
#include "core/logs/log_text.h"
#include "core/trace/byte_source.h"

namespace mfu::trace {

using logtext::withoutAnsi;

namespace {

// Progress and cancel about every megabyte, as the trace readers do (core/trace/byte_source.h).
constexpr uint64_t kReportEvery = 1 << 20;

// std::getline keeps a line whole, however long: a file with no newline in gigabytes would be held whole. Lines are
// read into a buffer this size; one longer is no logger's step or settings line, and is skipped (and counted).
constexpr size_t kMaxLineBytes = 1 << 20;

// The next line, without its '\n', into `line`; false at the end of input. `consumed` grows by the bytes read
// (newline included); `tooLong` says the line did not fit kMaxLineBytes and was skipped.
bool nextLine(std::istream& in, std::vector<char>& buffer, std::string& line, uint64_t& consumed, bool& tooLong)
{
    tooLong = false;
    in.getline(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const auto got = static_cast<size_t>(in.gcount());
    if (in.fail() && !in.eof() && got == buffer.size() - 1) { // the buffer filled before a newline came
        in.clear();
        in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
        consumed += got + static_cast<size_t>(in.gcount());
        tooLong = true;
        line.clear();
        return true;
    }
    if (got == 0 && in.fail())
        return false;
    consumed += got;
    const size_t stored = in.eof() ? got : got - 1; // gcount counts an extracted newline, which is not stored
    line.assign(buffer.data(), stored);
    if (in.eof())
        in.clear(in.rdstate() & ~std::ios::failbit); // the last line had no newline: it still counts
    return true;
}

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

// torchrun's per-rank line prefixes: "[rank3]:" (PyTorch 2.2 and later) and "[default3]:" (--tee, --role default).
std::optional<int> rankPrefix(const std::string& line)
{
    size_t i = line.find_first_not_of(' ');
    if (i == std::string::npos || line[i] != '[')
        return std::nullopt;
    ++i;
    for (std::string_view word : { std::string_view("rank"), std::string_view("default") })
        if (line.compare(i, word.size(), word) == 0) {
            size_t j = i + word.size();
            int rank = 0;
            const size_t digits = j;
            while (j < line.size() && j - digits < 7 && line[j] >= '0' && line[j] <= '9')
                rank = rank * 10 + (line[j++] - '0');
            if (j > digits && j < line.size() && line[j] == ']')
                return rank;
        }
    return std::nullopt;
}

// Step lines that repeat a step another rank printed: the copies of each step, merged into it at the end.
class RankCopies {
public:
    // The index of the step this one repeats, if any: the same step number within the last lines that the ranks
    // seen so far can interleave (two per rank); a lower number beyond them starts another run (a restart).
    std::optional<size_t> original(const std::vector<LogStep>& steps, const LogStep& step, std::optional<int> rank)
    {
        if (rank)
            m_ranks.insert(*rank);
        const size_t window = 2 * std::max<size_t>(1, m_ranks.size());
        for (size_t k = 0; k < std::min(window, steps.size()); ++k) {
            const size_t j = steps.size() - 1 - k;
            if (steps[j].step == step.step)
                return j;
        }
        return std::nullopt;
    }
    void add(size_t original, const LogStep& copy) { m_copies.emplace_back(original, copy); }
    // Each step's figures become the mean over it and its copies (a figure only some copies state: their mean).
    size_t mergeInto(std::vector<LogStep>& steps) const
    {
        using Field = std::optional<double> LogStep::*;
        static constexpr Field fields[] = { &LogStep::stepSeconds, &LogStep::tokensPerSec, &LogStep::tflops,
            &LogStep::mfu, &LogStep::loss, &LogStep::peakTflops, &LogStep::flopsPerToken };
        for (Field field : fields) {
            std::vector<std::pair<double, int>> sums(steps.size(), { 0.0, 0 });
            for (size_t i = 0; i < steps.size(); ++i)
                if (steps[i].*field)
                    sums[i] = { *(steps[i].*field), 1 };
            for (const auto& [i, copy] : m_copies)
                if (copy.*field) {
                    sums[i].first += *(copy.*field);
                    ++sums[i].second;
                }
            for (const auto& [i, copy] : m_copies)
                if (sums[i].second > 0)
                    steps[i].*field = sums[i].first / sums[i].second;
        }
        return m_copies.size();
    }

private:
    std::set<int> m_ranks;
    std::vector<std::pair<size_t, LogStep>> m_copies;
};

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

namespace {

// Drops each step figure beyond any real job (a logger's integer overflow printing 2^63 tokens/s, a unit slip) and
// returns how many. A claimed MFU is kept whatever it says: one above 100% is the diagnosis' finding to make.
size_t dropImplausibleFigures(std::vector<LogStep>& steps)
{
    size_t dropped = 0;
    const auto drop = [&dropped](std::optional<double>& figure, double most) {
        if (figure && *figure > most) {
            figure.reset();
            ++dropped;
        }
    };
    for (LogStep& s : steps) {
        drop(s.stepSeconds, ceiling::kStepSeconds);
        drop(s.tokensPerSec, ceiling::kClusterTokensPerSec);
        drop(s.tflops, ceiling::kClusterTflops);
        drop(s.peakTflops, ceiling::kClusterTflops);
        drop(s.flopsPerToken, ceiling::kFlopsPerToken);
    }
    return dropped;
}

TrainingLog readLog(
    std::istream& in, const std::string& name, const std::optional<LogPattern>& pattern, const ReadControl& control)
{
    const std::optional<LogFormat> custom = pattern ? std::optional(customLogFormat(*pattern, name)) : std::nullopt;
    const LogFormat* format = custom ? &*custom : nullptr;
    const uint64_t total = control.onProgress ? bytesLeft(in) : 0;
    uint64_t done = 0;
    uint64_t nextReport = kReportEvery;
    TrainingLog log;
    RankCopies copies;
    std::optional<std::pair<size_t, LogStep>> pendingCopy; // a copy whose later lines may still add fields
    std::string raw;
    std::string stripped;
    std::vector<char> buffer(kMaxLineBytes + 1);
    bool tooLong = false;
    while (nextLine(in, buffer, raw, done, tooLong)) {
        if (done >= nextReport) {
            nextReport = done + kReportEvery;
            report(control, std::min(done, total), total);
        }
        if (tooLong) {
            ++log.longLinesSkipped;
            continue;
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
        if (step) {
            step->globalBatchSamples = log.facts.globalBatchSamples; // this line's, when it prints one
            if (pendingCopy)
                copies.add(pendingCopy->first, pendingCopy->second);
            pendingCopy.reset();
            if (const auto original = copies.original(log.steps, *step, rankPrefix(line)))
                pendingCopy.emplace(*original, *step);
            else
                log.steps.push_back(*step);
        } else if (format && format->multiLine && !log.steps.empty()) {
            readFields(line, *format, pendingCopy ? pendingCopy->second : log.steps.back());
        }
    }
    if (pendingCopy)
        copies.add(pendingCopy->first, pendingCopy->second);
    log.rankCopiesMerged = copies.mergeInto(log.steps);
    log.implausibleFiguresDropped = dropImplausibleFigures(log.steps);
    report(control, total, total);
    // Says how to give a pattern, not only that one is needed (a MaxText log, say): the command line's flags; the
    // window adds its pattern row under this message (widgets/trace/log_pattern_row.h).
    if (log.steps.empty())
        throw InputError(name
            + ": no training-step lines recognised (torchtitan, Megatron-LM, nanoGPT, iteration blocks"
            + std::string(pattern ? ", or the given pattern)"
                                  : "); read another format with a pattern of your own on the command line: "
                                    "mfu-explorer trace LOGFILE --log-pattern REGEX --log-groups step=1,time_s=2 "
                                    "(groups: step, time_s, time_ms, tokens_per_sec, tflops, mfu_percent, loss)"));
    if (custom)
        log.format = "custom";
    return log;
}

} // namespace

TrainingLog parseTrainingLog(
    std::istream& in, const std::string& name, const std::optional<LogPattern>& pattern, const ReadControl& control)
{
    // A log pattern of many alternatives recurses deeply even within a line's bounded window (core/large_stack.h).
    TrainingLog log;
    runOnLargeStack([&] { log = readingInput(name, [&] { return readLog(in, name, pattern, control); }); });
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
