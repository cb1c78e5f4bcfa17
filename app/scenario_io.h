#pragma once
// Saving and opening scenario files from the application. Saves go through QSaveFile: the new text is written to a
// temporary file beside the target and renamed over it only when complete, so a failed save (read-only folder, full
// disk) leaves the previous file as it was. The JSON itself is core's (core/scenario/scenario_file.h).
#include <QString>

#include "core/scenario/scenario_file.h"

namespace mfu::app {

// Returns true on success; otherwise false with a message naming the file and the reason in *errorMessage.
bool saveScenarioFile(const QString& path, const ScenarioDocument& document, QString* errorMessage);

// Reads a scenario file of any supported version (version-0 preset ids resolve against the application's presets).
// Throws mfu::InputError naming the file and what is wrong; nothing is returned half-read.
ScenarioDocument openScenarioFile(const QString& path);

} // namespace mfu::app
