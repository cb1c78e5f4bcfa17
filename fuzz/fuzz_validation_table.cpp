// Validation tables of the user's own (validate --runs FILE): any bytes either read as runs or raise
// mfu::InputError; the first runs of an accepted table are then stated as predict commands, predicted and scored as
// validate does.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/costmodel/validation.h"
#include "core/errors.h"
#include "tests/shipped_presets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::vector<mfu::ValidationRun> runs;
    try {
        runs = mfu::validationRunsFromJson(text, mfu::test::shippedPresets(), "fuzz.runs.json");
    } catch (const mfu::InputError&) {
        return 0;
    }
    // A handful keeps each input fast; the reader above saw them all.
    runs.resize(std::min<size_t>(runs.size(), 6));
    mfu::statePredictCommands(runs, mfu::test::shippedPresets()); // never throws: a run it cannot state says why
    for (const mfu::ValidationRun& run : runs)
        (void)mfu::shellCommandLine(run.command.arguments);
    try {
        const mfu::ValidationReport report = mfu::runValidation(runs);
        (void)mfu::validationBoundsBroken(report);
    } catch (const mfu::InputError&) {
    }
    return 0;
}
