// Reading, writing and parsing scenario settings by their table entry (core/scenario/settings.h).
#include "core/scenario/settings.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/io/field_reader.h"
#include "core/number_format.h"
#include "core/number_parse.h"
#include "core/text.h"

namespace mfu {

namespace {

using nlohmann::json;

// The word or number a file holds for `s`, found under its key or an alias; nullptr when absent (or null).
const json* findValue(const FieldReader& r, const Setting& s, std::string& foundKey)
{
    const json& object = r.object();
    if (const auto it = object.find(s.key); it != object.end() && !it->is_null()) {
        foundKey = s.key;
        return &*it;
    }
    for (std::string_view alias : s.aliases)
        if (const auto it = object.find(alias); it != object.end() && !it->is_null()) {
            foundKey = alias;
            return &*it;
        }
    return nullptr;
}

void readOne(const FieldReader& r, const Setting& s, Scenario& scenario)
{
    std::string key;
    const json* value = findValue(r, s, key);
    if (!value) {
        if (s.required)
            throw FieldError(r.keyPath(s.key), "missing");
        return;
    }
    const std::string path = r.keyPath(key);
    try {
        switch (s.kind) {
        case SettingKind::Count:
            applySettingValue(s, r.requiredInteger(key, s.minimum, s.maximum), scenario);
            return;
        case SettingKind::Switch:
            applySettingValue(s, r.optionalBool(key, false) ? 1 : 0, scenario);
            return;
        case SettingKind::Choice:
            // Older files wrote a boolean where a choice now stands: false the first choice, true `trueChoice`.
            if (value->is_boolean() && !s.trueChoice.empty()) {
                const SettingChoice* c = value->get<bool>() ? findChoice(s, s.trueChoice) : &s.choices.front();
                applySettingValue(s, c->value, scenario);
                return;
            }
            applySettingText(s, r.requiredString(key), scenario);
            return;
        case SettingKind::Number:
            applySettingNumber(s, r.requiredNumber(key), scenario);
            return;
        case SettingKind::Text: {
            if (value->is_array()) {
                std::string joined;
                for (const json& word : *value) {
                    if (!word.is_string())
                        throw InputError("must be a list of words");
                    joined += (joined.empty() ? "" : ",") + word.get<std::string>();
                }
                applySettingText(s, joined, scenario);
                return;
            }
            applySettingText(s, r.requiredString(key), scenario);
            return;
        }
        }
    } catch (const FieldError&) {
        throw;
    } catch (const InputError& e) {
        throw FieldError(path, e.what());
    }
}

json valueJson(const Setting& s, const Scenario& scenario)
{
    switch (s.kind) {
    case SettingKind::Count:
        return s.get(scenario);
    case SettingKind::Switch:
        return s.get(scenario) != 0;
    case SettingKind::Choice: {
        const int64_t v = s.get(scenario);
        if (!s.trueChoice.empty()) {
            if (v == s.choices.front().value)
                return false;
            if (v == findChoice(s, s.trueChoice)->value)
                return true;
        }
        return settingValueText(s, scenario);
    }
    case SettingKind::Number:
        return s.getNumber(scenario);
    case SettingKind::Text: {
        const std::string text = s.getText(scenario);
        if (!s.textAsList)
            return text;
        json list = json::array();
        size_t pos = 0;
        while (pos < text.size()) {
            size_t end = text.find(',', pos);
            if (end == std::string::npos)
                end = text.size();
            list.push_back(text.substr(pos, end - pos));
            pos = end + 1;
        }
        return list;
    }
    }
    return {};
}

} // namespace

const Setting* findSetting(std::string_view key)
{
    for (const Setting& s : scenarioSettings())
        if (s.key == key)
            return &s;
    return nullptr;
}

const Setting* findSettingByField(std::string_view field)
{
    for (const Setting& s : scenarioSettings())
        if (!s.field.empty() && s.field == field)
            return &s;
    return nullptr;
}

const Setting* findSettingByFlag(std::string_view flag)
{
    for (const Setting& s : scenarioSettings())
        if (!s.flag.empty() && s.flag == flag)
            return &s;
    return nullptr;
}

std::vector<std::string_view> settingKeys(SettingSection section)
{
    std::vector<std::string_view> keys;
    for (const Setting& s : scenarioSettings())
        if (s.section == section)
            keys.push_back(s.key);
    return keys;
}

const SettingChoice* findChoice(const Setting& s, std::string_view word)
{
    const std::string lowered = asciiLowered(word);
    for (const SettingChoice& c : s.choices) {
        if (c.key == lowered)
            return &c;
        for (std::string_view alias : c.aliases)
            if (alias == lowered)
                return &c;
    }
    return nullptr;
}

std::string choiceList(const Setting& s)
{
    std::string out;
    for (size_t i = 0; i < s.choices.size(); ++i) {
        if (i > 0)
            out += i + 1 == s.choices.size() ? " or " : ", ";
        out += s.choices[i].key;
    }
    return out;
}

std::string settingValueText(const Setting& s, const Scenario& scenario)
{
    switch (s.kind) {
    case SettingKind::Count:
        return std::to_string(s.get(scenario));
    case SettingKind::Switch:
        return s.get(scenario) != 0 ? "on" : "off";
    case SettingKind::Choice: {
        const int64_t v = s.get(scenario);
        for (const SettingChoice& c : s.choices)
            if (c.value == v)
                return std::string(c.key);
        return "";
    }
    case SettingKind::Number: {
        const nlohmann::json number = s.getNumber(scenario);
        return number.dump();
    }
    case SettingKind::Text:
        return s.getText(scenario);
    }
    return "";
}

bool isSettingDefault(const Setting& s, const Scenario& scenario)
{
    static const Scenario defaults;
    switch (s.kind) {
    case SettingKind::Count:
    case SettingKind::Switch:
    case SettingKind::Choice:
        return s.get(scenario) == s.get(defaults);
    case SettingKind::Number:
        return s.getNumber(scenario) == s.getNumber(defaults);
    case SettingKind::Text:
        return s.getText(scenario) == s.getText(defaults);
    }
    return true;
}

std::string settingRangeText(const Setting& s)
{
    if (!s.rule.empty())
        return std::string(s.rule);
    if (s.kind == SettingKind::Number)
        return "from " + formatNumber(s.minimumNumber, 0) + " to " + formatNumber(s.maximumNumber, 0);
    return "a whole number from " + formatNumber(static_cast<double>(s.minimum)) + " to "
        + formatNumber(static_cast<double>(s.maximum))
        + (s.zeroText.empty() || s.minimum != 0 ? "" : " (0: " + std::string(s.zeroText) + ")");
}

std::string countBoundsReason(const Setting& s, int64_t value)
{
    if (value >= s.minimum && value <= s.maximum)
        return "";
    return "must be " + settingRangeText(s);
}

void applySettingNumber(const Setting& s, double value, Scenario& scenario)
{
    if (s.kind != SettingKind::Number)
        throw InputError("is not a number setting");
    const bool inBounds = value >= s.minimumNumber && value <= s.maximumNumber && (!s.valid || s.valid(value));
    if (!inBounds)
        throw InputError(nlohmann::json(value).dump() + " is refused: must be " + settingRangeText(s));
    s.setNumber(scenario, value);
}

void applySettingValue(const Setting& s, int64_t value, Scenario& scenario)
{
    switch (s.kind) {
    case SettingKind::Count:
        if (const std::string why = countBoundsReason(s, value); !why.empty())
            throw InputError(formatNumber(static_cast<double>(value)) + " is refused: " + why);
        break;
    case SettingKind::Switch:
        if (value != 0 && value != 1)
            throw InputError("must be on or off");
        break;
    case SettingKind::Choice: {
        bool known = false;
        for (const SettingChoice& c : s.choices)
            known = known || c.value == value;
        if (!known)
            throw InputError("must be " + choiceList(s));
        break;
    }
    case SettingKind::Number:
    case SettingKind::Text:
        throw InputError("is not a whole-number setting");
    }
    s.set(scenario, value);
}

void applySettingText(const Setting& s, std::string_view text, Scenario& scenario)
{
    switch (s.kind) {
    case SettingKind::Count: {
        const auto v = s.sequenceLength ? parseSequenceLength(text) : parseQuantity(text);
        if (!v)
            throw InputError(quotedForMessage(text) + " is not a number (" + numberRefusalReason(text) + ")");
        if (*v != std::floor(*v) || *v < static_cast<double>(s.minimum) || *v > static_cast<double>(s.maximum))
            throw InputError(quotedForMessage(text) + " is refused: must be " + settingRangeText(s));
        s.set(scenario, static_cast<int64_t>(*v));
        return;
    }
    case SettingKind::Switch: {
        const std::string word = asciiLowered(text);
        if (word == "on" || word == "true" || word == "1")
            s.set(scenario, 1);
        else if (word == "off" || word == "false" || word == "0")
            s.set(scenario, 0);
        else if (const SettingChoice* c = findChoice(s, text))
            s.set(scenario, c->value);
        else
            throw InputError(quotedForMessage(text) + " is not on or off");
        return;
    }
    case SettingKind::Choice: {
        const SettingChoice* c = findChoice(s, text);
        if (!c)
            throw InputError(quotedForMessage(text) + " is not one of " + choiceList(s));
        s.set(scenario, c->value);
        return;
    }
    case SettingKind::Number: {
        const auto v = parseQuantity(text);
        if (!v)
            throw InputError(quotedForMessage(text) + " is not a number (" + numberRefusalReason(text) + ")");
        applySettingNumber(s, *v, scenario);
        return;
    }
    case SettingKind::Text:
        s.setText(scenario, text);
        return;
    }
}

void readSettings(const FieldReader& r, std::optional<SettingSection> section, Scenario& scenario)
{
    for (const Setting& s : scenarioSettings())
        if (!section || s.section == *section)
            readOne(r, s, scenario);
}

void writeSettings(const Scenario& scenario, SettingSection section, json& out)
{
    for (const Setting& s : scenarioSettings())
        if (s.section == section && (s.writtenWhenDefault || !isSettingDefault(s, scenario)))
            out[std::string(s.key)] = valueJson(s, scenario);
}

void applyImpliedSettings(Scenario& scenario, bool scheduleGiven)
{
    if (!scheduleGiven && scenario.parallelism.virtualStages > 1
        && scenario.parallelism.schedule == PipelineSchedule::OneFOneB)
        scenario.parallelism.schedule = PipelineSchedule::Interleaved1F1B;
}

} // namespace mfu
