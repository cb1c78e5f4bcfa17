// Hugging Face config.json: any bytes either import as a model or raise mfu::InputError. Any other exception, a
// crash or undefined behaviour in the importer or in the formulas fed by it is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/errors.h"
#include "core/model/flops.h"
#include "core/model/param_count.h"
#include "core/presets/hf_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const mfu::ModelSpec spec = mfu::modelFromHfConfigText(text, "config.json");
        // An imported model flows straight into the counting formulas; they must cope with what the importer lets in.
        const auto params = mfu::countParameters(spec);
        const auto flops = mfu::countFlopsPerToken(spec, 4096);
        volatile double sink = flops.sixN + static_cast<double>(params.total);
        (void)sink;
    } catch (const mfu::InputError&) {
    }
    return 0;
}
