#pragma once
// Saving and opening scenario files from the application. Saves go through QSaveFile: the new text is written to a
// temporary file beside the target and renamed over it only when complete, so a failed save (read-only folder, full
// disk) leaves the previous file as it was. The JSON itself is core's (core/scenario/scenario_file.h).
#include <QString>

#include "core/scenario/predict_command.h"
#include "core/scenario/scenario_file.h"

namespace mfu::app {

// Returns true on success; otherwise false with a message naming the file and the reason in *errorMessage.
bool saveScenarioFile(const QString& path, const ScenarioDocument& document, QString* errorMessage);

// Reads a scenario file of any supported version (version-0 preset ids resolve against the application's presets).
// Throws mfu::InputError naming the file and what is wrong; nothing is returned half-read.
ScenarioDocument openScenarioFile(const QString& path);

// The `mfu-explorer predict` line that states the scenario (core/scenario/predict_command.h), with the ids the
// command line names: the presets, the shipped validation table's own models and GPUs, and a config.json by its
// path while the file still holds the scenario's model. Edit > Copy Predict Command and the report use it.
PredictCommand predictCommandOf(const Scenario& scenario);

} // namespace mfu::app
