#include "core/trace/builtin_kernel_rules.h"

namespace mfu::trace {

namespace detail {
extern const char* const kBuiltInKernelRulesJson; // generated from presets/kernels/kernel_rules.json
}

std::string_view builtInKernelRulesText()
{
    return detail::kBuiltInKernelRulesJson;
}

const KernelRules& builtInKernelRules()
{
    static const KernelRules rules
        = KernelRules::fromJsonText(builtInKernelRulesText(), "presets/kernels/kernel_rules.json");
    return rules;
}

KernelRules kernelRulesWithUserFiles(const std::vector<std::string>& files)
{
    KernelRules rules = builtInKernelRules();
    for (auto it = files.rbegin(); it != files.rend(); ++it)
        rules = rules.withPriorityRules(KernelRules::fromFile(*it));
    return rules;
}

} // namespace mfu::trace
