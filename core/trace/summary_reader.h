#pragma once
// Reading a per-rank summary (rank_summary.h): keys fetched with errors that name the file and the key.
#include <string>
#include <type_traits>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/errors.h"

namespace mfu::trace::summary {

using nlohmann::json;

// Reads keys; an error names the file and the key: "<file>: <key>: <what>".
class Reader {
public:
    explicit Reader(std::string fileName)
        : m_file(std::move(fileName))
    {
    }

    const json& at(const json& object, const char* key) const
    {
        if (!object.is_object())
            fail(key, "the enclosing value is not an object");
        const auto it = object.find(key);
        if (it == object.end())
            fail(key, "missing");
        return *it;
    }
    template <typename T> T get(const json& object, const char* key) const
    {
        const json& v = at(object, key);
        try {
            if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
                if (!v.is_number_integer())
                    fail(key, "not an integer");
                // json's get<int> keeps the low bits: a world_size of 2^32 + 8 would read as 8.
                const bool fits
                    = v.is_number_unsigned() ? std::in_range<T>(v.get<uint64_t>()) : std::in_range<T>(v.get<int64_t>());
                if (!fits)
                    fail(key, "out of range: " + v.dump());
            } else if constexpr (std::is_floating_point_v<T>) {
                if (!v.is_number())
                    fail(key, "not a number");
            }
            return v.get<T>();
        } catch (const json::exception& e) {
            fail(key, e.what());
        }
    }
    const json& array(const json& object, const char* key) const
    {
        const json& v = at(object, key);
        if (!v.is_array())
            fail(key, "not an array");
        return v;
    }
    [[noreturn]] void fail(const std::string& key, const std::string& what) const
    {
        throw InputError(m_file + ": " + key + ": " + what);
    }

private:
    std::string m_file;
};

} // namespace mfu::trace::summary
