#include "core/trace/training_log.h"

#include <algorithm>
#include <charconv>
#include <memory>
#include <regex>

#include "core/errors.h"
#include "core/trace/byte_source.h"
#include "core/trace/log_line_scan.h"

namespace mfu::trace {

namespace {

// Removes ANSI colour sequences (ESC [ ... letter), which torchtitan writes around every field. Returns the line
// itself when it has none, else `out` (reused from line to line, so no allocation per line).
const std::string& withoutAnsi(const std::string& line, std::string& out)
{
    if (line.find('\x1b') == std::string::npos)
        return line;
    out.clear();
    size_t i = 0;
    while (i < line.size()) {
        const size_t esc = std::min(line.find('\x1b', i), line.size());
        out.append(line, i, esc - i); // the text up to the next escape, in one piece
        i = esc;
        if (i + 1 < line.size() && line[i + 1] == '[') {
            i += 2;
            while (i < line.size() && !((line[i] >= 'A' && line[i] <= 'Z') || (line[i] >= 'a' && line[i] <= 'z')))
                ++i;
            ++i; // the final letter
        } else if (i < line.size()) {
            out += line[i++]; // a lone ESC stays
        }
    }
    return out;
}

// The whole text as a number, thousands separators and '%' ignored (as std::stod would read it: a leading '+' is
// allowed); nothing when any of it is not part of the number or it is out of range.
std::optional<double> number(std::string_view text)
{
    char buffer[64];
    size_t n = 0;
    for (char c : text)
        if (c != ',' && c != '%') {
            if (n == sizeof buffer)
                return std::nullopt; // no number a log prints is this long
            buffer[n++] = c;
        }
    const char* first = buffer;
    if (n > 1 && buffer[0] == '+' && buffer[1] != '-' && buffer[1] != '+')
        ++first;
    double v = 0;
    const auto [end, error] = std::from_chars(first, buffer + n, v);
    return error == std::errc() && end == buffer + n ? std::optional(v) : std::nullopt;
}

// A step number from a matched run of digits; one beyond int64 (a corrupt line) means the line is not a step.
std::optional<int64_t> stepNumber(std::string_view digits)
{
    int64_t value = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    return error == std::errc() && end == digits.data() + digits.size() ? std::optional(value) : std::nullopt;
}

enum class Field { StepSeconds, TokensPerSec, Tflops, MfuPercent, Loss, PeakTflops, FlopsPerToken };

// One field: a literal that must be on the line (cheap pre-filter before the regex), the regex, its capture group,
// and the factor to the stored unit.
struct FieldRule {
    std::string needle;
    std::shared_ptr<const std::regex> re;
    Field field;
    size_t group = 1;
    double scale = 1.0;
};

// A field a hand-written scanner reads (core/trace/log_line_scan.h), for the formats with fixed lines.
struct ScanRule {
    scan::FieldPattern pattern;
    Field field;
    double scale = 1.0;
};

using StepScanner = std::optional<std::string_view> (*)(std::string_view line);

struct Format {
    std::string name;
    std::string stepNeedle;
    std::shared_ptr<const std::regex> step; // a line matching it starts a step
    size_t stepGroup = 1; // 0: no step number, steps are counted
    LogScope scope = LogScope::Unknown;
    bool multiLine = false; // fields also on the lines after the step line
    std::vector<FieldRule> fields;
    StepScanner stepScan = nullptr; // when set, used instead of `step` and `fields` (same matches, no regex)
    std::vector<ScanRule> scans;
};

// Runs a regex only from a little before its literal needle: std::regex is slow, and most of a log line is other
// fields. Every built-in match starts at most kLookBehind characters before its needle's first occurrence.
constexpr size_t kLookBehind = 32;

bool searchNear(const std::string& line, const std::string& needle, const std::regex& regex, std::smatch& m)
{
    const size_t at = line.find(needle);
    if (at == std::string::npos)
        return false;
    const size_t from = at > kLookBehind ? at - kLookBehind : 0;
    return std::regex_search(line.begin() + static_cast<std::ptrdiff_t>(from), line.end(), m, regex,
        from > 0 ? std::regex_constants::match_prev_avail : std::regex_constants::match_default);
}

std::shared_ptr<const std::regex> re(const char* pattern)
{
    return std::make_shared<const std::regex>(pattern, std::regex::ECMAScript | std::regex::optimize);
}

FieldRule rule(const char* needle, const char* pattern, Field field, double scale = 1.0)
{
    return { needle, re(pattern), field, 1, scale };
}

using scan::Chars;

ScanRule scanned(std::string_view key, bool wordStart, bool skipSpace, Chars chars, Field field, double scale = 1.0,
    bool optionalMinus = false, std::string_view suffix = {}, std::string_view lead = {})
{
    return { { key, wordStart, lead, skipSpace, chars, optionalMinus, suffix }, field, scale };
}

// The regex each scanned rule stands for is quoted beside it; tests/core/tst_log_line_scan.cpp checks them against
// each other on tricky lines.
const std::vector<Format>& builtInFormats()
{
    static const std::vector<Format> formats {
        { "megatron", "iteration", re(R"(\biteration\s+(\d+)\s*/\s*\d+.*elapsed time per iteration)"), 1,
            LogScope::PerGpu, false, {}, scan::megatronStep,
            { // elapsed time per iteration \(ms\):\s*([\d.]+)
                scanned("elapsed time per iteration (ms):", false, true, Chars::Decimal, Field::StepSeconds, 1e-3),
                // throughput per GPU \(TFLOP/s/GPU\):\s*([\d.]+)
                scanned("throughput per GPU (TFLOP/s/GPU):", false, true, Chars::Decimal, Field::Tflops),
                // lm loss:\s*([-\d.eE+]+)
                scanned("lm loss:", false, true, Chars::Exponent, Field::Loss) } },
        { "nanogpt", "iter ", re(R"(\biter (\d+): loss [-\d.]+, time [\d.]+ms, mfu)"), 1, LogScope::Unknown, false, {},
            scan::nanogptStep,
            { scanned(": loss ", false, false, Chars::Signed, Field::Loss), // : loss ([-\d.]+)
                scanned(
                    "time ", false, false, Chars::Decimal, Field::StepSeconds, 1e-3, false, "ms"), // time ([\d.]+)ms
                scanned("mfu ", false, false, Chars::Decimal, Field::MfuPercent, 1.0, true, "%") } }, // mfu (-?[\d.]+)%
        { "torchtitan", "step:", re(R"(\bstep:\s*(\d+)\b.*\b[tw]ps:)"), 1, LogScope::PerGpu, false, {},
            scan::torchtitanStep,
            { // \b[tw]ps:\s*([\d,.]+)
                scanned("ps:", true, true, Chars::Grouped, Field::TokensPerSec, 1.0, false, {}, "tw"),
                scanned("tflops:", true, true, Chars::Grouped, Field::Tflops), // \btflops:\s*([\d,.]+)
                scanned("mfu:", true, true, Chars::Decimal, Field::MfuPercent, 1.0, true, "%"), // \bmfu:\s*(-?[\d.]+)%
                scanned("loss:", true, true, Chars::Exponent, Field::Loss) } }, // \bloss:\s*([-\d.eE+]+)
        { "iter_block", "Iter", re(R"(\bIter\s+(\d+)\b)"), 1, LogScope::Unknown, true,
            { rule("oss", R"(\b[Ll]oss:?\s+([-\d.eE+]+))", Field::Loss),
                rule("ime", R"(\b[Tt]ime:?\s+([\d.]+)\s*ms)", Field::StepSeconds, 1e-3),
                rule("MFU:", R"(\bMFU:\s*(-?[\d.]+)%)", Field::MfuPercent),
                rule("Achieved:", R"(Achieved:\s*([\d.]+)\s*TF)", Field::Tflops),
                rule("Peak:", R"(\bPeak:\s*([\d.]+)\s*TF)", Field::PeakTflops),
                rule("Tokens/s:", R"(Tokens/s:\s*([\d,.]+))", Field::TokensPerSec),
                rule("FLOPs/token:", R"(FLOPs/token:\s*([\d.]+)\s*GF)", Field::FlopsPerToken, 1e9) },
            nullptr, {} },
    };
    return formats;
}

// Settings printed once: seed 004's header, torchtitan's start line, Megatron's argument dump and iteration lines.
enum class Fact { Gpus, TokensPerStep, GlobalBatch, MicroBatch, GradAccum, SeqLen, PeakTflops, PeakFlops, Device };

struct FactRule {
    std::string needle;
    std::shared_ptr<const std::regex> re;
    Fact fact;
};

const std::vector<FactRule>& factRules()
{
    static const std::vector<FactRule> rules {
        { "GPUs:", re(R"(\bGPUs:\s*(\d+))"), Fact::Gpus },
        { "world_size", re(R"(\bworld_size\s*[.:=]*\s*(\d+))"), Fact::Gpus },
        { "Tokens per iteration:", re(R"(Tokens per iteration:\s*([\d,]+))"), Fact::TokensPerStep },
        { "lobal batch size", re(R"([Gg]lobal batch size:?\s*(\d+))"), Fact::GlobalBatch },
        { "global_batch_size", re(R"(\bglobal_batch_size\s*[.:=]*\s*(\d+))"), Fact::GlobalBatch },
        { "Batch size (micro):", re(R"(Batch size \(micro\):\s*(\d+))"), Fact::MicroBatch },
        { "micro_batch_size", re(R"(\bmicro_batch_size\s*[.:=]*\s*(\d+))"), Fact::MicroBatch },
        { "local batch size", re(R"(local batch size (\d+))"), Fact::MicroBatch },
        { "Gradient accum steps:", re(R"(Gradient accum steps:\s*(\d+))"), Fact::GradAccum },
        { "sequence length", re(R"(sequence length (\d+))"), Fact::SeqLen },
        { "seq_length", re(R"(\bseq_length\s*[.:=]*\s*(\d+))"), Fact::SeqLen },
        { "Hardware peak:", re(R"(Hardware peak:\s*([\d.]+)\s*TFLOPS)"), Fact::PeakTflops },
        { "Peak FLOPS used for computing MFU:", re(R"(Peak FLOPS used for computing MFU:\s*([\d.eE+]+))"),
            Fact::PeakFlops },
        { "Device:", re(R"(\bDevice:\s*(\S.*\S))"), Fact::Device },
        { "GPU capacity:", re(R"(GPU capacity:\s*(.+?)\s*\(\d+\))"), Fact::Device },
    };
    return rules;
}

template <typename T> void setOnce(std::optional<T>& slot, const std::optional<double>& v)
{
    if (!slot && v && *v > 0)
        slot = static_cast<T>(*v);
}

// Whether the slot a fact rule fills is already set: then the rule can change nothing and its regex is skipped
// (Megatron repeats its global batch size on every iteration line).
bool known(const LogFacts& facts, Fact fact)
{
    switch (fact) {
    case Fact::Gpus:
        return facts.gpus.has_value();
    case Fact::TokensPerStep:
        return facts.tokensPerStep.has_value();
    case Fact::GlobalBatch:
        return facts.globalBatchSamples.has_value();
    case Fact::MicroBatch:
        return facts.microBatch.has_value();
    case Fact::GradAccum:
        return facts.gradAccum.has_value();
    case Fact::SeqLen:
        return facts.seqLen.has_value();
    case Fact::PeakTflops:
    case Fact::PeakFlops:
        return facts.peakTflops.has_value();
    case Fact::Device:
        return facts.device.has_value();
    }
    return false;
}

void readFacts(const std::string& line, LogFacts& facts)
{
    for (const FactRule& r : factRules()) {
        if (known(facts, r.fact))
            continue;
        std::smatch m;
        if (!searchNear(line, r.needle, *r.re, m))
            continue;
        const std::string text = m[1].str();
        switch (r.fact) {
        case Fact::Gpus:
            setOnce(facts.gpus, number(text));
            break;
        case Fact::TokensPerStep:
            setOnce(facts.tokensPerStep, number(text));
            break;
        case Fact::GlobalBatch:
            setOnce(facts.globalBatchSamples, number(text));
            break;
        case Fact::MicroBatch:
            setOnce(facts.microBatch, number(text));
            break;
        case Fact::GradAccum:
            setOnce(facts.gradAccum, number(text));
            break;
        case Fact::SeqLen:
            setOnce(facts.seqLen, number(text));
            break;
        case Fact::PeakTflops:
            setOnce(facts.peakTflops, number(text));
            break;
        case Fact::PeakFlops:
            if (const auto v = number(text))
                setOnce(facts.peakTflops, std::optional(*v / 1e12));
            break;
        case Fact::Device:
            if (!facts.device)
                facts.device = text;
            break;
        }
    }
}

void setField(LogStep& s, Field field, double v)
{
    auto once = [v](std::optional<double>& slot) {
        if (!slot)
            slot = v;
    };
    switch (field) {
    case Field::StepSeconds:
        once(s.stepSeconds);
        break;
    case Field::TokensPerSec:
        once(s.tokensPerSec);
        break;
    case Field::Tflops:
        once(s.tflops);
        break;
    case Field::MfuPercent:
        if (v >= 0 && !s.mfu) // nanoGPT's -100% means "not estimated yet"
            s.mfu = v / 100.0;
        break;
    case Field::Loss:
        once(s.loss);
        break;
    case Field::PeakTflops:
        once(s.peakTflops);
        break;
    case Field::FlopsPerToken:
        once(s.flopsPerToken);
        break;
    }
}

void readFields(const std::string& line, const Format& f, LogStep& s)
{
    for (const ScanRule& r : f.scans)
        if (const auto text = scan::findField(line, r.pattern))
            if (const auto v = number(*text))
                setField(s, r.field, *v * r.scale);
    for (const FieldRule& r : f.fields) {
        std::smatch m;
        if (!searchNear(line, r.needle, *r.re, m) || r.group >= m.size() || !m[r.group].matched)
            continue;
        if (const auto v = number(m[r.group].str()))
            setField(s, r.field, *v * r.scale);
    }
}

// The step this line starts under format f, if any.
std::optional<LogStep> startStep(const std::string& line, const Format& f, size_t stepsSoFar)
{
    if (f.stepScan) {
        const auto digits = f.stepScan(line);
        const auto n = digits ? stepNumber(*digits) : std::nullopt;
        if (!n)
            return std::nullopt;
        LogStep s;
        s.step = *n;
        readFields(line, f, s);
        return s;
    }
    std::smatch m;
    if (!searchNear(line, f.stepNeedle, *f.step, m))
        return std::nullopt;
    LogStep s;
    if (f.stepGroup == 0 || f.stepGroup >= m.size() || !m[f.stepGroup].matched) {
        s.step = static_cast<int64_t>(stepsSoFar + 1);
    } else if (const auto n = stepNumber(m[f.stepGroup].str())) {
        s.step = *n;
    } else {
        return std::nullopt;
    }
    readFields(line, f, s);
    return s;
}

Format customFormat(const LogPattern& p, const std::string& name)
{
    std::shared_ptr<const std::regex> regex;
    try {
        regex = std::make_shared<const std::regex>(p.regex, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
        throw InputError(name + ": invalid log pattern: " + e.what());
    }
    Format f { "custom", "", regex, static_cast<size_t>(std::max(p.stepGroup, 0)), LogScope::Unknown, false, {},
        nullptr, {} };
    const std::pair<int, std::pair<Field, double>> groups[]
        = { { p.stepTimeGroup, { Field::StepSeconds, p.stepTimeScaleToSeconds } },
              { p.tokensPerSecGroup, { Field::TokensPerSec, 1.0 } }, { p.tflopsGroup, { Field::Tflops, 1.0 } },
              { p.mfuPercentGroup, { Field::MfuPercent, 1.0 } }, { p.lossGroup, { Field::Loss, 1.0 } } };
    for (const auto& [group, target] : groups)
        if (group > 0)
            f.fields.push_back({ "", regex, target.first, static_cast<size_t>(group), target.second });
    return f;
}

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

std::optional<double> median(std::vector<double> v)
{
    if (v.empty())
        return std::nullopt;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
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
        const auto index = eq == std::string::npos ? std::nullopt : stepNumber(item.substr(eq + 1));
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
    const std::optional<Format> custom = pattern ? std::optional(customFormat(*pattern, name)) : std::nullopt;
    const Format* format = custom ? &*custom : nullptr;
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
            for (const Format& f : builtInFormats())
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
        for (const Format& f : builtInFormats())
            if (startStep(line, f, 0))
                return true;
        start = end + 1;
    }
    return false;
}

LogSummary summarizeLog(const TrainingLog& log, size_t warmupSteps)
{
    LogSummary s;
    std::vector<double> times, tps, tflops, mfu, peak, fpt;
    const size_t first = std::min(warmupSteps, log.steps.empty() ? 0 : log.steps.size() - 1);
    for (size_t i = first; i < log.steps.size(); ++i) {
        const LogStep& st = log.steps[i];
        ++s.stepsUsed;
        const std::pair<const std::optional<double>*, std::vector<double>*> pairs[]
            = { { &st.stepSeconds, &times }, { &st.tokensPerSec, &tps }, { &st.tflops, &tflops }, { &st.mfu, &mfu },
                  { &st.peakTflops, &peak }, { &st.flopsPerToken, &fpt } };
        for (const auto& [value, list] : pairs)
            if (*value)
                list->push_back(**value);
    }
    s.medianStepSeconds = median(times);
    s.medianTokensPerSec = median(tps);
    s.medianTflops = median(tflops);
    s.medianMfu = median(mfu);
    s.medianPeakTflops = median(peak);
    s.medianFlopsPerToken = median(fpt);
    return s;
}

} // namespace mfu::trace
