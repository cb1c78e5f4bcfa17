// Nsight Systems SQLite export: the input becomes a database file (SQLite reads files only), opened read-only.
// A timeline that reads is analysed with the shipped kernel rules. Seeds include a StringIds that is a recursive view
// (never finished before the progress handler) and one without an index (quadratic before it was read once).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "core/errors.h"
#include "core/trace/analysis.h"
#include "core/trace/kernel_rules.h"
#include "core/trace/nsys_reader.h"

namespace {
const mfu::trace::KernelRules& rules()
{
    static const auto loaded = mfu::trace::KernelRules::fromFile(MFU_SOURCE_DIR "/presets/kernels/kernel_rules.json");
    return loaded;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static const std::string path = "/tmp/fuzz_nsys_sqlite_" + std::to_string(getpid()) + ".sqlite";
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f)
        return 0;
    std::fwrite(data, 1, size, f);
    std::fclose(f);
    try {
        std::vector<mfu::trace::Timeline> timelines;
        mfu::trace::ReadControl control;
        control.stallLimitSeconds = 1; // a StringIds view that recurses without end must end well within -timeout
        timelines.push_back(mfu::trace::readNsysSqlite(path, control));
        (void)mfu::trace::analyzeRun(timelines, rules());
    } catch (const mfu::InputError&) {
    }
    std::remove(path.c_str());
    return 0;
}
