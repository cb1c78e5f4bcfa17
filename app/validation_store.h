#pragma once
// The shipped validation table (presets/validation/runs.json, embedded as :/presets/validation/runs.json) and the
// error-band model built from its residuals, loaded and evaluated once per process (39 cost-model evaluations,
// well under a millisecond). A table that fails to load leaves an empty model: bands fall back to +-5%.
#include "core/costmodel/error_band.h"

namespace mfu::app {

const ErrorBandModel& shippedErrorBands();

} // namespace mfu::app
