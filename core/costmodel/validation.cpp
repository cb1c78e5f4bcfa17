#include "core/costmodel/validation.h"
#include "core/io/json_errors.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/costmodel/collectives.h"
#include "core/costmodel/cost_model.h"
#include "core/costmodel/step_context.h"
#include "core/errors.h"
#include "core/io/field_reader.h"
#include "core/presets/presets.h"
#include "core/scenario/parallelism_keys.h"
#include "core/scenario/pipeline_layout.h"
#include "core/scenario/settings.h"

namespace mfu {

namespace {

using nlohmann::json;

constexpr int64_t kMaxCount = 1'000'000'000;

// The table's words for the FLOP conventions: read here, and listed in the refusal of any other word.
constexpr std::pair<std::string_view, ValidationFlopFormula> kFormulaKeys[] = {
    { "palm", ValidationFlopFormula::PaLM },
    { "six_n", ValidationFlopFormula::SixN },
    { "megatron", ValidationFlopFormula::Megatron },
    { "megatron_recompute", ValidationFlopFormula::MegatronRecompute },
    { "per_component_causal", ValidationFlopFormula::PerComponentCausal },
};

std::optional<ValidationFlopFormula> formulaFromKey(std::string_view key)
{
    for (const auto& [word, formula] : kFormulaKeys)
        if (word == key)
            return formula;
    return std::nullopt;
}

std::string formulaKeysText()
{
    std::string text;
    for (const auto& [word, formula] : kFormulaKeys)
        text += (text.empty() ? "" : ", ") + std::string(word);
    return text;
}

struct Library {
    const PresetLibrary* presets = nullptr;
    PresetLibrary own; // the models and GPUs the table defines
};

void readRun(const FieldReader& r, const Library& lib, ValidationRun& run)
{
    // A run's own keys, then every scenario setting (core/scenario/settings.h) by its file key or alias, flat.
    std::vector<std::string_view> known = { "id", "source", "model", "gpu", "gpus", "global_batch", "stage_layers",
        "in_sample", "assumed", "doubts", "stated", "measured" };
    for (const Setting& setting : scenarioSettings()) {
        known.push_back(setting.key);
        known.insert(known.end(), setting.aliases.begin(), setting.aliases.end());
    }
    r.rejectUnknownKeys(known);
    run.id = r.requiredString("id");
    run.source = r.requiredString("source");
    run.assumed = r.optionalString("assumed").value_or("");
    run.stated = r.optionalString("stated").value_or("");
    run.doubts = r.optionalString("doubts").value_or("");
    run.inSample = r.optionalBool("in_sample", false);

    Scenario& s = run.scenario;
    const std::string modelId = r.requiredString("model");
    if (const ModelSpec* m = lib.own.findModel(modelId))
        s.model = *m;
    else if (const ModelSpec* preset = lib.presets->findModel(modelId))
        s.model = *preset;
    else
        throw FieldError(r.keyPath("model"), "no model '" + modelId + "' in this file or the presets");
    const std::string gpuId = r.requiredString("gpu");
    // The GPU with its cost-model constants (a cluster's own, e.g. its fabric's achieved bandwidth), as --gpu takes it.
    if (const HardwareSpec* h = lib.own.findHardware(gpuId)) {
        s.cluster.hardware = *h;
        s.costModel = lib.own.costModelFor(gpuId);
    } else if (const HardwareSpec* preset = lib.presets->findHardware(gpuId)) {
        s.cluster.hardware = *preset;
        s.costModel = lib.presets->costModelFor(gpuId);
    } else
        throw FieldError(r.keyPath("gpu"), "no hardware '" + gpuId + "' in this file or the presets");
    s.cluster.gpuCount = static_cast<int>(r.requiredInteger("gpus", 1, kMaxCount));

    auto& p = s.parallelism;
    auto& w = s.workload;
    readSettings(r, std::nullopt, s);
    applyImpliedSettings(s, r.has("schedule"));
    // "hsdp" is FSDP with replicas (hsdp_replicas); a table states how its ranks hold the state.
    const std::string dpKind = r.requiredString("data_parallel");
    if (p.hsdpReplicas > 1 && dpKind != "hsdp")
        throw FieldError(r.keyPath("hsdp_replicas"), "only data_parallel 'hsdp' has replicas");
    if (r.has("stage_layers")) {
        if (r.has("pipeline_layout"))
            throw FieldError(r.keyPath("stage_layers"), "give stage_layers or pipeline_layout, not both");
        const json& list = r.object().at("stage_layers");
        std::vector<int> layers;
        if (!list.is_array())
            throw FieldError(r.keyPath("stage_layers"), "must be a list of layer counts per virtual stage");
        for (const json& n : list) {
            if (!n.is_number_integer() || n.get<long long>() < 0 || n.get<long long>() > 100000)
                throw FieldError(r.keyPath("stage_layers"), "must be a list of layer counts per virtual stage");
            layers.push_back(static_cast<int>(n.get<long long>()));
        }
        p.pipelineLayout = pipelineLayoutFromStageLayers(layers, w.mtpLayers);
    }
    const auto globalBatch = r.optionalInteger("global_batch", 1, kMaxCount);
    if (globalBatch)
        w.globalBatchTokens = *globalBatch * w.seqLen;

    CostModel model(s);
    if (const auto reason = model.invalidReasonText(s))
        throw FieldError("", "the layout is not valid for the cost model: " + *reason);

    const auto m = r.optionalObject("measured");
    if (!m)
        throw FieldError(r.keyPath("measured"), "missing");
    m->rejectUnknownKeys({ "tokens_per_sec_per_gpu", "iteration_seconds", "tflops_per_gpu", "mfu", "flop_formula" });
    const int kinds = int(m->has("tokens_per_sec_per_gpu")) + int(m->has("iteration_seconds"))
        + int(m->has("tflops_per_gpu")) + int(m->has("mfu"));
    if (kinds != 1)
        throw FieldError(r.keyPath("measured"),
            "needs exactly one of tokens_per_sec_per_gpu, iteration_seconds, tflops_per_gpu, mfu");
    const auto positive = [&](std::string_view key) {
        const double v = m->requiredNumber(key);
        if (!(v > 0) || !std::isfinite(v))
            throw FieldError(m->keyPath(key), "must be positive");
        return v;
    };
    const auto formula = [&] {
        const std::string key = m->requiredString("flop_formula");
        const auto f = formulaFromKey(key);
        if (!f)
            throw FieldError(m->keyPath("flop_formula"), "'" + key + "' is not one of " + formulaKeysText());
        return *f;
    };
    const auto formulaKey = [&] { return m->requiredString("flop_formula"); };
    char buffer[128];
    if (m->has("tokens_per_sec_per_gpu")) {
        run.measuredTokensPerSecPerGpu = positive("tokens_per_sec_per_gpu");
        std::snprintf(buffer, sizeof buffer, "%.0f tokens/s/GPU", run.measuredTokensPerSecPerGpu);
    } else if (m->has("iteration_seconds")) {
        if (!globalBatch)
            throw FieldError(m->keyPath("iteration_seconds"), "needs the run's global_batch");
        const double it = positive("iteration_seconds");
        run.measuredTokensPerSecPerGpu
            = static_cast<double>(w.globalBatchTokens) / it / static_cast<double>(s.cluster.gpuCount);
        std::snprintf(buffer, sizeof buffer, "%.1f s/iteration", it);
    } else if (m->has("tflops_per_gpu")) {
        const double tf = positive("tflops_per_gpu");
        run.measuredTokensPerSecPerGpu = tf * 1e12 / validationFlopsPerToken(s.model, w.seqLen, formula());
        std::snprintf(buffer, sizeof buffer, "%.0f TFLOPS/GPU (%s)", tf, formulaKey().c_str());
    } else {
        double mfu = positive("mfu");
        if (mfu > 1)
            throw FieldError(m->keyPath("mfu"), "is a fraction of 1 (0.462, not 46.2)");
        const double peak = s.cluster.hardware.densePeak(NumberFormat::BF16).value_or(0.0);
        run.measuredTokensPerSecPerGpu = mfu * peak / validationFlopsPerToken(s.model, w.seqLen, formula());
        std::snprintf(buffer, sizeof buffer, "%.1f%% MFU (%s)", 100 * mfu, formulaKey().c_str());
    }
    run.measuredAs = buffer;
}

void addGroup(std::vector<ValidationGroup>& groups, const std::string& axis, const std::string& name, double error)
{
    auto it = std::find_if(
        groups.begin(), groups.end(), [&](const ValidationGroup& g) { return g.axis == axis && g.name == name; });
    if (it == groups.end()) {
        groups.push_back({ axis, name, 0, 0, 0, 0 });
        it = groups.end() - 1;
    }
    it->maxError = it->runs == 0 ? error : std::max(it->maxError, error);
    it->minError = it->runs == 0 ? error : std::min(it->minError, error);
    it->runs += 1;
    it->meanAbsError += std::abs(error);
    it->meanError += error;
    it->maxAbsError = std::max(it->maxAbsError, std::abs(error));
}

void finish(ValidationGroup& g)
{
    if (g.runs > 0) {
        g.meanAbsError /= g.runs;
        g.meanError /= g.runs;
    }
}

} // namespace

double validationFlopsPerToken(const ModelSpec& model, int64_t seqLen, ValidationFlopFormula formula)
{
    const FlopsPerToken f = countFlopsPerToken(model, seqLen);
    const double l = model.layers, h = static_cast<double>(model.hidden), v = static_cast<double>(model.vocab);
    const double s = static_cast<double>(seqLen);
    switch (formula) {
    case ValidationFlopFormula::PaLM:
        return f.palm.value_or(f.sixN);
    case ValidationFlopFormula::SixN:
        return f.sixN;
    case ValidationFlopFormula::Megatron:
        return 72.0 * l * h * h * (1.0 + s / (6.0 * h) + v / (12.0 * l * h));
    case ValidationFlopFormula::MegatronRecompute:
        return 96.0 * l * h * h * (1.0 + s / (6.0 * h) + v / (16.0 * l * h));
    case ValidationFlopFormula::PerComponentCausal:
        return f.perComponentCausal.value_or(f.palm.value_or(f.sixN));
    }
    return f.sixN;
}

namespace {

// The table's document, its format and version checked.
json tableDocument(std::string_view jsonText, const std::string& fileName)
{
    const auto fail = [&](const std::string& what) { throw InputError(fileName + ": " + what); };
    json doc = parseJsonDocument(jsonText, fileName);
    if (!doc.is_object())
        fail("expected a JSON object");
    if (!doc.contains("format") || doc["format"] != "mfu-explorer-validation") // a non-string format is wrong too
        fail("format: expected \"mfu-explorer-validation\"");
    if (!doc.contains("version") || !doc["version"].is_number_integer() || doc["version"] != 1)
        fail("version: expected 1");
    return doc;
}

// The document's array `key` (empty when absent).
const json& tableEntries(const json& doc, const char* key, const std::string& fileName)
{
    static const json empty = json::array();
    if (!doc.contains(key))
        return empty;
    if (!doc[key].is_array())
        throw InputError(fileName + ": " + key + ": expected an array");
    return doc[key];
}

std::string entryPath(const char* key, size_t i)
{
    return std::string(key) + "[" + std::to_string(i) + "]";
}

PresetLibrary definitionsOf(const json& doc, const std::string& fileName)
{
    PresetLibrary own;
    const json& hw = tableEntries(doc, "hardware", fileName);
    for (size_t i = 0; i < hw.size(); ++i) {
        try {
            HardwareSpec spec = hardwareFromPresetJson(hw[i]);
            std::optional<CostModelConstants> costModel = costModelFromPresetJson(hw[i], spec);
            own.addHardware(std::move(spec), std::move(costModel));
        } catch (const InputError& e) {
            throw InputError(fileName + ": " + entryPath("hardware", i) + "." + e.what());
        }
    }
    const json& models = tableEntries(doc, "models", fileName);
    for (size_t i = 0; i < models.size(); ++i) {
        try {
            own.addModel(modelFromPresetJson(models[i]));
        } catch (const InputError& e) {
            throw InputError(fileName + ": " + entryPath("models", i) + "." + e.what());
        }
    }
    return own;
}

} // namespace

PresetLibrary validationTableDefinitions(std::string_view jsonText, const std::string& fileName)
{
    return definitionsOf(tableDocument(jsonText, fileName), fileName);
}

std::vector<ValidationRun> validationRunsFromJson(
    std::string_view jsonText, const PresetLibrary& presets, const std::string& fileName)
{
    const auto fail = [&](const std::string& what) { throw InputError(fileName + ": " + what); };
    const json doc = tableDocument(jsonText, fileName);
    Library lib;
    lib.presets = &presets;
    lib.own = definitionsOf(doc, fileName);
    const json& runsJson = tableEntries(doc, "runs", fileName);
    if (runsJson.empty())
        fail("runs: no runs");
    std::vector<ValidationRun> runs(runsJson.size());
    for (size_t i = 0; i < runsJson.size(); ++i) {
        if (!runsJson[i].is_object())
            fail(entryPath("runs", i) + ": expected an object");
        try {
            readRun(FieldReader(runsJson[i], ""), lib, runs[i]);
        } catch (const InputError& e) {
            fail(entryPath("runs", i) + (runs[i].id.empty() ? "" : " (" + runs[i].id + ")") + "." + e.what());
        }
        for (size_t j = 0; j < i; ++j)
            if (runs[j].id == runs[i].id)
                fail(entryPath("runs", i) + ".id: '" + runs[i].id + "' appears twice");
    }
    return runs;
}

void statePredictCommands(
    std::vector<ValidationRun>& runs, const PresetLibrary& presets, const PresetLibrary* alsoNamed)
{
    for (ValidationRun& run : runs)
        run.command = predictCommandFor(run.scenario, presets, alsoNamed);
}

std::string gpuGenerationOf(const HardwareSpec& hardware)
{
    const std::string& id = hardware.id;
    const auto starts = [&](const char* p) { return id.rfind(p, 0) == 0; };
    if (starts("a100") || starts("a800"))
        return "Ampere";
    if (starts("h100") || starts("h200") || starts("h800") || starts("gh200"))
        return "Hopper";
    if (starts("b200") || starts("b300") || starts("gb200") || starts("gb300"))
        return "Blackwell";
    if (starts("mi35"))
        return "CDNA 4";
    if (starts("mi3"))
        return "CDNA 3";
    if (starts("tpu"))
        return "TPU";
    return hardware.vendor.empty() ? std::string("other") : hardware.vendor;
}

std::vector<std::string> validationBoundsBroken(const ValidationReport& r)
{
    std::vector<std::string> broken;
    const auto percent = [](double v) {
        char b[32];
        std::snprintf(b, sizeof b, "%.1f%%", 100 * v);
        return std::string(b);
    };
    if (r.outOfSample.meanAbsError > kValidationMeanErrorBound)
        broken.push_back("the out-of-sample mean |error| " + percent(r.outOfSample.meanAbsError) + " exceeds "
            + percent(kValidationMeanErrorBound));
    if (r.outOfSampleMoe.meanAbsError > kValidationMoeMeanErrorBound)
        broken.push_back("the out-of-sample MoE mean |error| " + percent(r.outOfSampleMoe.meanAbsError) + " exceeds "
            + percent(kValidationMoeMeanErrorBound));
    for (const ValidationRow& row : r.rows)
        if (architectureOf(row.run->scenario.model) == "MoE" && std::abs(row.error) > kValidationMoeMaxErrorBound)
            broken.push_back("MoE run " + row.run->id + " is off by " + percent(row.error) + ", beyond "
                + percent(kValidationMoeMaxErrorBound));
    if (r.all.meanAbsError > kValidationAllRunsMeanErrorBound)
        broken.push_back("the mean |error| over all runs " + percent(r.all.meanAbsError) + " exceeds "
            + percent(kValidationAllRunsMeanErrorBound));
    if (r.notFitting > 0)
        broken.push_back(std::to_string(r.notFitting) + " published layout" + (r.notFitting == 1 ? " is" : "s are")
            + " predicted not to fit");
    return broken;
}

std::string architectureOf(const ModelSpec& model)
{
    bool otherMixers = false;
    forEachLayerRun(model, [&otherMixers](const LayerRun& run) {
        otherMixers = otherMixers
            || (run.kind.tokenMixer != TokenMixer::FullAttention
                && run.kind.tokenMixer != TokenMixer::SlidingWindowAttention
                && run.kind.tokenMixer != TokenMixer::ChunkedAttention);
    });
    if (otherMixers)
        return "hybrid";
    return model.isMoe() ? "MoE" : "dense";
}

std::string expertParallelSpanOf(const Scenario& s)
{
    const Parallelism& p = s.parallelism;
    if (p.ep <= 1)
        return {};
    const CommGroup group { p.ep, resolvedExpertTp(p) };
    return group.crossesDomain(s.cluster.domainSize()) ? "EP across nodes" : "EP inside a node";
}

ValidationClasses validationClassesOf(const Scenario& s, const StepPrediction& p)
{
    ValidationClasses c;
    c.gpu = gpuGenerationOf(s.cluster.hardware);
    if (c.gpu.rfind("CDNA", 0) == 0)
        c.gpu = "AMD";
    const std::string span = expertParallelSpanOf(s);
    // A MoE whose every rank computes all its experts (FSDP or ZeRO over the experts, no all-to-all) is not a dense
    // run without EP: its experts' GEMMs, memory and gradient traffic are what it has the table has no run of.
    c.expertParallel = !span.empty() ? (span == "EP across nodes" ? "EP across domains" : "EP inside the NVLink domain")
        : s.model.isMoe()            ? "MoE without EP"
                                     : "no EP";
    c.precision = s.precision == TrainingPrecision::BF16 ? std::string("bf16")
        : s.precision == TrainingPrecision::BF16_FP8     ? "fp8 " + std::string(fp8RecipeKey(s.flags.fp8Recipe))
                                                         : "fp4 " + std::string(fp4RecipeKey(s.flags.fp4Recipe));
    c.tokenMixers = architectureOf(s.model) == "hybrid" ? "hybrid" : "attention only";
    c.experts = s.model.isMoe() ? "MoE" : "dense";
    c.host = p.time.moeHostStall >= kHostBoundStepShare * p.stepTimeSeconds && p.time.moeHostStall > 0
        ? "host-bound MoE"
        : "GPU-bound";
    return c;
}

const std::string& validationClassOnAxis(const ValidationClasses& c, size_t axis)
{
    switch (axis) {
    case 0:
        return c.gpu;
    case 1:
        return c.expertParallel;
    case 2:
        return c.precision;
    case 3:
        return c.tokenMixers;
    case 4:
        return c.experts;
    default:
        return c.host;
    }
}

std::string sequenceRangeOf(int64_t seqLen)
{
    if (seqLen <= 4096)
        return "<= 4k";
    if (seqLen <= 16384)
        return "8k-16k";
    if (seqLen <= 65536)
        return "32k-64k";
    return ">= 128k";
}

ValidationReport runValidation(const std::vector<ValidationRun>& runs)
{
    ValidationReport report;
    report.all = { "all", "all runs", 0, 0, 0, 0 };
    report.outOfSample = { "sample", "out of sample", 0, 0, 0, 0 };
    report.outOfSampleMoe = { "out of sample", "MoE", 0, 0, 0, 0 };
    std::vector<ValidationGroup> groups;
    for (const ValidationRun& run : runs) {
        ValidationRow row;
        row.run = &run;
        row.prediction = evaluate(run.scenario);
        const double palm = row.prediction.flopsPerToken;
        const double peak = run.scenario.cluster.hardware.densePeak(NumberFormat::BF16).value_or(1.0);
        row.measuredMfu = run.measuredTokensPerSecPerGpu * palm / peak;
        row.error = row.prediction.tokensPerSecPerGpu / run.measuredTokensPerSecPerGpu - 1.0;
        if (!row.prediction.fits)
            ++report.notFitting;
        const double e = row.error;
        const std::string architecture = architectureOf(run.scenario.model);
        addGroup(groups, "gpu", gpuGenerationOf(run.scenario.cluster.hardware), e);
        addGroup(groups, "architecture", architecture, e);
        if (const std::string span = expertParallelSpanOf(run.scenario); !span.empty())
            addGroup(groups, "expert parallel", span, e);
        addGroup(groups, "sequence", sequenceRangeOf(run.scenario.workload.seqLen), e);
        addGroup(groups, "sample", run.inSample ? "in sample" : "out of sample", e);
        if (!run.inSample) {
            addGroup(groups, "out of sample", architecture, e);
            const ValidationClasses classes = validationClassesOf(run.scenario, row.prediction);
            for (size_t axis = 0; axis < std::size(kValidationClassAxes); ++axis)
                addGroup(
                    report.outOfSampleByClass, kValidationClassAxes[axis], validationClassOnAxis(classes, axis), e);
        }
        std::vector<ValidationGroup> one { report.all };
        addGroup(one, "all", "all runs", e);
        report.all = one.front();
        report.rows.push_back(row);
    }
    // The sequence ranges in their order on the axis, not in the order the table first meets them.
    std::vector<ValidationGroup*> ranges;
    for (ValidationGroup& g : groups)
        if (g.axis == "sequence")
            ranges.push_back(&g);
    std::vector<ValidationGroup> sorted;
    for (const ValidationGroup* g : ranges)
        sorted.push_back(*g);
    const auto upperEnd = [](const ValidationGroup& g) {
        for (const int64_t s : { int64_t(4096), int64_t(16384), int64_t(65536) })
            if (g.name == sequenceRangeOf(s))
                return s;
        return int64_t(1) << 40;
    };
    std::stable_sort(sorted.begin(), sorted.end(),
        [&](const ValidationGroup& a, const ValidationGroup& b) { return upperEnd(a) < upperEnd(b); });
    for (size_t i = 0; i < ranges.size(); ++i)
        *ranges[i] = sorted[i];
    for (ValidationGroup& g : groups)
        finish(g);
    finish(report.all);
    for (ValidationGroup& g : report.outOfSampleByClass)
        finish(g);
    // One axis after another, in kValidationClassAxes' order (the rows meet them interleaved).
    std::stable_sort(report.outOfSampleByClass.begin(), report.outOfSampleByClass.end(),
        [](const ValidationGroup& a, const ValidationGroup& b) {
            const auto rank = [](const ValidationGroup& g) {
                for (size_t i = 0; i < std::size(kValidationClassAxes); ++i)
                    if (g.axis == kValidationClassAxes[i])
                        return i;
                return std::size(kValidationClassAxes);
            };
            return rank(a) < rank(b);
        });
    for (const ValidationGroup& g : groups) {
        if (g.axis == "sample" && g.name == "out of sample")
            report.outOfSample = g;
        if (g.axis == "out of sample" && g.name == "MoE")
            report.outOfSampleMoe = g;
    }
    report.groups = std::move(groups);
    return report;
}

} // namespace mfu
