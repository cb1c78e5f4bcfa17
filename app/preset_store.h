#pragma once
// Where presets come from in the application and the command line: the built-in files embedded as Qt resources
// (:/presets/...), then the user's folder (<AppDataLocation>/presets, or $MFU_EXPLORER_PRESETS_DIR), whose entries
// add to or replace built-ins by id. Loaded once per process.
#include <QString>

#include "core/presets/presets.h"

namespace mfu::app {

const PresetLibrary& presetLibrary();
QString userPresetFolder();

} // namespace mfu::app
