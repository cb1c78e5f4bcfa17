// Version-0 scenario files: the draft layout written before the format was versioned by content. Kept apart so the
// current reader stays simple. What differs from version 1:
//   - the model and the GPU are preset ids ("model", "gpu"), or a bare "model_params" count; nothing is embedded,
//     so reading one needs the preset library;
//   - flat keys: "gpus", "seq", "micro_batch", "global_batch_tokens", "tp", "pp", "cp", "price_per_hour";
//   - measured points carry "mfu_percent" (38.5) instead of a fraction, and "seq"/"gpus" instead of seq_len/gpu_count;
//   - loaded traces are one ';'-separated string "traces".
// Everything version 0 had no field for keeps the Scenario defaults.
#include <nlohmann/json.hpp>

#include "core/io/field_reader.h"
#include "core/presets/presets.h"
#include "core/scenario/scenario_file.h"
#include "core/scenario/settings.h"

namespace mfu {

using nlohmann::json;

namespace {

std::vector<std::string> splitTraces(const std::string& text)
{
    std::vector<std::string> paths;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t end = std::min(text.find(';', start), text.size());
        if (end > start)
            paths.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return paths;
}

// A flat count read within the bounds version 1 reads its setting with (the settings table): an opened file is saved
// as version 1, and must open again.
std::optional<int64_t> optionalCount(const FieldReader& r, std::string_view key, std::string_view settingKey)
{
    const Setting* setting = findSetting(settingKey);
    return r.optionalInteger(key, setting->minimum, setting->maximum);
}

int64_t requiredCount(const FieldReader& r, std::string_view key, std::string_view settingKey)
{
    const Setting* setting = findSetting(settingKey);
    return r.requiredInteger(key, setting->minimum, setting->maximum);
}

} // namespace

ScenarioDocument scenarioFromJsonV0(const json& root, const PresetLibrary* presets)
{
    const FieldReader r(root, "");
    r.rejectUnknownKeys(
        { "format", "version", "model", "model_params", "gpu", "gpus", "seq", "micro_batch", "global_batch_tokens",
            "precision", "tp", "pp", "cp", "activation_checkpointing", "price_per_hour", "measured", "traces" });
    if (!presets)
        throw FieldError("version", "0 files name presets by id; reading one needs the preset library");

    ScenarioDocument doc;
    Scenario& s = doc.scenario;
    if (r.has("model") == r.has("model_params"))
        throw FieldError("model", "give exactly one of \"model\" (a preset id) or \"model_params\"");
    if (const auto id = r.optionalString("model")) {
        const ModelSpec* model = presets->findModel(*id);
        if (!model)
            throw FieldError("model", "\"" + *id + "\" is not a known model preset");
        s.model = *model;
    } else {
        s.model = bareModel(r.requiredInteger("model_params", 1, kMaxBareModelParams));
    }
    const std::string gpu = r.requiredString("gpu");
    const HardwareSpec* hardware = presets->findHardware(gpu);
    if (!hardware)
        throw FieldError("gpu", "\"" + gpu + "\" is not a known hardware preset");
    s.cluster.hardware = *hardware;
    s.costModel = presets->costModelFor(gpu);
    s.cluster.gpuCount = static_cast<int>(r.requiredInteger("gpus", 1, kMaxFileCount));

    s.workload.seqLen = requiredCount(r, "seq", "seq_len");
    s.workload.microBatch = optionalCount(r, "micro_batch", "micro_batch").value_or(1);
    s.workload.globalBatchTokens = optionalCount(r, "global_batch_tokens", "global_batch_tokens").value_or(0);
    if (const auto precision = r.optionalString("precision")) {
        const auto p = trainingPrecisionFromKey(*precision);
        if (!p)
            throw FieldError("precision", "\"" + *precision + "\" is not one of bf16, fp8");
        s.precision = *p;
    }
    s.parallelism.tp = static_cast<int>(optionalCount(r, "tp", "tp").value_or(1));
    s.parallelism.pp = static_cast<int>(optionalCount(r, "pp", "pp").value_or(1));
    s.parallelism.cp = static_cast<int>(optionalCount(r, "cp", "cp").value_or(1));
    if (const auto ac = r.optionalString("activation_checkpointing")) {
        const auto a = activationCheckpointingFromKey(*ac);
        if (!a)
            throw FieldError("activation_checkpointing", "\"" + *ac + "\" is not one of none, selective, full");
        s.activationCheckpointing = *a;
    }
    if (const auto price = r.optionalNumber("price_per_hour")) {
        if (!(*price > 0))
            throw FieldError("price_per_hour", "must be positive");
        s.pricePerGpuHourUsd = *price;
    }

    const auto measured = root.find("measured");
    if (measured != root.end() && !measured->is_null()) {
        if (!measured->is_array())
            throw FieldError("measured", "expected an array, found " + jsonTypeName(*measured));
        for (size_t i = 0; i < measured->size(); ++i) {
            const FieldReader p((*measured)[i], "measured[" + std::to_string(i) + "]");
            p.rejectUnknownKeys({ "label", "seq", "gpus", "precision", "mfu_percent" });
            MeasuredPoint point;
            point.label = p.optionalString("label").value_or("");
            point.seqLen = p.requiredInteger("seq", 1, kMaxFileTokens);
            point.gpuCount = static_cast<int>(p.requiredInteger("gpus", 1, kMaxFileCount));
            if (const auto precision = p.optionalString("precision")) {
                const auto pr = trainingPrecisionFromKey(*precision);
                if (!pr)
                    throw FieldError(p.keyPath("precision"), "\"" + *precision + "\" is not one of bf16, fp8");
                point.precision = *pr;
            }
            // Checked after the division: a percentage as small as 4e-324 becomes an MFU of 0, which no run has
            // and which version 1 (what the file is saved as) refuses.
            point.mfu = p.requiredNumber("mfu_percent") / 100.0;
            if (!(point.mfu > 0 && point.mfu <= 1))
                throw FieldError(p.keyPath("mfu_percent"), "must be a percentage in (0, 100]");
            s.measuredPoints.push_back(point);
        }
    }
    if (const auto traces = r.optionalString("traces"))
        doc.tracePaths = splitTraces(*traces);
    return doc;
}

} // namespace mfu
