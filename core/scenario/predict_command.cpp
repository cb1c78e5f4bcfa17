#include "core/scenario/predict_command.h"

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/model/cost_model_constants_json.h"
#include "core/presets/presets.h"
#include "core/scenario/scenario_file.h"
#include "core/scenario/settings.h"

namespace mfu {

namespace {

// A setting's flag and value, or why the command line cannot give it.
std::string appendSetting(const Setting& setting, const Scenario& scenario, std::vector<std::string>& args)
{
    const std::string flag = "--" + std::string(setting.flag);
    if (setting.flag.empty())
        return "the setting '" + std::string(setting.key) + "' has no flag";
    if (setting.kind != SettingKind::Switch) {
        args.push_back(flag);
        args.push_back(settingValueText(setting, scenario));
        return "";
    }
    // A switch's flag sets one value (--eager turns `compiled` off); the other value is the default.
    if ((setting.get(scenario) != 0) != setting.flagSets)
        return "the setting '" + std::string(setting.key) + "' is set to the value its flag cannot give";
    args.push_back(flag);
    return "";
}

// The entry an id names on the command line: a preset, else one of `alsoNamed`.
template <typename Spec, typename Find>
const Spec* named(const PresetLibrary& presets, const PresetLibrary* alsoNamed, Find find)
{
    if (const Spec* spec = find(presets))
        return spec;
    return alsoNamed ? find(*alsoNamed) : nullptr;
}

// A model's figures, without the words that only describe it (its display name and source).
nlohmann::json modelFigures(ModelSpec model)
{
    model.name.clear();
    model.source.clear();
    return modelToScenarioJson(model);
}

// Why `--model` and `--gpu` with the scenario's ids would not give its model and GPU ("" when they would). Figure
// for figure: the scenario file's own writer, which holds everything a prediction reads.
std::string namedMismatch(const Scenario& scenario, const PresetLibrary& presets, const PresetLibrary* alsoNamed,
    const ModelFileReader& modelFile)
{
    const std::string& modelId = scenario.model.id;
    const ModelSpec* model
        = named<ModelSpec>(presets, alsoNamed, [&](const PresetLibrary& lib) { return lib.findModel(modelId); });
    std::optional<ModelSpec> fromFile;
    if (!model && modelFile && (fromFile = modelFile(modelId)))
        model = &*fromFile;
    if (!model)
        return "no model preset is named '" + modelId + "', nor does a config.json there hold it";
    if (modelFigures(*model) != modelFigures(scenario.model))
        return fromFile ? "the config.json '" + modelId + "' no longer holds this model"
                        : "the model preset '" + modelId + "' is not this run's model";
    const std::string& gpuId = scenario.cluster.hardware.id;
    const HardwareSpec* gpu
        = named<HardwareSpec>(presets, alsoNamed, [&](const PresetLibrary& lib) { return lib.findHardware(gpuId); });
    if (!gpu)
        return "no hardware preset is named '" + gpuId + "'";
    // The preset with the cluster's own network, as --scale-out-gbps states it.
    HardwareSpec stated = *gpu;
    if (scaleOutStated(scenario.cluster.hardware)) {
        try {
            setStatedScaleOut(stated, scaleOutGbitPerSec(scenario.cluster.hardware));
        } catch (const InputError& e) {
            return std::string("its network: ") + e.what();
        }
        gpu = &stated;
    }
    if (hardwareToScenarioJson(*gpu) != hardwareToScenarioJson(scenario.cluster.hardware))
        return "the hardware preset '" + gpuId + "' is not this run's GPU";
    // The command line takes the cost-model constants of the entry --gpu names (none: the defaults); calibrated or
    // edited ones are a file of their own (--calibration).
    const auto effective = [&](const std::optional<CostModelConstants>& c) {
        return costModelConstantsToJson(c ? *c : defaultCostModelConstants(*gpu));
    };
    if (effective(costModelNamedBy(gpuId, presets, alsoNamed)) != effective(scenario.costModel))
        return "the cost-model constants are calibrated or edited (predict takes them with --calibration FILE)";
    if (scenario.cluster.gpusPerScaleUpDomain > 0)
        return "a scale-up domain other than the preset's has no flag";
    return "";
}

// The packing and vision inputs as their flags (the table leaves them to readers of their own), or why not.
std::string appendWorkloadInputs(const Workload& w, std::vector<std::string>& args)
{
    const SequencePacking& p = w.packing;
    if (p.packed()) {
        if (!p.meanOnly || p.documents.size() != 1)
            return "a histogram of document lengths is a file of its own (--doc-lengths FILE)";
        args.insert(args.end(), { "--doc-length", std::to_string(p.documents.front().length) });
    }
    if (p.attention != PackedAttention::PerDocument)
        args.insert(args.end(), { "--attention-mask", std::string(packedAttentionKey(p.attention)) });
    if (p.padded())
        args.insert(args.end(), { "--padding-fraction", nlohmann::json(p.paddingFraction).dump() });
    const VisionWorkload& v = w.vision;
    if (v.tokensPerSequence > 0) {
        args.insert(args.end(), { "--vision-tokens", std::to_string(v.tokensPerSequence) });
        if (v.tokensPerImage > 0)
            args.insert(args.end(), { "--vision-tokens-per-image", std::to_string(v.tokensPerImage) });
        if (!v.encoderTrained)
            args.emplace_back("--vision-frozen");
    }
    return "";
}

// Characters a POSIX shell reads literally outside quotes.
bool shellSafe(const std::string& word)
{
    if (word.empty())
        return false;
    for (const char c : word) {
        const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!alnum && c != '-' && c != '_' && c != '.' && c != '/' && c != ',' && c != '=' && c != '+' && c != ':')
            return false;
    }
    return true;
}

} // namespace

