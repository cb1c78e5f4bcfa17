// A user's training-log pattern (--log-pattern, --log-groups) over a log: the input's first line is the regular
// expression, its second the groups ("step=1,time_ms=2"), the rest the log. std::regex recursed once per character
// of a long line until the reader bounded what a search sees; long lines and long patterns are the seeds.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "core/errors.h"
#include "core/logs/training_log.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string input(reinterpret_cast<const char*>(data), size);
    const size_t first = input.find('\n');
    const size_t second = first == std::string::npos ? std::string::npos : input.find('\n', first + 1);
    if (second == std::string::npos)
        return 0;
    try {
        const auto pattern
            = mfu::trace::logPatternFromGroups(input.substr(0, first), input.substr(first + 1, second - first - 1));
        std::istringstream in(input.substr(second + 1));
        const auto log = mfu::trace::parseTrainingLog(in, "train.log", pattern);
        (void)mfu::trace::summarizeLog(log, 1);
    } catch (const mfu::InputError&) {
    }
    return 0;
}
