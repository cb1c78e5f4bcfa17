#include "core/trace/training_log.h"

#include <algorithm>
#include <charconv>

#include "core/errors.h"

namespace mfu::trace {

namespace {

// Removes ANSI colour sequences (ESC [ ... letter), which torchtitan writes around every field.
std::string withoutAnsi(const std::string& line)
{
    std::string out;
    out.reserve(line.size());
    for (size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
            i += 2;
            while (i < line.size() && !((line[i] >= 'A' && line[i] <= 'Z') || (line[i] >= 'a' && line[i] <= 'z')))
                ++i;
            continue;
        }
        out += line[i];
    }
    return out;
}

std::optional<double> number(const std::string& text)
{
    std::string t;
    for (char c : text)
        if (c != ',' && c != '%')
            t += c;
    try {
        size_t used = 0;
        const double v = std::stod(t, &used);
        return used == t.size() ? std::optional(v) : std::nullopt;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

// A step number from a matched run of digits; one beyond int64 (a corrupt line) means the line is not a step.
std::optional<int64_t> stepNumber(const std::string& digits)
{
    int64_t value = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    return error == std::errc() && end == digits.data() + digits.size() ? std::optional(value) : std::nullopt;
}

std::optional<double> field(const std::string& line, const std::regex& re)
{
    std::smatch m;
    return std::regex_search(line, m, re) ? number(m[1].str()) : std::nullopt;
}

const std::regex kTitanStep(R"(\bstep:\s*(\d+))");
const std::regex kTitanThroughput(R"(\b(?:tps|wps):\s*([\d,.]+))");
const std::regex kTitanTflops(R"(\btflops:\s*([\d,.]+))");
const std::regex kTitanMfu(R"(\bmfu:\s*(-?[\d.]+)%)");
const std::regex kTitanLoss(R"(\bloss:\s*([-\d.eE+]+))");
const std::regex kMegatronIteration(R"(\biteration\s+(\d+)\s*/\s*\d+)");
const std::regex kMegatronTime(R"(elapsed time per iteration \(ms\):\s*([\d.]+))");
const std::regex kMegatronTflops(R"(throughput per GPU \(TFLOP/s/GPU\):\s*([\d.]+))");
const std::regex kMegatronLoss(R"(lm loss:\s*([-\d.eE+]+))");
const std::regex kNanoGpt(R"(\biter (\d+): loss ([-\d.]+), time ([\d.]+)ms, mfu (-?[\d.]+)%)");

std::optional<LogStep> torchtitan(const std::string& line)
{
    std::smatch m;
    if (!std::regex_search(line, m, kTitanStep) || !std::regex_search(line, kTitanThroughput))
        return std::nullopt;
    LogStep s;
    const auto step = stepNumber(m[1].str());
    if (!step)
        return std::nullopt;
    s.step = *step;
    s.tokensPerSecPerGpu = field(line, kTitanThroughput);
    s.tflopsPerGpu = field(line, kTitanTflops);
    if (const auto mfu = field(line, kTitanMfu))
        s.mfu = *mfu / 100.0;
    s.loss = field(line, kTitanLoss);
    return s;
}

std::optional<LogStep> megatron(const std::string& line)
{
    std::smatch m;
    if (!std::regex_search(line, m, kMegatronIteration) || !std::regex_search(line, kMegatronTime))
        return std::nullopt;
    LogStep s;
    const auto step = stepNumber(m[1].str());
    if (!step)
        return std::nullopt;
    s.step = *step;
    if (const auto ms = field(line, kMegatronTime))
        s.stepSeconds = *ms / 1000.0;
    s.tflopsPerGpu = field(line, kMegatronTflops);
    s.loss = field(line, kMegatronLoss);
    return s;
}

std::optional<LogStep> nanogpt(const std::string& line)
{
    std::smatch m;
    if (!std::regex_search(line, m, kNanoGpt))
        return std::nullopt;
    LogStep s;
    const auto step = stepNumber(m[1].str());
    if (!step)
        return std::nullopt;
    s.step = *step;
    s.loss = number(m[2].str());
    if (const auto ms = number(m[3].str()))
        s.stepSeconds = *ms / 1000.0;
    if (const auto mfu = number(m[4].str()); mfu && *mfu >= 0) // -100% = not estimated yet
        s.mfu = *mfu / 100.0;
    return s;
}

std::optional<LogStep> custom(const std::string& line, const std::regex& re, const LogPattern& p)
{
    std::smatch m;
    if (!std::regex_search(line, m, re))
        return std::nullopt;
    auto group = [&](int g) -> std::optional<double> {
        return g > 0 && static_cast<size_t>(g) < m.size() && m[static_cast<size_t>(g)].matched
            ? number(m[static_cast<size_t>(g)].str())
            : std::nullopt;
    };
    LogStep s;
    s.step = static_cast<int64_t>(group(p.stepGroup).value_or(0));
    if (const auto t = group(p.stepTimeGroup))
        s.stepSeconds = *t * p.stepTimeScaleToSeconds;
    s.tokensPerSecPerGpu = group(p.tokensPerSecGroup);
    s.tflopsPerGpu = group(p.tflopsGroup);
    if (const auto mfu = group(p.mfuPercentGroup))
        s.mfu = *mfu / 100.0;
    s.loss = group(p.lossGroup);
    return s;
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

TrainingLog parseTrainingLog(std::istream& in, const std::string& name, const std::optional<LogPattern>& pattern)
{
    std::optional<std::regex> customRe;
    if (pattern) {
        try {
            customRe.emplace(pattern->regex, std::regex::ECMAScript);
        } catch (const std::regex_error& e) {
            throw InputError(name + ": invalid log pattern: " + e.what());
        }
    }
    TrainingLog log;
    std::string raw;
    while (std::getline(in, raw)) {
        const std::string line = withoutAnsi(raw);
        std::optional<LogStep> step;
        std::string format;
        if (customRe) {
            step = custom(line, *customRe, *pattern);
            format = "custom";
        } else if ((step = megatron(line))) {
            format = "megatron";
        } else if ((step = nanogpt(line))) {
            format = "nanogpt";
        } else if ((step = torchtitan(line))) {
            format = "torchtitan";
        }
        if (!step)
            continue;
        if (log.format.empty())
            log.format = format;
        log.steps.push_back(*step);
    }
    if (log.steps.empty())
        throw InputError(name + ": no training-step lines recognised (torchtitan, Megatron-LM, nanoGPT"
            + std::string(pattern ? ", or the given pattern)" : "); give a custom pattern"));
    return log;
}

LogSummary summarizeLog(const TrainingLog& log, size_t warmupSteps)
{
    LogSummary s;
    std::vector<double> times, tps, tflops, mfu;
    for (size_t i = warmupSteps; i < log.steps.size(); ++i) {
        const LogStep& st = log.steps[i];
        ++s.stepsUsed;
        if (st.stepSeconds)
            times.push_back(*st.stepSeconds);
        if (st.tokensPerSecPerGpu)
            tps.push_back(*st.tokensPerSecPerGpu);
        if (st.tflopsPerGpu)
            tflops.push_back(*st.tflopsPerGpu);
        if (st.mfu)
            mfu.push_back(*st.mfu);
    }
    s.medianStepSeconds = median(times);
    s.medianTokensPerSecPerGpu = median(tps);
    s.medianTflopsPerGpu = median(tflops);
    s.medianMfu = median(mfu);
    return s;
}

} // namespace mfu::trace
