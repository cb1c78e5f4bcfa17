#pragma once
// The built-in kernel classification rules, presets/kernels/kernel_rules.json, compiled into the core (the build
// embeds the file's text, core/CMakeLists.txt), so the command line, the Trace panel and the report classify kernels
// by the same table without reading Qt resources or the source tree.
#include <string>
#include <vector>

#include "core/trace/kernel_rules.h"

namespace mfu::trace {

// The file's text as shipped.
std::string_view builtInKernelRulesText();
// Parsed once; throws InputError naming presets/kernels/kernel_rules.json if the shipped file is malformed.
const KernelRules& builtInKernelRules();
// The built-in rules with the user's rule files in front: each file is tried before the ones given after it and
// before the built-ins (trace --kernel-rules, the Python module's trace_kernels). Throws InputError naming a bad file.
KernelRules kernelRulesWithUserFiles(const std::vector<std::string>& files);

} // namespace mfu::trace
