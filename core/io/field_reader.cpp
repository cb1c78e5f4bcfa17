#include "core/io/field_reader.h"

#include <algorithm>
#include <cmath>

namespace mfu {

using nlohmann::json;

void checkPresetId(const std::string& id)
{
    for (const char c : id) {
        const bool allowed = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
        if (!allowed)
            throw FieldError("id", "\"" + id + "\" may hold only lower-case letters, digits, '-', '_' and '.'");
    }
}

std::string jsonTypeName(const json& value)
{
    switch (value.type()) {
    case json::value_t::null:
        return "null";
    case json::value_t::boolean:
        return "a boolean";
    case json::value_t::string:
        return "a string";
    case json::value_t::array:
        return "an array";
    case json::value_t::object:
        return "an object";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
        return "a number";
    default:
        return "an unsupported value";
    }
}

FieldReader::FieldReader(const json& object, std::string path)
    : m_object(object)
    , m_path(std::move(path))
{
    if (!m_object.is_object())
        throw FieldError(m_path, "expected an object, found " + jsonTypeName(m_object));
}

std::string FieldReader::keyPath(std::string_view key) const
{
    return m_path.empty() ? std::string(key) : m_path + "." + std::string(key);
}

const json* FieldReader::find(std::string_view key) const
{
    const auto it = m_object.find(key);
    if (it == m_object.end() || it->is_null())
        return nullptr;
    return &*it;
}

bool FieldReader::has(std::string_view key) const
{
    return find(key) != nullptr;
}

std::optional<std::string> FieldReader::optionalString(std::string_view key) const
{
    const json* value = find(key);
    if (!value)
        return std::nullopt;
    if (!value->is_string())
        throw FieldError(keyPath(key), "expected a string, found " + jsonTypeName(*value));
    return value->get<std::string>();
}

std::string FieldReader::requiredString(std::string_view key) const
{
    auto value = optionalString(key);
    if (!value)
        throw FieldError(keyPath(key), "missing (a string is required)");
    if (value->empty())
        throw FieldError(keyPath(key), "must not be empty");
    return *value;
}

std::optional<double> FieldReader::optionalNumber(std::string_view key) const
{
    const json* value = find(key);
    if (!value)
        return std::nullopt;
    if (!value->is_number())
        throw FieldError(keyPath(key), "expected a number, found " + jsonTypeName(*value));
    const double number = value->get<double>();
    if (!std::isfinite(number))
        throw FieldError(keyPath(key), "must be a finite number");
    return number;
}

double FieldReader::requiredNumber(std::string_view key) const
{
    auto value = optionalNumber(key);
    if (!value)
        throw FieldError(keyPath(key), "missing (a number is required)");
    return *value;
}

std::optional<int64_t> FieldReader::optionalInteger(std::string_view key, int64_t minimum, int64_t maximum) const
{
    const json* value = find(key);
    if (!value)
        return std::nullopt;
    if (!value->is_number())
        throw FieldError(keyPath(key), "expected a whole number, found " + jsonTypeName(*value));
    int64_t whole = 0;
    if (value->is_number_unsigned() && value->get<uint64_t>() > static_cast<uint64_t>(maximum)) {
        // 2^63 and above parse as unsigned: read as int64 they wrapped to a negative "found" figure.
        throw FieldError(keyPath(key),
            "must be between " + std::to_string(minimum) + " and " + std::to_string(maximum) + ", found "
                + value->dump());
    } else if (value->is_number_integer()) {
        whole = value->get<int64_t>();
    } else {
        const double number = value->get<double>();
        // 2^63 is not representable as int64; anything that large is absurd for a preset anyway.
        if (!std::isfinite(number) || number != std::floor(number) || std::fabs(number) >= 9.2e18)
            throw FieldError(keyPath(key), "expected a whole number, found " + value->dump());
        whole = static_cast<int64_t>(number);
    }
    if (whole < minimum || whole > maximum)
        throw FieldError(keyPath(key),
            "must be between " + std::to_string(minimum) + " and " + std::to_string(maximum) + ", found "
                + std::to_string(whole));
    return whole;
}

int64_t FieldReader::requiredInteger(std::string_view key, int64_t minimum, int64_t maximum) const
{
    auto value = optionalInteger(key, minimum, maximum);
    if (!value)
        throw FieldError(keyPath(key), "missing (a whole number is required)");
    return *value;
}

bool FieldReader::optionalBool(std::string_view key, bool fallback) const
{
    const json* value = find(key);
    if (!value)
        return fallback;
    if (!value->is_boolean())
        throw FieldError(keyPath(key), "expected true or false, found " + jsonTypeName(*value));
    return value->get<bool>();
}

std::optional<FieldReader> FieldReader::optionalObject(std::string_view key) const
{
    const json* value = find(key);
    if (!value)
        return std::nullopt;
    return FieldReader(*value, keyPath(key));
}

void FieldReader::rejectUnknownKeys(std::initializer_list<std::string_view> known) const
{
    rejectUnknownKeys(std::vector<std::string_view>(known));
}

void FieldReader::rejectUnknownKeys(const std::vector<std::string_view>& known) const
{
    for (const auto& item : m_object.items()) {
        const std::string& key = item.key();
        if (key.starts_with('_') || key == "notes")
            continue;
        if (std::find(known.begin(), known.end(), key) == known.end())
            throw FieldError(keyPath(key), "unknown key (misspelt? comments go in \"notes\" or keys starting with _)");
    }
}

} // namespace mfu
