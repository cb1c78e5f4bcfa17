// Per-rank trace summaries (`trace --summary-out`, merged by `trace merge`): the input becomes a summary file (the
// merge reads files), merged as two ranks, so the reader, the options check and the run-level figures all run.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "core/errors.h"
#include "core/trace/rank_summary.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static const std::string path = "/tmp/fuzz_rank_summary_" + std::to_string(getpid()) + ".summary.json";
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f)
        return 0;
    std::fwrite(data, 1, size, f);
    std::fclose(f);
    try {
        (void)mfu::trace::mergeRankSummaries({ path, path });
    } catch (const mfu::InputError&) {
    }
    std::remove(path.c_str());
    return 0;
}
