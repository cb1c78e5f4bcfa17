#pragma once
// The shipped validation table (presets/validation/runs.json, embedded as :/presets/validation/runs.json) and the
// error-band model built from its residuals, loaded and evaluated once per process (39 cost-model evaluations,
// well under a millisecond). A table that fails to load leaves an empty model: bands fall back to +-5%.
#include "core/costmodel/error_band.h"
#include "core/presets/presets.h"

namespace mfu::app {

const ErrorBandModel& shippedErrorBands();

// The models and GPUs the shipped table defines for its runs (the Ultra-Scale Playbook's nanotron models, the
// TorchTitan benchmark's 500 W H100, the papers' own shapes): the command line names them by id after the presets,
// so that every run of the table is stated with predict's flags (validate --json: "command"). Empty when the table
// fails to load.
const PresetLibrary& shippedValidationDefinitions();

} // namespace mfu::app
