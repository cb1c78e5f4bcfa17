#pragma once
// The presets the binary ships (presets/ in the source tree), loaded once per test or fuzzer executable.
#include "core/presets/presets.h"

namespace mfu::test {

inline const PresetLibrary& shippedPresets()
{
    static const PresetLibrary library = [] {
        PresetLibrary l;
        l.loadDirectory(MFU_SOURCE_DIR "/presets");
        return l;
    }();
    return library;
}

} // namespace mfu::test
