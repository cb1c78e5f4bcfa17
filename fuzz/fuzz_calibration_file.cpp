// Calibration files (predict/sweep/plan --calibration): any bytes either read as a calibration or raise
// mfu::InputError; one that reads must write back out and read again, and a calibrated prediction of its own traced
// scenario either comes out within physics, as finite numbers, or is refused with an InputError (an edited file's
// factors).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/calibration/calibration_file.h"
#include "core/costmodel/cost_model.h"
#include "core/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    mfu::TraceCalibration calibration;
    try {
        calibration = mfu::calibrationFromText(text, "fuzz.calibration.json");
    } catch (const mfu::InputError&) {
        return 0;
    }
    // What was accepted must save and reopen; an InputError here would be a round-trip bug, so it is not caught.
    (void)mfu::calibrationFromJson(mfu::calibrationToJson(calibration), "resaved.calibration.json");
    try {
        const mfu::Scenario& s = calibration.traced;
        const mfu::StepPrediction plain = mfu::evaluate(s);
        const mfu::CalibratedPrediction p = mfu::calibratedPrediction(s, calibration, plain, 0.1);
        // A prediction that comes out must be a number: an accepted file never carries NaN or infinity into it.
        if (!std::isfinite(p.calibrated.stepTimeSeconds) || !std::isfinite(p.calibrated.mfu) || !(p.bandHalfWidth >= 0))
            __builtin_trap();
    } catch (const mfu::InputError&) {
    }
    return 0;
}
