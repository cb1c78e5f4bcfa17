// PyTorch profiler (Kineto) Chrome-trace JSON, plain or gzip (the byte source detects gzip by its magic bytes, so
// the same target fuzzes the inflater). A trace that reads is analysed with the shipped kernel rules.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/errors.h"
#include "core/trace/analysis.h"
#include "core/trace/byte_source.h"
#include "core/trace/kernel_rules.h"
#include "core/trace/kineto_reader.h"

namespace {
const mfu::trace::KernelRules& rules()
{
    static const auto loaded = mfu::trace::KernelRules::fromFile(MFU_SOURCE_DIR "/presets/kernels/kernel_rules.json");
    return loaded;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    auto source = mfu::trace::memorySource(std::string(reinterpret_cast<const char*>(data), size), "trace.json");
    try {
        std::vector<mfu::trace::Timeline> timelines;
        timelines.push_back(mfu::trace::readKinetoTrace(*source));
        (void)mfu::trace::analyzeRun(timelines, rules());
    } catch (const mfu::InputError&) {
    }
    return 0;
}
