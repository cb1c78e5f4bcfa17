// Version-1 scenario files: writer, reader, and the dispatch on "format"/"version" (older versions: _v0.cpp).
#include "core/scenario/scenario_file.h"
#include "core/io/json_errors.h"

#include <limits>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/io/field_reader.h"
#include "core/io/read_file.h"
#include "core/presets/presets.h"
#include "core/scenario/settings.h"

namespace mfu {

using nlohmann::json;

namespace {

json optionalJson(const std::optional<double>& v)
{
    return v ? json(*v) : json();
}

template <typename Enum>
Enum readKey(const FieldReader& r, std::string_view key, std::optional<Enum> (*fromKey)(std::string_view),
    Enum fallback, const char* choices)
{
    const auto text = r.optionalString(key);
    if (!text)
        return fallback;
    if (const auto value = fromKey(*text))
        return *value;
    throw FieldError(r.keyPath(key), "\"" + *text + "\" is not one of " + choices);
}

std::optional<double> optionalFraction(const FieldReader& r, std::string_view key)
{
    const auto v = r.optionalNumber(key);
    if (v && !(*v > 0 && *v <= 1))
        throw FieldError(r.keyPath(key), "must be a fraction in (0, 1]");
    return v;
}

std::optional<double> optionalPositive(const FieldReader& r, std::string_view key)
{
    const auto v = r.optionalNumber(key);
    if (v && !(*v > 0))
        throw FieldError(r.keyPath(key), "must be positive");
    return v;
}

const json& requiredArray(const FieldReader& r, std::string_view key)
{
    static const json empty = json::array();
    const auto it = r.object().find(key);
    if (it == r.object().end() || it->is_null())
        return empty;
    if (!it->is_array())
        throw FieldError(r.keyPath(key), "expected an array, found " + jsonTypeName(*it));
    return *it;
}

// workload.packing: {"document_lengths": [[length, count], ...] | "mean_document_length": N,
// "attention_mask": "document" | "packed", "padding_fraction": p}; every key optional.
SequencePacking readPacking(const FieldReader& r, int64_t seqLen)
{
    r.rejectUnknownKeys({ "document_lengths", "mean_document_length", "attention_mask", "padding_fraction" });
    SequencePacking p;
    if (r.has("document_lengths") && r.has("mean_document_length"))
        throw FieldError(r.keyPath("mean_document_length"), "give document_lengths or mean_document_length, not both");
    if (r.has("document_lengths")) {
        try {
            p.documents = parseDocumentLengths(r.object().at("document_lengths").dump(), r.keyPath("document_lengths"));
        } catch (const InputError& e) {
            throw FieldError(r.keyPath("document_lengths"), e.what());
        }
    } else if (const auto mean = r.optionalInteger("mean_document_length", 1, kMaxFileTokens)) {
        p.documents = { { *mean, 1.0 } };
        p.meanOnly = true;
    }
    if (const auto mask = r.optionalString("attention_mask"))
        if (!packedAttentionFromKey(*mask, p.attention))
            throw FieldError(
                r.keyPath("attention_mask"), "expected \"document\" or \"packed\", found \"" + *mask + "\"");
    p.paddingFraction = r.optionalNumber("padding_fraction").value_or(0.0);
    if (!(p.paddingFraction >= 0.0 && p.paddingFraction < 1.0))
        throw FieldError(r.keyPath("padding_fraction"), "must be a fraction in [0, 1)");
    try {
        validatePacking(p, seqLen);
    } catch (const InputError& e) {
        throw FieldError(r.keyPath(r.has("document_lengths") ? "document_lengths" : "mean_document_length"), e.what());
    }
    return p;
}

json workloadToJson(const Scenario& s)
{
    const Workload& w = s.workload;
    json out = json::object();
    writeSettings(s, SettingSection::Workload, out);
    const SequencePacking& p = w.packing;
    if (p.packed() || p.padded()) {
        json packing = json::object();
        if (p.meanOnly && p.documents.size() == 1) {
            packing["mean_document_length"] = p.documents.front().length;
        } else if (p.packed()) {
            json bins = json::array();
            for (const auto& b : p.documents)
                bins.push_back({ b.length, b.count });
            packing["document_lengths"] = bins;
        }
        if (p.packed())
            packing["attention_mask"] = packedAttentionKey(p.attention);
        if (p.padded())
            packing["padding_fraction"] = p.paddingFraction;
        out["packing"] = packing;
    }
    if (w.vision.tokensPerSequence > 0)
        out["vision"] = { { "tokens_per_sequence", w.vision.tokensPerSequence },
            { "tokens_per_image", w.vision.tokensPerImage }, { "encoder_trained", w.vision.encoderTrained } };
    return out;
}

// The table's workload settings (core/scenario/settings.h), then packing and vision, which need the sequence length.
void readWorkload(const FieldReader& r, Scenario& s)
{
    std::vector<std::string_view> known = settingKeys(SettingSection::Workload);
    known.insert(known.end(), { "packing", "vision" });
    r.rejectUnknownKeys(known);
    readSettings(r, SettingSection::Workload, s);
    Workload& w = s.workload;
    if (const auto p = r.optionalObject("packing"))
        w.packing = readPacking(*p, w.seqLen);
    if (const auto v = r.optionalObject("vision")) {
        v->rejectUnknownKeys({ "tokens_per_sequence", "tokens_per_image", "encoder_trained" });
        w.vision.tokensPerSequence = v->optionalInteger("tokens_per_sequence", 0, kMaxFileTokens).value_or(0);
        w.vision.tokensPerImage = v->optionalInteger("tokens_per_image", 0, kMaxFileTokens).value_or(0);
        w.vision.encoderTrained = v->optionalBool("encoder_trained", true);
        try {
            validateVisionWorkload(w.vision, w.seqLen);
        } catch (const InputError& e) {
            throw FieldError(v->keyPath("tokens_per_sequence"), e.what());
        }
    }
}

std::optional<Throughput> readThroughput(const FieldReader& root)
{
    const auto object = root.optionalObject("measured_throughput");
    if (!object)
        return std::nullopt;
    object->rejectUnknownKeys({ "tokens_per_sec", "scope" });
    Throughput t;
    t.tokensPerSec = object->requiredNumber("tokens_per_sec");
    optionalPositive(*object, "tokens_per_sec");
    const std::string scope = object->requiredString("scope");
    if (scope == "per_gpu")
        t.scope = ThroughputScope::PerGpu;
    else if (scope == "cluster")
        t.scope = ThroughputScope::Cluster;
    else
        throw FieldError(object->keyPath("scope"), "\"" + scope + "\" is not one of per_gpu, cluster");
    return t;
}

MeasuredPoint readPoint(const json& value, const std::string& path)
{
    const FieldReader r(value, path);
    r.rejectUnknownKeys({ "label", "seq_len", "gpu_count", "precision", "mfu" });
    MeasuredPoint p;
    p.label = r.optionalString("label").value_or("");
    p.seqLen = r.requiredInteger("seq_len", 1, kMaxFileTokens);
    p.gpuCount = static_cast<int>(r.requiredInteger("gpu_count", 1, kMaxClusterGpus));
    p.precision = readKey<TrainingPrecision>(
        r, "precision", trainingPrecisionFromKey, TrainingPrecision::BF16, "bf16, fp8, fp4");
    p.mfu = r.requiredNumber("mfu");
    optionalFraction(r, "mfu");
    return p;
}

CostInputs readCost(const FieldReader& root)
{
    CostInputs c;
    const auto r = root.optionalObject("cost");
    if (!r)
        return c;
    r->rejectUnknownKeys({ "token_budget", "days", "baseline_mfu", "target_mfu" });
    c.tokenBudget = optionalPositive(*r, "token_budget");
    c.days = optionalPositive(*r, "days");
    c.baselineMfu = optionalFraction(*r, "baseline_mfu");
    c.targetMfu = optionalFraction(*r, "target_mfu");
    return c;
}

std::vector<std::string> readPaths(const FieldReader& r, const char* key)
{
    std::vector<std::string> out;
    const json& paths = requiredArray(r, key);
    for (size_t i = 0; i < paths.size(); ++i) {
        if (!paths[i].is_string() || paths[i].get<std::string>().empty())
            throw FieldError(std::string(key) + "[" + std::to_string(i) + "]", "expected a file path");
        out.push_back(paths[i].get<std::string>());
    }
    return out;
}

ScenarioDocument readV1(const json& root, const PresetLibrary* presets)
{
    const FieldReader r(root, "");
    r.rejectUnknownKeys({ "format", "version", "model", "cluster", "workload", "precision", "parallelism",
        "activation_checkpointing", "flags", "mfu_formula", "measured_throughput", "measured_points",
        "price_per_gpu_hour_usd", "cost", "trace_paths", "baseline_trace_paths", "training_log_paths" });
    ScenarioDocument doc;
    Scenario& s = doc.scenario;
    if (!r.has("model"))
        throw FieldError("model", "missing");
    s.model = modelFromScenarioJson(root.at("model"), "model");

    const auto cluster = r.optionalObject("cluster");
    if (!cluster)
        throw FieldError("cluster", "missing");
    cluster->rejectUnknownKeys({ "hardware", "gpu_count", "gpus_per_scale_up_domain" });
    if (!cluster->has("hardware"))
        throw FieldError("cluster.hardware", "missing");
    s.cluster.hardware = hardwareFromScenarioJson(cluster->object().at("hardware"), "cluster.hardware", &s.costModel);
    // A file saved before the names a trace gives its GPU were written: the library's preset of the same id knows
    // them (its figures stay the file's).
    if (s.cluster.hardware.matchPatterns.empty() && presets)
        if (const HardwareSpec* preset = presets->findHardware(s.cluster.hardware.id))
            s.cluster.hardware.matchPatterns = preset->matchPatterns;
    s.cluster.gpuCount = static_cast<int>(cluster->requiredInteger("gpu_count", 1, kMaxClusterGpus));
    s.cluster.gpusPerScaleUpDomain
        = static_cast<int>(cluster->optionalInteger("gpus_per_scale_up_domain", 0, kMaxFileCount).value_or(0));

    const auto workload = r.optionalObject("workload");
    if (!workload)
        throw FieldError("workload", "missing");
    readWorkload(*workload, s);
    readSettings(r, SettingSection::Top, s);
    if (const auto p = r.optionalObject("parallelism")) {
        p->rejectUnknownKeys(settingKeys(SettingSection::Parallelism));
        readSettings(*p, SettingSection::Parallelism, s);
    }
    applyImpliedSettings(s, r.has("parallelism") && r.object().at("parallelism").contains("schedule"));
    if (const auto f = r.optionalObject("flags")) {
        f->rejectUnknownKeys(settingKeys(SettingSection::Flags));
        readSettings(*f, SettingSection::Flags, s);
    }
    s.mfuFormula
        = readKey<FlopFormula>(r, "mfu_formula", flopFormulaFromKey, kDefaultFlopFormula, flopFormulaKeyList().c_str());
    s.measuredThroughput = readThroughput(r);
    const json& points = requiredArray(r, "measured_points");
    for (size_t i = 0; i < points.size(); ++i)
        s.measuredPoints.push_back(readPoint(points[i], "measured_points[" + std::to_string(i) + "]"));
    s.pricePerGpuHourUsd = optionalPositive(r, "price_per_gpu_hour_usd");
    s.cost = readCost(r);
    doc.tracePaths = readPaths(r, "trace_paths");
    doc.baselineTracePaths = readPaths(r, "baseline_trace_paths");
    doc.trainingLogPaths = readPaths(r, "training_log_paths");
    return doc;
}

} // namespace

std::string_view pipelineScheduleKey(PipelineSchedule schedule)
{
    switch (schedule) {
    case PipelineSchedule::OneFOneB:
        return "1f1b";
    case PipelineSchedule::Interleaved1F1B:
        return "interleaved_1f1b";
    case PipelineSchedule::ZeroBubble:
        return "zero_bubble";
    }
    return "1f1b";
}

std::optional<PipelineSchedule> pipelineScheduleFromKey(std::string_view key)
{
    for (const auto s : { PipelineSchedule::OneFOneB, PipelineSchedule::Interleaved1F1B, PipelineSchedule::ZeroBubble })
        if (key == pipelineScheduleKey(s))
            return s;
    return std::nullopt;
}

std::string_view dataParallelKey(DataParallelKind kind)
{
    switch (kind) {
    case DataParallelKind::Fsdp:
        return "fsdp";
    case DataParallelKind::Zero1:
        return "zero1";
    case DataParallelKind::Ddp:
        return "ddp";
    case DataParallelKind::MegatronFsdp:
        return "megatron_fsdp";
    }
    return "fsdp";
}

std::optional<DataParallelKind> dataParallelFromKey(std::string_view key)
{
    for (const auto k :
        { DataParallelKind::Fsdp, DataParallelKind::Zero1, DataParallelKind::Ddp, DataParallelKind::MegatronFsdp })
        if (key == dataParallelKey(k))
            return k;
    return std::nullopt;
}

std::string_view attentionKernelKey(AttentionKernel kernel)
{
    switch (kernel) {
    case AttentionKernel::Auto:
        return "auto";
    case AttentionKernel::FlashAttention3:
        return "flash3";
    case AttentionKernel::FlashAttention2:
        return "flash2";
    case AttentionKernel::FlashAttention1:
        return "flash1";
    case AttentionKernel::Cudnn:
        return "cudnn";
    case AttentionKernel::Unfused:
        return "unfused";
    }
    return "auto";
}

std::optional<AttentionKernel> attentionKernelFromKey(std::string_view key)
{
    for (const auto k : { AttentionKernel::Auto, AttentionKernel::FlashAttention3, AttentionKernel::FlashAttention2,
             AttentionKernel::FlashAttention1, AttentionKernel::Cudnn, AttentionKernel::Unfused })
        if (key == attentionKernelKey(k))
            return k;
    return std::nullopt;
}

json scenarioToJson(const ScenarioDocument& doc)
{
    const Scenario& s = doc.scenario;
    json flags = json::object();
    writeSettings(s, SettingSection::Flags, flags);
    json parallelism = json::object();
    writeSettings(s, SettingSection::Parallelism, parallelism);
    json points = json::array();
    for (const auto& m : s.measuredPoints)
        points.push_back({ { "label", m.label }, { "seq_len", m.seqLen }, { "gpu_count", m.gpuCount },
            { "precision", trainingPrecisionKey(m.precision) }, { "mfu", m.mfu } });
    json throughput;
    if (s.measuredThroughput)
        throughput = { { "tokens_per_sec", s.measuredThroughput->tokensPerSec },
            { "scope", s.measuredThroughput->scope == ThroughputScope::PerGpu ? "per_gpu" : "cluster" } };
    json top = {
        { "format", kScenarioFormat },
        { "version", kScenarioFileVersion },
        { "model", modelToScenarioJson(s.model) },
        { "cluster",
            { { "hardware", hardwareToScenarioJson(s.cluster.hardware, s.costModel) },
                { "gpu_count", s.cluster.gpuCount }, { "gpus_per_scale_up_domain", s.cluster.gpusPerScaleUpDomain } } },
        { "workload", workloadToJson(s) },
        { "parallelism", parallelism },
        { "flags", flags },
        { "mfu_formula", flopFormulaKey(s.mfuFormula) },
        { "measured_throughput", throughput },
        { "measured_points", points },
        { "price_per_gpu_hour_usd", optionalJson(s.pricePerGpuHourUsd) },
        { "cost",
            { { "token_budget", optionalJson(s.cost.tokenBudget) }, { "days", optionalJson(s.cost.days) },
                { "baseline_mfu", optionalJson(s.cost.baselineMfu) },
                { "target_mfu", optionalJson(s.cost.targetMfu) } } },
        { "trace_paths", doc.tracePaths },
        { "baseline_trace_paths", doc.baselineTracePaths },
        { "training_log_paths", doc.trainingLogPaths },
    };
    writeSettings(s, SettingSection::Top, top);
    return top;
}

std::string scenarioFileText(const ScenarioDocument& document)
{
    return scenarioToJson(document).dump(2) + "\n";
}

ScenarioDocument scenarioFromJson(const json& root, const std::string& fileName, const PresetLibrary* presets)
{
    try {
        if (!root.is_object())
            throw FieldError("", "not a scenario file (expected a JSON object, found " + jsonTypeName(root) + ")");
        const FieldReader r(root, "");
        const std::string format = r.optionalString("format").value_or("");
        if (format != kScenarioFormat)
            throw FieldError("format",
                format.empty() ? std::string("missing: not an MFU Explorer scenario file")
                               : "\"" + format + "\" is not an MFU Explorer scenario (\"" + kScenarioFormat + "\")");
        const int64_t version = r.requiredInteger("version", 0, std::numeric_limits<int32_t>::max());
        if (version > kScenarioFileVersion)
            throw FieldError("version",
                std::to_string(version) + " is newer than this MFU Explorer reads (up to "
                    + std::to_string(kScenarioFileVersion) + "); open it with a newer release");
        if (version == 0)
            return scenarioFromJsonV0(root, presets);
        return readV1(root, presets);
    } catch (const InputError& e) {
        throw InputError(fileName + ": " + e.what());
    }
}

ScenarioDocument scenarioFromText(std::string_view text, const std::string& fileName, const PresetLibrary* presets)
{
    return scenarioFromJson(parseJsonDocument(text, fileName), fileName, presets);
}

ScenarioDocument readScenarioFile(const std::filesystem::path& path, const PresetLibrary* presets)
{
    return scenarioFromText(readWholeFile(path, "a scenario file"), path.string(), presets);
}

ScenarioDocument withRunFilesResolved(ScenarioDocument document, const std::filesystem::path& scenarioFile)
{
    std::error_code error;
    const std::filesystem::path absolute = std::filesystem::absolute(scenarioFile, error);
    const std::filesystem::path folder = (error ? scenarioFile : absolute).parent_path();
    for (auto* paths : { &document.tracePaths, &document.baselineTracePaths, &document.trainingLogPaths })
        for (std::string& stored : *paths)
            if (!stored.empty() && std::filesystem::path(stored).is_relative())
                stored = (folder / stored).lexically_normal().string();
    return document;
}

} // namespace mfu
