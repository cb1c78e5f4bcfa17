#pragma once
// Kernel classification rules kept as data (presets/kernels/kernel_rules.json), extendable by users.
//
// File: { "format": "mfu-explorer-kernel-rules", "version": 1, "source": "...",
//         "rules": [ { "category": "<key>", "contains": ["..."], "regex": ["..."], "ignore_case": bool,
//                      "note": "..." }, ... ] }
// Rules are tried in order and the first match wins; a kernel no rule matches is `other`. Memory copies and
// memsets are categorised by their event type. User rules are placed before the built-in ones, so they win.
// Rules see the first kClassifiedNameLength characters of a name: std::regex recurses once per character it matches,
// and a 100,000-character kernel name crashed the reader (a stack overflow); every name a rule tells apart says
// what it is long before that. A regex may be at most kMaxRuleRegexLength characters (compiling recurses too).
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "core/trace/kernel_category.h"
#include "core/trace/timeline.h"

namespace mfu::trace {

inline constexpr std::string_view kKernelRulesFormat = "mfu-explorer-kernel-rules";
inline constexpr size_t kClassifiedNameLength = 4096;
inline constexpr size_t kMaxRuleRegexLength = 2000;

class KernelRules {
public:
    // Throws InputError "<fileName>: <key>: <reason>" for a malformed file or an unknown category.
    static KernelRules fromJsonText(std::string_view jsonText, const std::string& fileName);
    static KernelRules fromFile(const std::string& path);

    // The rules of `first` are tried before this one's.
    KernelRules withPriorityRules(const KernelRules& first) const;

    KernelCategory classify(std::string_view kernelName) const;
    size_t size() const { return m_rules.size(); }

private:
    struct Rule {
        KernelCategory category = KernelCategory::Other;
        bool ignoreCase = false;
        std::vector<std::string> contains; // lower-cased when ignoreCase
        std::vector<std::regex> patterns;
    };
    std::vector<Rule> m_rules;
};

// Sets GpuActivity::category for every activity; each distinct name is classified once.
void classifyActivities(Timeline& timeline, const KernelRules& rules);

} // namespace mfu::trace