std::optional<CostModelConstants> costModelNamedBy(
    const std::string& gpuId, const PresetLibrary& presets, const PresetLibrary* alsoNamed)
{
    if (presets.findHardware(gpuId))
        return presets.costModelFor(gpuId);
    return alsoNamed ? alsoNamed->costModelFor(gpuId) : std::nullopt;
}

PredictCommand predictCommandFor(const Scenario& scenario, const PresetLibrary& presets, const PresetLibrary* alsoNamed,
    const ModelFileReader& modelFile)
{
    PredictCommand command;
    const auto refuse = [&command](std::string why) {
        command.arguments.clear();
        command.unstatable = std::move(why);
        return command;
    };
    if (std::string why = namedMismatch(scenario, presets, alsoNamed, modelFile); !why.empty())
        return refuse(why);
    std::vector<std::string>& args = command.arguments;
    args = { "predict", "--model", scenario.model.id, "--gpu", scenario.cluster.hardware.id, "--gpus",
        std::to_string(scenario.cluster.gpuCount) };
    if (scaleOutStated(scenario.cluster.hardware)) {
        args.emplace_back("--scale-out-gbps");
        args.emplace_back(nlohmann::json(scaleOutGbitPerSec(scenario.cluster.hardware)).dump());
    }
    if (scenario.mfuFormula != kDefaultFlopFormula) {
        args.emplace_back("--flop-formula");
        args.emplace_back(flopFormulaKey(scenario.mfuFormula));
    }
    for (const Setting& setting : scenarioSettings()) {
        if (setting.key != "seq_len" && isSettingDefault(setting, scenario))
            continue;
        if (std::string why = appendSetting(setting, scenario, args); !why.empty())
            return refuse(why);
    }
    if (std::string why = appendWorkloadInputs(scenario.workload, args); !why.empty())
        return refuse(why);
    return command;
}

std::string shellCommandLine(const std::vector<std::string>& arguments)
{
    std::string line = "mfu-explorer";
    for (const std::string& word : arguments) {
        line += ' ';
        if (shellSafe(word)) {
            line += word;
            continue;
        }
        // Single quotes keep everything literal; a quote inside closes, escapes and reopens: ' -> '\''.
        line += '\'';
        for (const char c : word)
            line += c == '\'' ? std::string("'\\''") : std::string(1, c);
        line += '\'';
    }
    return line;
}

} // namespace mfu
