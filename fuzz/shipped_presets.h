#pragma once
// The presets shipped in the source tree (MFU_SOURCE_DIR/presets), loaded once per fuzzer process: the harnesses
// that resolve model and GPU ids against them.
#include "core/presets/presets.h"

namespace mfu::fuzz {

inline const PresetLibrary& shippedPresets()
{
    static const PresetLibrary library = [] {
        PresetLibrary l;
        l.loadDirectory(MFU_SOURCE_DIR "/presets");
        return l;
    }();
    return library;
}

} // namespace mfu::fuzz
