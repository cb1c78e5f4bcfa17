// Kernel classification rules (--kernel-rules): any bytes either load as rules or raise mfu::InputError; loaded
// rules classify kernel names, among them names of 40,000 characters (std::regex recursed once per character of a
// name until classification was bounded to its first characters).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/errors.h"
#include "core/trace/kernel_rules.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    mfu::trace::KernelRules rules;
    try {
        rules = mfu::trace::KernelRules::fromJsonText(
            std::string_view(reinterpret_cast<const char*>(data), size), "kernel_rules.json");
    } catch (const mfu::InputError&) {
        return 0;
    }
    static const std::string names[]
        = { "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL",
              "cutlass_" + std::string(40000, 'a'), std::string(40000, 'b') + "gemm", "" };
    for (const std::string& name : names)
        (void)rules.classify(name);
    return 0;
}
