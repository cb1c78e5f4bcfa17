#pragma once
// The step-line formats of training logs (core/logs/training_log.h): the built-in rule table (Megatron-LM,
// nanoGPT, torchtitan, iteration blocks), a user's pattern as a format, and reading a step and its fields from a
// line. Internal to core/trace.
#include <cstdint>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "core/logs/log_line_scan.h"
#include "core/logs/training_log.h"

namespace mfu::trace {

enum class LogField { StepSeconds, TokensPerSec, Tflops, MfuPercent, Loss, PeakTflops, FlopsPerToken };

// One field: a literal that must be on the line (cheap pre-filter before the regex), the regex, its capture group,
// and the factor to the stored unit.
struct FieldRule {
    std::string needle;
    std::shared_ptr<const std::regex> re;
    LogField field;
    size_t group = 1;
    double scale = 1.0;
};

// A field a hand-written scanner reads (core/logs/log_line_scan.h), for the formats with fixed lines.
struct ScanRule {
    scan::FieldPattern pattern;
    LogField field;
    double scale = 1.0;
};

using StepScanner = std::optional<std::string_view> (*)(std::string_view line);

struct LogFormat {
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

// In the order they are tried; the first whose step line appears fixes the format of the file.
const std::vector<LogFormat>& builtInLogFormats();

// A user's pattern as a format; throws InputError "<name>: invalid log pattern: ..." for a bad regex.
LogFormat customLogFormat(const LogPattern& p, const std::string& name);

// The step this line starts under format f, if any (stepsSoFar numbers the steps of a pattern with no step group).
std::optional<LogStep> startStep(const std::string& line, const LogFormat& f, size_t stepsSoFar);

// Fills the fields of s that this line gives and s does not have yet.
void readFields(const std::string& line, const LogFormat& f, LogStep& s);

} // namespace mfu::trace
