#include "core/logs/log_formats.h"

#include <algorithm>

#include "core/errors.h"
#include "core/logs/log_text.h"

namespace mfu::trace {

using logtext::numberAt;
using logtext::re;
using logtext::searchNear;
using logtext::stepNumber;

namespace {

FieldRule rule(const char* needle, const char* pattern, LogField field, double scale = 1.0)
{
    return { needle, re(pattern), field, 1, scale };
}

using scan::Chars;

ScanRule scanned(std::string_view key, bool wordStart, bool skipSpace, Chars chars, LogField field, double scale = 1.0,
    bool optionalMinus = false, std::string_view suffix = {}, std::string_view lead = {})
{
    return { { key, wordStart, lead, skipSpace, chars, optionalMinus, suffix }, field, scale };
}

void setField(LogStep& s, LogField field, double v)
{
    auto once = [v](std::optional<double>& slot) {
        if (!slot)
            slot = v;
    };
    switch (field) {
    case LogField::StepSeconds:
        once(s.stepSeconds);
        break;
    case LogField::TokensPerSec:
        once(s.tokensPerSec);
        break;
    case LogField::Tflops:
        once(s.tflops);
        break;
    case LogField::MfuPercent:
        if (v >= 0 && !s.mfu) // nanoGPT's -100% means "not estimated yet"
            s.mfu = v / 100.0;
        break;
    case LogField::Loss:
        once(s.loss);
        break;
    case LogField::PeakTflops:
        once(s.peakTflops);
        break;
    case LogField::FlopsPerToken:
        once(s.flopsPerToken);
        break;
    }
}

} // namespace

// The regex each scanned rule stands for is quoted beside it; tests/core/logs/tst_log_line_scan.cpp checks them against
// each other on tricky lines.
const std::vector<LogFormat>& builtInLogFormats()
{
    static const std::vector<LogFormat> formats {
        { "megatron", "iteration", re(R"(\biteration\s+(\d+)\s*/\s*\d+.*elapsed time per iteration)"), 1,
            LogScope::PerGpu, false, {}, scan::megatronStep,
            { // elapsed time per iteration \(ms\):\s*([\d.]+)
                scanned("elapsed time per iteration (ms):", false, true, Chars::Decimal, LogField::StepSeconds, 1e-3),
                // throughput per GPU \(TFLOP/s/GPU\):\s*([\d.]+)
                scanned("throughput per GPU (TFLOP/s/GPU):", false, true, Chars::Decimal, LogField::Tflops),
                // lm loss:\s*([-\d.eE+]+)
                scanned("lm loss:", false, true, Chars::Exponent, LogField::Loss) } },
        { "nanogpt", "iter ", re(R"(\biter (\d+): loss [-\d.]+, time [\d.]+ms, mfu)"), 1, LogScope::Unknown, false, {},
            scan::nanogptStep,
            { scanned(": loss ", false, false, Chars::Signed, LogField::Loss), // : loss ([-\d.]+)
                scanned("time ", false, false, Chars::Decimal, LogField::StepSeconds, 1e-3, false,
                    "ms"), // time ([\d.]+)ms
                scanned(
                    "mfu ", false, false, Chars::Decimal, LogField::MfuPercent, 1.0, true, "%") } }, // mfu (-?[\d.]+)%
        { "torchtitan", "step:", re(R"(\bstep:\s*(\d+)\b.*\b[tw]ps:)"), 1, LogScope::PerGpu, false, {},
            scan::torchtitanStep,
            { // \b[tw]ps:\s*([\d,.]+)
                scanned("ps:", true, true, Chars::Grouped, LogField::TokensPerSec, 1.0, false, {}, "tw"),
                scanned("tflops:", true, true, Chars::Grouped, LogField::Tflops), // \btflops:\s*([\d,.]+)
                scanned("mfu:", true, true, Chars::Decimal, LogField::MfuPercent, 1.0, true,
                    "%"), // \bmfu:\s*(-?[\d.]+)%
                scanned("loss:", true, true, Chars::Exponent, LogField::Loss) } }, // \bloss:\s*([-\d.eE+]+)
        // nanotron (Hugging Face; the Ultra-Scale Playbook's runs): "iteration: 10 / 100 | consumed_tokens: 1.05M |
        // elapsed_time_per_iteration_ms: 1.23K | tokens_per_sec: 853K | tokens_per_sec_per_gpu: 107K | ... |
        // lm_loss: 5.6 | ... | model_tflops_per_gpu: 441 | ...", its figures in human_format (K, M, G).
        { "nanotron", "iteration:", re(R"(\biteration:\s*(\d+)\s*/\s*\d+.*\|)"), 1, LogScope::PerGpu, false,
            { rule("elapsed_time_per_iteration_ms:", R"(elapsed_time_per_iteration_ms:\s*([\d.]+[KMG]?))",
                  LogField::StepSeconds, 1e-3),
                rule("tokens_per_sec_per_gpu:", R"(tokens_per_sec_per_gpu:\s*([\d.]+[KMG]?))", LogField::TokensPerSec),
                rule("model_tflops_per_gpu:", R"(model_tflops_per_gpu:\s*([\d.]+[KMG]?))", LogField::Tflops),
                rule("lm_loss:", R"(\blm_loss:\s*([-\d.eE+]+))", LogField::Loss) },
            nullptr, {} },
        { "iter_block", "Iter", re(R"(\bIter\s+(\d+)\b)"), 1, LogScope::Unknown, true,
            { rule("oss", R"(\b[Ll]oss:?\s+([-\d.eE+]+))", LogField::Loss),
                rule("ime", R"(\b[Tt]ime:?\s+([\d.]+(?:[eE][-+]?\d+)?)\s*ms)", LogField::StepSeconds, 1e-3),
                rule("MFU:", R"(\bMFU:\s*(-?[\d.]+)%)", LogField::MfuPercent),
                rule("Achieved:", R"(Achieved:\s*([\d.]+(?:[eE][-+]?\d+)?)\s*TF)", LogField::Tflops),
                rule("Peak:", R"(\bPeak:\s*([\d.]+(?:[eE][-+]?\d+)?)\s*TF)", LogField::PeakTflops),
                rule("Tokens/s:", R"(Tokens/s:\s*([\d,.]+))", LogField::TokensPerSec),
                rule(
                    "FLOPs/token:", R"(FLOPs/token:\s*([\d.]+(?:[eE][-+]?\d+)?)\s*GF)", LogField::FlopsPerToken, 1e9) },
            nullptr, {} },
    };
    return formats;
}

void readFields(const std::string& line, const LogFormat& f, LogStep& s)
{
    for (const ScanRule& r : f.scans)
        if (const auto text = scan::findField(line, r.pattern))
            if (const auto v
                = numberAt(line, size_t(text->data() - line.data()), size_t(text->data() - line.data()) + text->size()))
                setField(s, r.field, *v * r.scale);
    for (const FieldRule& r : f.fields) {
        std::smatch m;
        if (!searchNear(line, r.needle, *r.re, m) || r.group >= m.size() || !m[r.group].matched)
            continue;
        if (const auto v
            = numberAt(line, size_t(m[r.group].first - line.begin()), size_t(m[r.group].second - line.begin())))
            setField(s, r.field, *v * r.scale);
    }
}

std::optional<LogStep> startStep(const std::string& line, const LogFormat& f, size_t stepsSoFar)
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

LogFormat customLogFormat(const LogPattern& p, const std::string& name)
{
    if (p.regex.size() > logtext::kMaxPatternLength)
        throw InputError(
            name + ": invalid log pattern: longer than " + std::to_string(logtext::kMaxPatternLength) + " characters");
    std::shared_ptr<const std::regex> regex;
    try {
        regex = std::make_shared<const std::regex>(p.regex, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
        throw InputError(name + ": invalid log pattern: " + e.what());
    }
    LogFormat f { "custom", "", regex, static_cast<size_t>(std::max(p.stepGroup, 0)), LogScope::Unknown, false, {},
        nullptr, {} };
    const std::pair<int, std::pair<LogField, double>> groups[]
        = { { p.stepTimeGroup, { LogField::StepSeconds, p.stepTimeScaleToSeconds } },
              { p.tokensPerSecGroup, { LogField::TokensPerSec, 1.0 } }, { p.tflopsGroup, { LogField::Tflops, 1.0 } },
              { p.mfuPercentGroup, { LogField::MfuPercent, 1.0 } }, { p.lossGroup, { LogField::Loss, 1.0 } } };
    // A group the pattern does not have matched nothing, and the figure vanished from every line without a word.
    const auto groupsInPattern = static_cast<int>(regex->mark_count());
    const auto refuseMissingGroup = [&](int group) {
        if (group > groupsInPattern)
            throw InputError(name + ": log groups: group " + std::to_string(group)
                + " is not in the pattern, which has " + std::to_string(groupsInPattern) + " capture group(s)");
    };
    refuseMissingGroup(p.stepGroup);
    for (const auto& [group, target] : groups)
        if (group > 0) {
            refuseMissingGroup(group);
            f.fields.push_back({ "", regex, target.first, static_cast<size_t>(group), target.second });
        }
    return f;
}

} // namespace mfu::trace
