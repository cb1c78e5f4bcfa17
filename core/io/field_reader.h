#pragma once
// Typed, path-aware reading of one JSON object in a file the program reads (presets, scenarios, validation runs).
// Every failure is a FieldError whose key is the JSON path relative to the entry ("peak_dense_tflops.bf16") and whose
// reason says what is wrong, so a loader can report "file: hardware[3].peak_dense_tflops.bf16: must be positive"
// without parsing messages.
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/errors.h"

namespace mfu {

// The largest counts a file may state (layers, GPUs, parallel sizes: an int) and the largest token figures (room
// left for the products the model forms from them).
inline constexpr int64_t kMaxFileCount = std::numeric_limits<int32_t>::max();
inline constexpr int64_t kMaxFileTokens = std::numeric_limits<int64_t>::max() / 4;

class FieldError : public InputError {
public:
    FieldError(std::string key, std::string reason)
        : InputError(key.empty() ? reason : key + ": " + reason)
        , m_key(std::move(key))
        , m_reason(std::move(reason))
    {
    }
    const std::string& key() const { return m_key; }
    const std::string& reason() const { return m_reason; }

private:
    std::string m_key;
    std::string m_reason;
};

// Ids are typed on the command line (--gpu b200): lower-case letters, digits, '-', '_' and '.'.
void checkPresetId(const std::string& id);

// "number", "string", ... as a reader of the file would say it.
std::string jsonTypeName(const nlohmann::json& value);

class FieldReader {
public:
    // `path` is the prefix of every key read through this reader ("" for an entry, "scale_up" for a sub-object).
    FieldReader(const nlohmann::json& object, std::string path);

    bool has(std::string_view key) const;
    std::string keyPath(std::string_view key) const;
    const nlohmann::json& object() const { return m_object; }

    std::string requiredString(std::string_view key) const;
    std::optional<std::string> optionalString(std::string_view key) const;
    double requiredNumber(std::string_view key) const;
    std::optional<double> optionalNumber(std::string_view key) const;
    // Whole numbers only (7e9 is accepted, 7.5 is not), within [minimum, maximum].
    int64_t requiredInteger(std::string_view key, int64_t minimum, int64_t maximum) const;
    std::optional<int64_t> optionalInteger(std::string_view key, int64_t minimum, int64_t maximum) const;
    bool optionalBool(std::string_view key, bool fallback) const;
    std::optional<FieldReader> optionalObject(std::string_view key) const;

    // Keys that are not listed are an error (a typo would otherwise drop a figure silently). Keys starting with
    // "_" and "notes" are free-form comments and always allowed.
    void rejectUnknownKeys(std::initializer_list<std::string_view> known) const;
    void rejectUnknownKeys(const std::vector<std::string_view>& known) const;

private:
    const nlohmann::json* find(std::string_view key) const;

    const nlohmann::json& m_object;
    std::string m_path;
};

} // namespace mfu
