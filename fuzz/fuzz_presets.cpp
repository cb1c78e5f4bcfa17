// Preset files (hardware and model): loadText records a problem for a bad file or entry and keeps the rest, so
// nothing at all may escape it; then every entry that did load must survive the counting formulas, and every GPU
// name pattern (a glob from an untrusted file) must be matchable against all of them.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/errors.h"
#include "core/model/flops.h"
#include "core/presets/gpu_match.h"
#include "core/presets/presets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    mfu::PresetLibrary library;
    library.loadText("fuzz.json", text);
    for (const auto& problem : library.problems())
        (void)problem.message();
    for (const auto& model : library.models()) {
        try {
            (void)mfu::countFlopsPerToken(model, 2048);
        } catch (const mfu::InputError&) {
        }
    }
    for (const auto& hardware : library.hardware())
        for (const auto& pattern : hardware.matchPatterns)
            (void)mfu::unmatchedGpuHint(pattern, mfu::matchGpuName(pattern, library.hardware()), "presets");
    (void)mfu::matchGpuName(text, library.hardware());
    return 0;
}
