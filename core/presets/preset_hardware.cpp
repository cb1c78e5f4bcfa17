// Hardware preset entry -> HardwareSpec. Files state figures in datasheet units (TFLOPS, GB, GB/s, Gb/s); the
// spec holds SI units (FLOP/s, bytes, bytes/s). Every figure present must name its source.
#include <set>
#include <string>
#include <vector>

#include "core/io/field_reader.h"
#include "core/model/cost_model_constants_json.h"
#include "core/presets/gpu_match.h"
#include "core/presets/presets.h"
#include "core/units.h"

namespace mfu {

using nlohmann::json;

namespace {

constexpr double kBitsPerByte = 8.0;

// Reads {"bf16": 2250, "fp8": 4500, ...} in TFLOPS into FLOP/s by NumberFormat.
void readPeaks(const FieldReader& entry, std::string_view key,
    std::array<std::optional<double>, kNumberFormatCount>& peaks, std::vector<std::string>& figures)
{
    const auto table = entry.optionalObject(key);
    if (!table)
        return;
    for (const auto& item : table->object().items()) {
        if (item.key().starts_with('_'))
            continue;
        const auto format = numberFormatFromKey(item.key());
        // Only the canonical lower-case keys. "fp16" is for devices without BF16 (V100); elsewhere give "bf16".
        if (!format || numberFormatKey(*format) != item.key())
            throw FieldError(
                table->keyPath(item.key()), "unknown number format (use fp32, tf32, bf16, fp16, fp8, fp4)");
        peaks[static_cast<size_t>(*format)] = table->requiredNumber(item.key()) * kTera;
        figures.push_back(table->keyPath(item.key()));
    }
}

// A figure "peak_dense_tflops.bf16" is sourced by "peak_dense_tflops.bf16" or by its group "peak_dense_tflops".
std::string groupOf(const std::string& figure)
{
    return figure.substr(0, figure.find('.'));
}

std::map<std::string, std::string> resolveSources(const FieldReader& entry, const std::vector<std::string>& figures)
{
    const auto sourcesObject = entry.optionalObject("sources");
    if (!sourcesObject)
        throw FieldError("sources", "missing: every figure must name its source (datasheet name, year)");
    std::map<std::string, std::string> given;
    for (const auto& item : sourcesObject->object().items()) {
        if (item.key().starts_with('_'))
            continue;
        const std::string text = sourcesObject->requiredString(item.key());
        given[item.key()] = text;
    }

    std::set<std::string> usable;
    std::map<std::string, std::string> resolved;
    for (const std::string& figure : figures) {
        usable.insert(figure);
        usable.insert(groupOf(figure));
        auto it = given.find(figure);
        if (it == given.end())
            it = given.find(groupOf(figure));
        if (it == given.end())
            throw FieldError(figure, "has no source: add \"" + figure + "\" to \"sources\" (datasheet name, year)");
        resolved[figure] = it->second;
    }
    for (const auto& [key, text] : given)
        if (!usable.contains(key))
            throw FieldError(sourcesObject->keyPath(key), "names no figure of this entry (misspelt?)");
    return resolved;
}

} // namespace

HardwareSpec hardwareFromPresetJson(const json& entryJson)
{
    const FieldReader entry(entryJson, "");
    entry.rejectUnknownKeys({ "id", "name", "vendor", "peak_dense_tflops", "peak_sparse_tflops", "memory_gb",
        "hbm_bandwidth_gbps", "scale_up", kScaleOutKey, "host_link", "price_per_gpu_hour_usd", "power_watts", "sources",
        "cost_model", "match" });

    HardwareSpec spec;
    spec.id = entry.requiredString("id");
    checkPresetId(spec.id);
    spec.name = entry.requiredString("name");
    spec.vendor = entry.optionalString("vendor").value_or("");
    spec.matchPatterns = entryJson.contains("match") ? matchPatternsFromJson(entryJson["match"], "match")
                                                     : std::vector<std::string> {};

    std::vector<std::string> figures;
    readPeaks(entry, "peak_dense_tflops", spec.peakDenseFlops, figures);
    readPeaks(entry, "peak_sparse_tflops", spec.peakSparseFlops, figures);

    spec.hbmBytes = entry.requiredNumber("memory_gb") * kGiga; // datasheets use decimal GB
    figures.push_back("memory_gb");
    spec.hbmBandwidthBytesPerSec = entry.requiredNumber("hbm_bandwidth_gbps") * kGiga;
    figures.push_back("hbm_bandwidth_gbps");

    if (const auto scaleUp = entry.optionalObject("scale_up")) {
        scaleUp->rejectUnknownKeys({ "name", "domain_gpus", "bandwidth_gbps" });
        spec.scaleUpName = scaleUp->optionalString("name").value_or("");
        if (const auto domain = scaleUp->optionalInteger("domain_gpus", 1, 1'000'000)) {
            spec.scaleUpDomainGpus = static_cast<int>(*domain);
            figures.push_back("scale_up.domain_gpus");
        }
        if (const auto bandwidth = scaleUp->optionalNumber("bandwidth_gbps")) {
            spec.scaleUpBandwidthBytesPerSec = *bandwidth * kGiga;
            figures.push_back("scale_up.bandwidth_gbps");
        }
    }
    if (const auto scaleOut = entry.optionalNumber(kScaleOutKey)) {
        spec.scaleOutBandwidthBytesPerSec = *scaleOut * kGiga / kBitsPerByte; // 400 Gb/s -> 50e9 B/s
        figures.push_back(kScaleOutKey);
    }
    if (const auto hostLink = entry.optionalObject("host_link")) {
        hostLink->rejectUnknownKeys({ "name", "bandwidth_gbps" });
        spec.hostLinkName = hostLink->optionalString("name").value_or("");
        if (const auto bandwidth = hostLink->optionalNumber("bandwidth_gbps")) {
            spec.hostLinkBytesPerSec = *bandwidth * kGiga;
            figures.push_back("host_link.bandwidth_gbps");
        }
    }
    if (const auto price = entry.optionalNumber("price_per_gpu_hour_usd")) {
        spec.pricePerGpuHourUsd = *price;
        figures.push_back("price_per_gpu_hour_usd");
    }
    if (const auto power = entry.optionalNumber("power_watts")) {
        spec.powerWatts = *power;
        figures.push_back("power_watts");
    }

    validateHardwareSpec(spec);
    spec.sources = resolveSources(entry, figures);
    return spec;
}

std::optional<CostModelConstants> costModelFromPresetJson(const json& entryJson, const HardwareSpec& hardware)
{
    // Optional cost-model constants (justified in docs/cost-model.md) override the device's defaults key by key.
    if (!entryJson.is_object() || !entryJson.contains("cost_model"))
        return std::nullopt;
    return costModelConstantsFromJson(entryJson["cost_model"], defaultCostModelConstants(hardware), "cost_model");
}

} // namespace mfu
