// Training logs read with users' patterns (--log-pattern, --log-groups): the input is the log, read once with each
// of a few patterns of the kinds users write (greedy `.*` between fields, alternations, anchors). std::regex recursed
// once per character of a long line until the reader bounded what a search sees; lines of 40,000 characters are
// among the seeds. The patterns are fixed: a pattern of the user's own that backtracks exponentially is theirs to
// write, and would only make this target time out.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "core/errors.h"
#include "core/logs/training_log.h"

namespace {
const std::vector<mfu::trace::LogPattern>& patterns()
{
    static const std::vector<mfu::trace::LogPattern> list {
        mfu::trace::logPatternFromGroups(R"(it=(\d+) dt=([\d.]+)ms mfu=([\d.]+))", "step=1,time_ms=2,mfu_percent=3"),
        mfu::trace::logPatternFromGroups(R"(step (\d+) .*time ([\d.]+))", "step=1,time_s=2"),
        mfu::trace::logPatternFromGroups(
            R"(^\[(?:rank\d+|default\d+)\]:.*step=(\d+).*loss=([-\d.eE+]+)$)", "step=1,loss=2"),
        // \b: unanchored, (\d+) is tried from every digit of a run and costs time quadratic in the searched window
        // (4,096 characters: about 5 s a line of digits under ASan, beyond libFuzzer's timeout with two such lines;
        // 0.3 s in a release build). That is std::regex's time, not a finding; the anchored form reads the same logs.
        mfu::trace::logPatternFromGroups(R"(\b(\d+)\s*\|\s*(?:tok/s|tps)[:=]\s*([\d,.]+))", "step=1,tokens_per_sec=2"),
    };
    return list;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string log(reinterpret_cast<const char*>(data), size);
    for (const auto& pattern : patterns()) {
        std::istringstream in(log);
        try {
            const auto parsed = mfu::trace::parseTrainingLog(in, "train.log", pattern);
            (void)mfu::trace::summarizeLog(parsed, 1);
        } catch (const mfu::InputError&) {
        }
    }
    return 0;
}
