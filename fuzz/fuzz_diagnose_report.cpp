// The reported-run JSON read by `mfu-explorer diagnose` and the Calculator panel, resolved against the real presets.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/diagnosis/diagnosis.h"
#include "core/diagnosis/diagnosis_report.h"
#include "core/errors.h"
#include "tests/shipped_presets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const auto runs = mfu::reportedRunsFromText(text, "report.json", mfu::test::shippedPresets());
        (void)mfu::diagnose(runs, mfu::test::shippedPresets().hardware());
    } catch (const mfu::InputError&) {
    }
    return 0;
}
