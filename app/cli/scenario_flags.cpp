#include "app/cli/scenario_flags.h"

#include <QFileInfo>

#include "app/cli/cli_common.h"
#include "app/cli/cli_text.h"
#include "app/preset_store.h"
#include "app/scenario_io.h"
#include "core/costmodel/step_context.h"
#include "core/errors.h"
#include "core/scenario/parallelism_keys.h"
#include "core/scenario/pipeline_layout.h"
#include "core/scenario/settings.h"

namespace mfu::cli {

namespace {
// The settings calc's workload group adds and resolves (cli_common.h: the sequence length with the packing flags).
bool inWorkloadGroup(const Setting& setting)
{
    return setting.key == "seq_len" || setting.key == "precision";
}

bool isSet(const QCommandLineParser& p, const char* name)
{
    return p.isSet(QString::fromLatin1(name));
}

} // namespace

void addScenarioOptions(QCommandLineParser& parser)
{
    addModelOptions(parser);
    addClusterOptions(parser);
    parser.addOption(option("scale-out-gbps",
        "The cluster's network per GPU, Gb/s one way: what each GPU's NICs move to other nodes or racks (default: "
        "the GPU preset's typical one, e.g. 400 for HGX H100, 200 for HGX A100, 800 for B300; 'mfu-explorer "
        "presets' lists them)",
        "GBPS"));
    addWorkloadOptions(parser);
    addPackingOptions(parser);
    addVisionOptions(parser);
    parser.addOption(option("scenario", "Start from a saved scenario file (flags override its values)", "FILE"));
    addFlopFormulaOption(parser);
    // Every setting of the table (core/scenario/settings.h) that the groups above did not add, then the shorthands.
    for (const Setting& setting : scenarioSettings())
        if (!setting.flag.empty() && !inWorkloadGroup(setting))
            addSettingOption(parser, setting);
    for (const SettingShorthand& shorthand : settingShorthands())
        parser.addOption(option(qs(shorthand.flag), qs(shorthand.help)));
    parser.addOption(option("stage-layers",
        "Transformer layers per virtual pipeline stage, torchtitan's split (e.g. 4,8,8,4; embedding first, loss last)",
        "LIST"));
}

namespace {
// The table's settings whose flags are given, over `s`: shorthands first, so that a setting's own flag wins.
void applySettingFlags(const QCommandLineParser& p, Scenario& s)
{
    for (const SettingShorthand& shorthand : settingShorthands())
        if (p.isSet(qs(shorthand.flag)))
            for (const auto& [key, value] : shorthand.sets)
                applySettingValue(*findSetting(key), value, s);
    for (const Setting& setting : scenarioSettings()) {
        if (setting.flag.empty() || inWorkloadGroup(setting) || !p.isSet(qs(setting.flag)))
            continue;
        try {
            if (setting.kind == SettingKind::Switch)
                applySettingValue(setting, setting.flagSets ? 1 : 0, s);
            else
                applySettingText(setting, p.value(qs(setting.flag)).toStdString(), s);
        } catch (const InputError& e) {
            throw InputError("--" + std::string(setting.flag) + ": " + e.what());
        }
    }
}
} // namespace

Scenario scenarioFromFlags(const QCommandLineParser& p)
{
    Scenario s;
    const bool fromFile = isSet(p, "scenario");
    if (fromFile) {
        s = app::openScenarioFile(p.value(QStringLiteral("scenario"))).scenario;
    } else {
        s.workload.seqLen = 8192;
    }
    if (!fromFile || isSet(p, "model") || isSet(p, "params"))
        s.model = resolveModel(p);
    if (!fromFile || isSet(p, "gpu")) {
        s.cluster.hardware = resolveHardware(p);
        s.costModel = resolvedCostModel(s.cluster.hardware.id);
    }
    noteEchoedName(s.model.name); // a scenario file's own names are printed as given
    noteEchoedName(s.cluster.hardware.name);
    if (isSet(p, "scale-out-gbps")) {
        const QString flag = QStringLiteral("scale-out-gbps");
        setStatedScaleOut(s.cluster.hardware, statedNetworkFlag(p.value(flag), flag));
    }
    s.cluster.gpuCount = resolveGpuCount(p, fromFile ? s.cluster.gpuCount : 1);
    s.workload.seqLen = resolvePackedSeqLen(p, s.workload.seqLen);
    s.workload.packing = resolvePacking(p, s.workload.seqLen, s.workload.packing);
    s.workload.vision = resolveVision(p, s.workload.seqLen, s.workload.vision);
    requireVisionEncoder(p, s.model, s.workload.vision);
    if (isSet(p, "precision"))
        s.precision = resolvePrecision(p);
    if (const auto formula = formulaFlag(p))
        s.mfuFormula = *formula;
    if (isSet(p, "pipeline-layout") && isSet(p, "stage-layers"))
        throw InputError("--pipeline-layout and --stage-layers both place the layers: give one");
    applySettingFlags(p, s);
    applyImpliedSettings(s, isSet(p, "schedule") || !isSet(p, "virtual-stages"));
    // torchtitan's per-stage split needs the MTP layers, which may have been given above.
    if (isSet(p, "stage-layers")) {
        try {
            s.parallelism.pipelineLayout = pipelineLayoutFromStageLayers(
                parseStageLayers(p.value(QStringLiteral("stage-layers")).toStdString()), s.workload.mtpLayers);
        } catch (const InputError& e) {
            throw InputError(std::string("--stage-layers: ") + e.what());
        }
    }
    return s;
}

namespace {
// The pipeline rank an uneven layout runs at the pace of, and what it holds; null for an even layout.
nlohmann::json pacingRankJson(const StepPrediction& p)
{
    if (!p.pacingRank)
        return nullptr;
    const RankShare& r = *p.pacingRank;
    return { { "pipeline_rank", r.rank }, { "rank_layers", r.layers }, { "rank_mtp_layers", r.mtpLayers },
        { "holds_embedding", r.embedding }, { "holds_loss", r.loss } };
}
} // namespace

nlohmann::json predictionJson(const StepPrediction& p)
{
    nlohmann::json breakdown = {
        { "matmul", p.time.matmul },
        { "attention", p.time.attention },
        { "memory_bound", p.time.memoryBound },
        { "recompute", p.time.recompute },
        { "pipeline_bubble", p.time.pipelineBubble },
        { "overhead", p.time.overhead },
    };
    nlohmann::json commTotal = nlohmann::json::object();
    for (CommKind k : kAllCommKinds) {
        breakdown[std::string(commKindKey(k))] = p.time.comm(k);
        commTotal[std::string(commKindKey(k))] = p.commSeconds[static_cast<size_t>(k)];
    }
    nlohmann::json memory = {
        { "parameters", p.memory.parameters },
        { "gradients", p.memory.gradients },
        { "optimizer_state", p.memory.optimizerState },
        { "activations", p.memory.activations },
        { "temporary", p.memory.temporary },
        { "reserved", p.memory.reserved },
    };
    return {
        { "mfu", p.mfu },
        { "hfu", p.hfu },
        { "mfu_vs_fp8_peak", p.mfuVsFp8Peak ? nlohmann::json(*p.mfuVsFp8Peak) : nlohmann::json() },
        { "mfu_vs_fp4_peak", p.mfuVsFp4Peak ? nlohmann::json(*p.mfuVsFp4Peak) : nlohmann::json() },
        { "mfu_palm_over_packing_length",
            p.mfuPalmOverPackingLength ? nlohmann::json(*p.mfuPalmOverPackingLength) : nlohmann::json() },
        { "tokens_per_sec", p.tokensPerSec },
        { "tokens_per_sec_per_gpu", p.tokensPerSecPerGpu },
        { "tflops_per_gpu", p.tflopsPerGpu },
        { "tflops_per_node", p.tflopsPerNode },
        { "step_time_s", p.stepTimeSeconds },
        { "tokens_per_step", p.tokensPerStep },
        { "grad_accum_steps", p.gradAccumSteps },
        { "flops_per_token", p.flopsPerToken },
        { "fits", p.fits },
        { "peak_memory_bytes", p.memory.total() },
        { "memory_capacity_bytes", p.memoryCapacityBytes },
        { "memory_bytes", memory },
        { "time_breakdown_s", breakdown },
        { "communication_total_s", commTotal },
        { "bottleneck", bottleneckSentence(p) },
        { "pacing_rank", pacingRankJson(p) },
    };
}

nlohmann::json plannedConfigJson(const PlannedConfig& c)
{
    const auto& par = c.parallelism;
    return {
        { "tp", par.tp },
        { "pp", par.pp },
        { "virtual_stages", par.virtualStages },
        { "cp", par.cp },
        { "ep", par.ep },
        { "expert_tp", resolvedExpertTp(par) },
        { "embedding_loss_stages", par.embeddingStage && par.lossStage },
        { "recompute_modules", recomputeModulesText(c.recomputeModules) },
        { "hsdp_replicas", par.hsdpReplicas },
        { "fsdp_shards", c.fsdpShards },
        { "micro_batch", c.microBatch },
        { "ac", std::string(activationCheckpointingKey(c.activationCheckpointing)) },
        { "mfu", c.prediction.mfu },
        { "hfu", c.prediction.hfu },
        { "tokens_per_sec", c.prediction.tokensPerSec },
        { "tokens_per_sec_per_gpu", c.prediction.tokensPerSecPerGpu }, // beside its band's _low and _high
        { "tflops_per_gpu", c.prediction.tflopsPerGpu },
        { "step_time_s", c.prediction.stepTimeSeconds },
        { "peak_memory_bytes", c.prediction.memory.total() },
        { "headroom_bytes", memoryHeadroomBytes(c.prediction) },
        { "fits", c.prediction.fits },
        { "description", describeConfig(c) },
        { "reason", c.reason },
        { "ties_with_best", c.tiesWithBest },
    };
}

nlohmann::json errorBandJson(const ErrorBand& band)
{
    nlohmann::json j = { { "mfu_low", band.mfuLow }, { "mfu_high", band.mfuHigh }, { "hfu_low", band.hfuLow },
        { "hfu_high", band.hfuHigh }, { "tflops_per_gpu_low", band.tflopsPerGpuLow },
        { "tflops_per_gpu_high", band.tflopsPerGpuHigh }, { "tokens_per_sec_low", band.tokensPerSecLow },
        { "tokens_per_sec_high", band.tokensPerSecHigh }, { "tokens_per_sec_per_gpu_low", band.tokensPerSecPerGpuLow },
        { "tokens_per_sec_per_gpu_high", band.tokensPerSecPerGpuHigh }, { "step_time_s_low", band.stepTimeSecondsLow },
        { "step_time_s_high", band.stepTimeSecondsHigh }, { "error_band_basis", band.basis } };
    // Precedent (counted as executed, executedMfuOf): the best MFU a published run like this one measured, null when
    // there is none.
    j["published_best_mfu"] = band.publishedBestMfu > 0 ? nlohmann::json(band.publishedBestMfu) : nlohmann::json();
    j["published_best_run"] = band.publishedBestRun.empty() ? nlohmann::json() : nlohmann::json(band.publishedBestRun);
    j["above_published_best"] = band.abovePublishedBest;
    return j;
}

} // namespace mfu::cli
