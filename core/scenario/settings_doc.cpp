#include "core/scenario/settings_doc.h"

#include "core/scenario/settings.h"

namespace mfu {

namespace {

std::string sectionPrefix(SettingSection section)
{
    switch (section) {
    case SettingSection::Top:
        return "";
    case SettingSection::Workload:
        return "workload.";
    case SettingSection::Parallelism:
        return "parallelism.";
    case SettingSection::Flags:
        return "flags.";
    }
    return "";
}

std::string accepted(const Setting& s)
{
    switch (s.kind) {
    case SettingKind::Count:
    case SettingKind::Number:
        return settingRangeText(s);
    case SettingKind::Switch:
        return s.flagSets ? "flag: on" : "flag: off";
    case SettingKind::Choice: {
        std::string out;
        for (const SettingChoice& c : s.choices)
            out += (out.empty() ? "`" : " \\| `") + std::string(c.key) + "`";
        return out;
    }
    case SettingKind::Text:
        return "text";
    }
    return "";
}

// Markdown table cells cannot hold '|' unescaped.
std::string cell(std::string_view text)
{
    std::string out;
    for (const char c : text)
        out += c == '|' ? std::string("\\|") : std::string(1, c);
    return out;
}

} // namespace

std::string settingsMarkdownTable()
{
    const Scenario defaults;
    std::string out = "| flag | scenario file key | values | default | meaning |\n|---|---|---|---|---|\n";
    for (const Setting& s : scenarioSettings()) {
        if (s.flag.empty())
            continue;
        const std::string value = s.valueName.empty() ? "" : " " + std::string(s.valueName);
        std::string fallback = settingValueText(s, defaults);
        if (fallback.empty())
            fallback = s.zeroText.empty() ? "none" : std::string(s.zeroText);
        out += "| `--" + std::string(s.flag) + value + "` | `" + sectionPrefix(s.section) + std::string(s.key) + "` | "
            + (s.kind == SettingKind::Choice ? accepted(s) : cell(accepted(s))) + " | " + cell(fallback) + " | "
            + cell(s.help) + " |\n";
    }
    for (const SettingShorthand& shorthand : settingShorthands()) {
        std::string sets;
        for (const auto& [key, value] : shorthand.sets) {
            Scenario scenario;
            const Setting& s = *findSetting(key);
            applySettingValue(s, value, scenario);
            sets += (sets.empty() ? "`" : ", `") + std::string(key) + "` " + settingValueText(s, scenario);
        }
        out += "| `--" + std::string(shorthand.flag) + "` | sets " + sets + " | flag | | " + cell(shorthand.help)
            + " |\n";
    }
    return out;
}

} // namespace mfu
