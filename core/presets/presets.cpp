#include "core/presets/presets.h"
#include "core/io/json_errors.h"

#include <algorithm>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/io/field_reader.h"
#include "core/io/read_file.h"

namespace mfu {

using nlohmann::json;

namespace {

constexpr std::string_view kHardwareFormat = "mfu-explorer-hardware";
constexpr std::string_view kModelsFormat = "mfu-explorer-models";
constexpr int64_t kFormatVersion = 1;

std::string joinKey(const std::string& prefix, const std::string& key)
{
    return key.empty() ? prefix : prefix + "." + key;
}

template <typename Spec> void replaceOrAppend(std::vector<Spec>& list, Spec spec)
{
    // Same id replaces in place, so a user override keeps the built-in's position in lists.
    const auto it = std::find_if(list.begin(), list.end(), [&](const Spec& s) { return s.id == spec.id; });
    if (it != list.end())
        *it = std::move(spec);
    else
        list.push_back(std::move(spec));
}

} // namespace

std::string PresetProblem::message() const
{
    return key.empty() ? file + ": " + reason : file + ": " + key + ": " + reason;
}

void PresetLibrary::addHardware(HardwareSpec spec, std::optional<CostModelConstants> costModel)
{
    if (costModel)
        m_costModels.insert_or_assign(spec.id, std::move(*costModel));
    else
        m_costModels.erase(spec.id);
    replaceOrAppend(m_hardware, std::move(spec));
}
void PresetLibrary::addModel(ModelSpec spec)
{
    replaceOrAppend(m_models, std::move(spec));
}

const HardwareSpec* PresetLibrary::findHardware(std::string_view id) const
{
    const auto it = std::find_if(m_hardware.begin(), m_hardware.end(), [&](const auto& s) { return s.id == id; });
    return it == m_hardware.end() ? nullptr : &*it;
}

std::optional<CostModelConstants> PresetLibrary::costModelFor(std::string_view hardwareId) const
{
    const auto it = m_costModels.find(hardwareId);
    return it == m_costModels.end() ? std::nullopt : std::optional<CostModelConstants>(it->second);
}

const ModelSpec* PresetLibrary::findModel(std::string_view id) const
{
    const auto it = std::find_if(m_models.begin(), m_models.end(), [&](const auto& s) { return s.id == id; });
    return it == m_models.end() ? nullptr : &*it;
}

void PresetLibrary::loadText(const std::string& fileName, std::string_view jsonText)
{
    auto problem = [&](std::string key, std::string reason) {
        m_problems.push_back({ fileName, std::move(key), std::move(reason) });
    };
    if (jsonText.find_first_not_of(" \t\r\n") == std::string_view::npos) {
        problem("", "file is empty or could not be read");
        return;
    }
    json document;
    try {
        document = json::parse(jsonText);
    } catch (const json::parse_error& e) {
        problem("", jsonParseProblem(e, jsonText.size()));
        return;
    } catch (const json::out_of_range&) { // a number beyond double range, e.g. 1e309
        problem("", kJsonNumberTooLarge);
        return;
    }

    std::string listKey;
    try {
        const FieldReader top(document, "");
        const std::string format = top.requiredString("format");
        if (format == kHardwareFormat)
            listKey = "hardware";
        else if (format == kModelsFormat)
            listKey = "models";
        else if (format == "mfu-explorer-kernel-rules")
            return; // kernel classification rules, read by core/trace/kernel_rules.h
        else if (format == "mfu-explorer-validation")
            return; // published runs the cost model is checked against, read by core/costmodel/validation.h
        else
            throw FieldError("format",
                "unknown format \"" + format + "\" (expected \"" + std::string(kHardwareFormat) + "\" or \""
                    + std::string(kModelsFormat) + "\")");
        const int64_t version = top.requiredInteger("version", 1, std::numeric_limits<int32_t>::max());
        if (version > kFormatVersion)
            throw FieldError("version",
                "version " + std::to_string(version) + " is newer than this program reads ("
                    + std::to_string(kFormatVersion) + ")");
        top.rejectUnknownKeys({ "format", "version", listKey });
        if (!document.contains(listKey) || !document[listKey].is_array())
            throw FieldError(listKey, "missing or not an array of entries");
    } catch (const FieldError& e) {
        problem(e.key(), e.reason());
        return;
    }

    // Within one file an id is defined once; across files the later file wins (user folder over built-ins).
    std::set<std::string> idsInFile;
    const json& entries = document[listKey];
    for (size_t i = 0; i < entries.size(); ++i) {
        const std::string entryKey = listKey + "[" + std::to_string(i) + "]";
        try {
            if (listKey == "hardware") {
                HardwareSpec spec = hardwareFromPresetJson(entries[i]);
                if (!idsInFile.insert(spec.id).second)
                    throw FieldError("id", "\"" + spec.id + "\" appears earlier in this file");
                std::optional<CostModelConstants> costModel = costModelFromPresetJson(entries[i], spec);
                addHardware(std::move(spec), std::move(costModel));
            } else {
                ModelSpec spec = modelFromPresetJson(entries[i]);
                if (!idsInFile.insert(spec.id).second)
                    throw FieldError("id", "\"" + spec.id + "\" appears earlier in this file");
                addModel(std::move(spec));
            }
        } catch (const FieldError& e) {
            problem(joinKey(entryKey, e.key()), e.reason());
        } catch (const InputError& e) {
            problem(entryKey, e.what());
        }
    }
}

void PresetLibrary::loadDirectory(const std::filesystem::path& folder)
{
    std::error_code error;
    if (!std::filesystem::is_directory(folder, error))
        return;
    std::vector<std::filesystem::path> files;
    for (const auto& item : std::filesystem::recursive_directory_iterator(folder, error))
        if (item.is_regular_file() && item.path().extension() == ".json")
            files.push_back(item.path());
    std::sort(files.begin(), files.end()); // deterministic override order
    for (const auto& path : files) {
        std::string text;
        try {
            text = readWholeFile(path, "a preset file");
        } catch (const InputError& e) {
            m_problems.push_back({ path.string(), "", e.what() });
            continue;
        }
        loadText(path.string(), text);
    }
}

} // namespace mfu
