#include "core/trace/kernel_rules.h"
#include "core/io/json_errors.h"

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/io/read_file.h"
#include "core/large_stack.h"
#include "core/text.h"

namespace mfu::trace {

namespace {

std::vector<std::string> stringList(const nlohmann::json& rule, const char* key, const std::string& where)
{
    std::vector<std::string> out;
    if (!rule.contains(key))
        return out;
    const auto& list = rule[key];
    if (!list.is_array())
        throw InputError(where + "." + key + ": must be an array of strings");
    for (size_t i = 0; i < list.size(); ++i) {
        if (!list[i].is_string() || list[i].get_ref<const std::string&>().empty())
            throw InputError(where + "." + key + "[" + std::to_string(i) + "]: must be a non-empty string");
        out.push_back(list[i].get<std::string>());
    }
    return out;
}

} // namespace

KernelRules KernelRules::fromJsonText(std::string_view jsonText, const std::string& fileName)
{
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(jsonText);
    } catch (const nlohmann::json::parse_error& e) {
        throw InputError(fileName + ": " + jsonParseProblem(e, jsonText.size()));
    } catch (const nlohmann::json::out_of_range&) { // a number beyond double range, e.g. 1e309
        throw InputError(fileName + ": " + kJsonNumberTooLarge);
    }
    // Compared as JSON values, not through value("format", ""): that throws a type_error when "format" is a number.
    if (!doc.is_object() || !doc.contains("format") || doc["format"] != kKernelRulesFormat)
        throw InputError(fileName + ": format: expected \"" + std::string(kKernelRulesFormat) + "\"");
    if (!doc.contains("version") || !doc["version"].is_number_integer() || doc["version"] != 1)
        throw InputError(fileName + ": version: expected 1");
    if (!doc.contains("rules") || !doc["rules"].is_array())
        throw InputError(fileName + ": rules: missing or not an array");
    KernelRules rules;
    const auto& list = doc["rules"];
    for (size_t i = 0; i < list.size(); ++i) {
        const std::string where = fileName + ": rules[" + std::to_string(i) + "]";
        const auto& entry = list[i];
        if (!entry.is_object())
            throw InputError(where + ": must be an object");
        if (!entry.contains("category") || !entry["category"].is_string())
            throw InputError(where + ".category: missing or not a string");
        const std::string key = entry["category"].get<std::string>();
        const auto category = categoryFromKey(key);
        if (!category)
            throw InputError(where + ".category: unknown category \"" + key + "\" (see docs/trace-analysis.md)");
        Rule rule;
        rule.category = *category;
        if (entry.contains("ignore_case")) {
            if (!entry["ignore_case"].is_boolean())
                throw InputError(where + ".ignore_case: must be true or false");
            rule.ignoreCase = entry["ignore_case"].get<bool>();
        }
        for (auto& s : stringList(entry, "contains", where))
            rule.contains.push_back(rule.ignoreCase ? asciiLowered(s) : s);
        const auto regexes = stringList(entry, "regex", where);
        for (size_t r = 0; r < regexes.size(); ++r) {
            if (regexes[r].size() > kMaxRuleRegexLength)
                throw InputError(where + ".regex[" + std::to_string(r) + "]: longer than "
                    + std::to_string(kMaxRuleRegexLength) + " characters");
            try {
                auto flags = std::regex::ECMAScript | std::regex::optimize;
                if (rule.ignoreCase)
                    flags |= std::regex::icase;
                rule.patterns.emplace_back(regexes[r], flags);
            } catch (const std::regex_error& e) {
                throw InputError(where + ".regex[" + std::to_string(r) + "]: invalid regular expression: " + e.what());
            }
        }
        if (rule.contains.empty() && rule.patterns.empty())
            throw InputError(where + ": needs at least one pattern in \"contains\" or \"regex\"");
        rules.m_rules.push_back(std::move(rule));
    }
    return rules;
}

KernelRules KernelRules::fromFile(const std::string& path)
{
    return fromJsonText(readWholeFile(path, "a kernel rules file"), path);
}

KernelRules KernelRules::withPriorityRules(const KernelRules& first) const
{
    KernelRules combined = first;
    combined.m_rules.insert(combined.m_rules.end(), m_rules.begin(), m_rules.end());
    return combined;
}

KernelCategory KernelRules::classify(std::string_view fullName) const
{
    const std::string_view kernelName = fullName.substr(0, kClassifiedNameLength);
    // A cut name goes on: `$` and a final `\b` must not match where it was cut.
    const auto flags = kernelName.size() < fullName.size()
        ? std::regex_constants::match_not_eol | std::regex_constants::match_not_eow
        : std::regex_constants::match_default;
    std::string lower; // computed on first use
    for (const Rule& rule : m_rules) {
        if (rule.ignoreCase && lower.empty())
            lower = asciiLowered(kernelName);
        const std::string_view subject = rule.ignoreCase ? std::string_view(lower) : kernelName;
        for (const auto& needle : rule.contains)
            if (subject.find(needle) != std::string_view::npos)
                return rule.category;
        for (const auto& pattern : rule.patterns)
            if (std::regex_search(kernelName.begin(), kernelName.end(), pattern, flags))
                return rule.category;
    }
    return KernelCategory::Other;
}

void classifyActivities(Timeline& timeline, const KernelRules& rules)
{
    // A user's rule of many alternatives recurses deeply even within the name's bounded window (core/large_stack.h).
    runOnLargeStack([&] {
        std::vector<int> byName(timeline.names.size(), -1);
        for (GpuActivity& a : timeline.activities) {
            if (a.kind == ActivityKind::Memcpy) {
                a.category = KernelCategory::Memcpy;
            } else if (a.kind == ActivityKind::Memset) {
                a.category = KernelCategory::Memset;
            } else {
                int& cached = byName[a.name];
                if (cached < 0)
                    cached = static_cast<int>(rules.classify(timeline.names.name(a.name)));
                a.category = static_cast<KernelCategory>(cached);
            }
        }
    });
}

} // namespace mfu::trace
