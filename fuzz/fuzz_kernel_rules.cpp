// Kernel classification: the input, line by line, as kernel names classified by the shipped rules and by user-style
// rules with regexes (names of 40,000 characters among the seeds: std::regex recursed once per character of a name
// until classification was bounded to its first characters); and the whole input as a rules file (--kernel-rules),
// which either loads or raises mfu::InputError. Rules loaded from the input classify nothing: a regex of the user's
// own that backtracks exponentially is the user's to write, and would only make this target time out.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/errors.h"
#include "core/trace/kernel_rules.h"

namespace {
const mfu::trace::KernelRules& shipped()
{
    static const auto loaded = mfu::trace::KernelRules::fromFile(MFU_SOURCE_DIR "/presets/kernels/kernel_rules.json");
    return loaded;
}
const mfu::trace::KernelRules& userStyle()
{
    static const auto loaded = mfu::trace::KernelRules::fromJsonText(
        "{\"format\": \"mfu-explorer-kernel-rules\", \"version\": 1, \"rules\": ["
        "{\"category\": \"gemm\", \"regex\": [\"^my_(gemm|matmul)_.*_(bf16|fp8)$\", \"cutlass.*(tensorop|wmma)\"]},"
        "{\"category\": \"attention_fwd\", \"regex\": [\"flash.*fwd\"], \"ignore_case\": true}]}",
        "user_rules.json");
    return loaded;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    size_t start = 0;
    while (start <= input.size()) {
        const size_t end = std::min(input.find('\n', start), input.size());
        const std::string_view name = input.substr(start, end - start);
        (void)shipped().classify(name);
        (void)userStyle().withPriorityRules(shipped()).classify(name);
        start = end + 1;
    }
    try {
        (void)mfu::trace::KernelRules::fromJsonText(input, "kernel_rules.json");
    } catch (const mfu::InputError&) {
    }
    return 0;
}
