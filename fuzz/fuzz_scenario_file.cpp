// Scenario files (every version): any bytes either open as a scenario or raise mfu::InputError; an opened scenario
// must write back out and read again (the save path runs on whatever a file let in).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/errors.h"
#include "core/scenario/scenario_file.h"
#include "tests/shipped_presets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    mfu::ScenarioDocument document;
    try {
        document = mfu::scenarioFromText(text, "fuzz.mfu.json", &mfu::test::shippedPresets());
    } catch (const mfu::InputError&) {
        return 0;
    }
    // What was accepted must save and reopen; an InputError here would be a round-trip bug, so it is not caught.
    const std::string saved = mfu::scenarioFileText(document);
    (void)mfu::scenarioFromText(saved, "resaved.mfu.json", &mfu::test::shippedPresets());
    return 0;
}
