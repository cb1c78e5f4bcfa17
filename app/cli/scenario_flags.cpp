#include "app/cli/scenario_flags.h"

#include <QFileInfo>

#include "app/cli/cli_common.h"
#include "app/preset_store.h"
#include "app/scenario_io.h"
#include "core/costmodel/step_context.h"
#include "core/errors.h"
#include "core/scenario/parallelism_keys.h"
#include "core/scenario/pipeline_layout.h"

namespace mfu::cli {

namespace {
QCommandLineOption opt(const char* name, const char* description, const char* valueName = nullptr)
{
    if (valueName)
        return QCommandLineOption(
            QString::fromLatin1(name), QString::fromLatin1(description), QString::fromLatin1(valueName));
    return QCommandLineOption(QString::fromLatin1(name), QString::fromLatin1(description));
}

bool isSet(const QCommandLineParser& p, const char* name)
{
    return p.isSet(QString::fromLatin1(name));
}

int degree(const QCommandLineParser& p, const char* name, int current)
{
    if (!isSet(p, name))
        return current;
    const int64_t v = parsePositiveInteger(p.value(QString::fromLatin1(name)), QString::fromLatin1(name));
    if (v > 1'000'000)
        throw InputError(std::string("--") + name + ": " + std::to_string(v) + " is beyond any cluster");
    return static_cast<int>(v);
}
} // namespace

void addScenarioOptions(QCommandLineParser& parser)
{
    addModelOptions(parser);
    addClusterOptions(parser);
    addWorkloadOptions(parser);
    addPackingOptions(parser);
    addVisionOptions(parser);
    parser.addOption(opt("scenario", "Start from a saved scenario file (flags override its values)", "FILE"));
    addFlopFormulaOption(parser);
    parser.addOption(opt(
        "global-batch-tokens", "Tokens per optimizer step, whole cluster (default: one micro-batch per DP rank)", "N"));
    parser.addOption(opt("micro-batch", "Sequences per GPU per micro-step (default 1)", "N"));
    parser.addOption(opt("tp", "Tensor-parallel degree (default 1)", "N"));
    parser.addOption(opt("pp", "Pipeline stages (default 1)", "N"));
    parser.addOption(opt("cp", "Context-parallel degree (default 1)", "N"));
    parser.addOption(opt("ep", "Expert-parallel degree, MoE only (default 1)", "N"));
    parser.addOption(
        opt("hsdp-replicas", "HSDP replica groups; FSDP shards over the rest (default 1: flat FSDP)", "N"));
    parser.addOption(opt("ac", "Activation checkpointing: none|selective|full (default none)", "MODE"));
    parser.addOption(opt("virtual-stages", "Interleaved pipeline chunks per rank (default 1)", "N"));
    parser.addOption(opt("schedule", "Pipeline schedule: 1f1b|interleaved_1f1b|zero_bubble", "NAME"));
    parser.addOption(
        opt("data-parallel", "How data-parallel ranks hold the state: fsdp|zero1|ddp (default fsdp)", "KIND"));
    parser.addOption(opt("attention-kernel",
        "Attention kernel: auto|flash3|flash2|flash1|cudnn|unfused (default auto: the best on the GPU)", "NAME"));
    parser.addOption(opt("expert-overlap", "Overlap MoE all-to-alls with another micro-batch's compute (DualPipe)"));
    parser.addOption(opt("expert-capacity-factor",
        "MoE token dropping: expert buffers padded to F x the mean share (GShard, Switch); 0 = dropless (default)",
        "F"));
    parser.addOption(opt("expert-overlap-kind",
        "How MoE all-to-alls are hidden: none|1f1b|dualpipe (1f1b: Megatron-Core's EP A2A overlap; --expert-overlap "
        "is dualpipe)",
        "KIND"));
    parser.addOption(opt("expert-tp",
        "Tensor-parallel degree of the experts (Megatron-Core's --expert-tensor-parallel-size; default 1 with EP, "
        "else TP)",
        "N"));
    parser.addOption(opt("expert-dispatcher",
        "How MoE tokens reach their experts: alltoall|allgather|deepep|hybridep (default alltoall: NCCL all-to-all)",
        "KIND"));
    parser.addOption(opt("expert-balance",
        "MoE routing balance: dropless (busiest expert sets the pace, default) or forced (uniform, benchmark mode)",
        "KIND"));
    parser.addOption(opt("expert-node-limit",
        "Node-limited routing: each token's experts on at most N scale-up domains (DeepSeek-V3: 4; default 0: "
        "unlimited)",
        "N"));
    parser.addOption(opt("pipeline-layout",
        "Megatron pipeline layout: E embedding, t layer, m MTP layer, L loss, | next virtual stage, *n repeats "
        "(e.g. 'Et*3|(tt|)*29m|L')",
        "LAYOUT"));
    parser.addOption(opt("stage-layers",
        "Transformer layers per virtual pipeline stage, torchtitan's split (e.g. 4,8,8,4; embedding first, loss last)",
        "LIST"));
    parser.addOption(opt("first-stage-layers", "Layers on the first pipeline stage (Megatron; default: even)", "N"));
    parser.addOption(opt("last-stage-layers", "Layers on the last pipeline stage (Megatron; default: even)", "N"));
    parser.addOption(opt("embedding-stage", "Count the embedding as a layer of the first pipeline stage (Megatron)"));
    parser.addOption(opt("loss-stage", "Count the LM head and loss as a layer of the last pipeline stage (Megatron)"));
    parser.addOption(opt("mtp-layers", "Multi-token-prediction layers trained beside the model (DeepSeek-V3: 1)", "N"));
    parser.addOption(
        opt("fp8-recipe", "FP8 scaling of a bf16+fp8 run: tensorwise|blockwise|mxfp8 (default tensorwise)", "RECIPE"));
    parser.addOption(opt("recompute-modules",
        "Selective checkpointing of Megatron's modules: core_attn,mlp,moe,moe_act,layernorm,mla_up_proj,"
        "shared_experts (with --ac selective)",
        "LIST"));
    parser.addOption(opt("recompute-layers",
        "With --ac full, recompute only this many layers a pipeline stage (Megatron's block method; default all)",
        "N"));
    parser.addOption(opt("async-tp", "Overlap TP collectives with the matmuls"));
    parser.addOption(opt("no-sequence-parallel", "TP without sequence parallelism"));
    parser.addOption(opt("fused-linear-cross-entropy",
        "LM head and loss fused in chunks (Liger Kernel): the full logits are never held in memory"));
    parser.addOption(opt("fused-norm-activation",
        "Fused RMSNorm, SwiGLU and RoPE kernels (Liger Kernel): in an eager run fewer memory passes and less saved"));
    parser.addOption(opt("liger-kernel",
        "Liger Kernel as trainers enable it (use_liger_kernel): --fused-linear-cross-entropy and "
        "--fused-norm-activation"));
    parser.addOption(opt("fsdp-prefetch", "Layers FSDP all-gathers ahead (default 1)", "N"));
    parser.addOption(opt("reduce-bf16", "Reduce gradients in BF16 (default FP32)"));
    parser.addOption(opt("eager", "No torch.compile (unfused elementwise ops)"));
    parser.addOption(opt("unfused-optimizer", "Multi-tensor instead of fused AdamW"));
    parser.addOption(opt("optimizer-in-backward", "Run the optimizer step inside the backward pass"));
    parser.addOption(opt("fp8-scales-in-backward", "Precompute FP8 weight scales during backward"));
}

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
        s.costModel = app::presetLibrary().costModelFor(s.cluster.hardware.id);
    }
    s.cluster.gpuCount = resolveGpuCount(p, fromFile ? s.cluster.gpuCount : 1);
    s.workload.seqLen = resolvePackedSeqLen(p, s.workload.seqLen);
    s.workload.packing = resolvePacking(p, s.workload.seqLen, s.workload.packing);
    s.workload.vision = resolveVision(p, s.workload.seqLen, s.workload.vision);
    if (s.workload.vision.tokensPerSequence > 0 && !s.model.vision)
        throw InputError("--vision-tokens: the model has no vision encoder this application counts (a Qwen2-VL, "
                         "Qwen2.5-VL, Qwen3-VL or Qwen3.5 config.json has one)");
    if (isSet(p, "precision"))
        s.precision = resolvePrecision(p);
    if (const auto formula = formulaFlag(p))
        s.mfuFormula = *formula;
    if (isSet(p, "global-batch-tokens"))
        s.workload.globalBatchTokens = parsePositiveInteger(
            p.value(QStringLiteral("global-batch-tokens")), QStringLiteral("global-batch-tokens"));
    if (isSet(p, "micro-batch"))
        s.workload.microBatch
            = parsePositiveInteger(p.value(QStringLiteral("micro-batch")), QStringLiteral("micro-batch"));
    auto& par = s.parallelism;
    par.tp = degree(p, "tp", par.tp);
    par.pp = degree(p, "pp", par.pp);
    par.cp = degree(p, "cp", par.cp);
    par.ep = degree(p, "ep", par.ep);
    par.hsdpReplicas = degree(p, "hsdp-replicas", par.hsdpReplicas);
    par.virtualStages = degree(p, "virtual-stages", par.virtualStages);
    if (par.virtualStages > 1 && !isSet(p, "schedule"))
        par.schedule = PipelineSchedule::Interleaved1F1B;
    if (isSet(p, "schedule")) {
        const auto sch = pipelineScheduleFromKey(p.value(QStringLiteral("schedule")).toStdString());
        if (!sch)
            throw InputError("--schedule: must be 1f1b, interleaved_1f1b or zero_bubble");
        par.schedule = *sch;
    }
    if (isSet(p, "data-parallel")) {
        const auto kind = dataParallelFromKey(p.value(QStringLiteral("data-parallel")).toStdString());
        if (!kind)
            throw InputError("--data-parallel: must be fsdp, zero1 or ddp");
        par.dataParallel = *kind;
    }
    if (isSet(p, "attention-kernel")) {
        const auto kernel = attentionKernelFromKey(p.value(QStringLiteral("attention-kernel")).toStdString());
        if (!kernel)
            throw InputError("--attention-kernel: must be auto, flash3, flash2, flash1, cudnn or unfused");
        s.flags.attentionKernel = *kernel;
    }
    if (isSet(p, "expert-overlap"))
        par.expertOverlap = ExpertOverlap::DualPipe;
    if (isSet(p, "expert-overlap-kind")) {
        const auto kind = expertOverlapFromKey(p.value(QStringLiteral("expert-overlap-kind")).toStdString());
        if (!kind)
            throw InputError("--expert-overlap-kind: must be none, 1f1b or dualpipe");
        par.expertOverlap = *kind;
    }
    if (isSet(p, "expert-tp"))
        par.expertTp = degree(p, "expert-tp", par.expertTp);
    if (isSet(p, "expert-dispatcher")) {
        const auto kind = expertDispatcherFromKey(p.value(QStringLiteral("expert-dispatcher")).toStdString());
        if (!kind)
            throw InputError("--expert-dispatcher: must be alltoall, allgather, deepep or hybridep");
        par.expertDispatcher = *kind;
    }
    if (isSet(p, "expert-balance")) {
        const auto kind = expertBalanceFromKey(p.value(QStringLiteral("expert-balance")).toStdString());
        if (!kind)
            throw InputError("--expert-balance: must be dropless or forced");
        par.expertBalance = *kind;
    }
    if (isSet(p, "expert-node-limit"))
        par.expertNodeLimit = degree(p, "expert-node-limit", par.expertNodeLimit);
    if (isSet(p, "mtp-layers")) {
        const QString v = p.value(QStringLiteral("mtp-layers"));
        const int64_t n = v == QLatin1String("0") ? 0 : parsePositiveInteger(v, QStringLiteral("mtp-layers"));
        if (n > 64)
            throw InputError("--mtp-layers: " + std::to_string(n) + " is beyond any model (at most 64)");
        s.workload.mtpLayers = static_cast<int>(n);
    }
    if (isSet(p, "first-stage-layers"))
        par.firstStageLayers = degree(p, "first-stage-layers", par.firstStageLayers);
    if (isSet(p, "last-stage-layers"))
        par.lastStageLayers = degree(p, "last-stage-layers", par.lastStageLayers);
    if (isSet(p, "embedding-stage"))
        par.embeddingStage = true;
    if (isSet(p, "loss-stage"))
        par.lossStage = true;
    if (isSet(p, "pipeline-layout") && isSet(p, "stage-layers"))
        throw InputError("--pipeline-layout and --stage-layers both place the layers: give one");
    try {
        if (isSet(p, "pipeline-layout"))
            par.pipelineLayout = parsePipelineLayout(p.value(QStringLiteral("pipeline-layout")).toStdString());
        if (isSet(p, "stage-layers"))
            par.pipelineLayout = pipelineLayoutFromStageLayers(
                parseStageLayers(p.value(QStringLiteral("stage-layers")).toStdString()), s.workload.mtpLayers);
    } catch (const InputError& e) {
        throw InputError(
            std::string("--") + (isSet(p, "pipeline-layout") ? "pipeline-layout" : "stage-layers") + ": " + e.what());
    }
    if (isSet(p, "fp8-recipe")) {
        const auto recipe = fp8RecipeFromKey(p.value(QStringLiteral("fp8-recipe")).toStdString());
        if (!recipe)
            throw InputError("--fp8-recipe: must be tensorwise, blockwise or mxfp8");
        s.flags.fp8Recipe = *recipe;
    }
    if (isSet(p, "recompute-layers"))
        s.flags.recomputeLayers = degree(p, "recompute-layers", s.flags.recomputeLayers);
    if (isSet(p, "recompute-modules")) {
        try {
            s.flags.recomputeModules
                = parseRecomputeModules(p.value(QStringLiteral("recompute-modules")).toStdString());
        } catch (const InputError& e) {
            throw InputError(std::string("--recompute-modules: ") + e.what());
        }
    }
    if (isSet(p, "expert-capacity-factor")) {
        const double f
            = parseNumber(p.value(QStringLiteral("expert-capacity-factor")), QStringLiteral("expert-capacity-factor"));
        if (!isExpertCapacityFactor(f))
            throw InputError("--expert-capacity-factor: must be 0 (dropless) or a capacity factor between 1 and 16");
        par.expertCapacityFactor = f;
    }
    if (isSet(p, "async-tp"))
        par.asyncTp = true;
    if (isSet(p, "fused-linear-cross-entropy") || isSet(p, "liger-kernel"))
        s.flags.fusedLinearCrossEntropy = true;
    if (isSet(p, "fused-norm-activation") || isSet(p, "liger-kernel"))
        s.flags.fusedNormActivation = true;
    if (isSet(p, "no-sequence-parallel"))
        par.sequenceParallel = false;
    if (isSet(p, "ac")) {
        const auto ac = activationCheckpointingFromKey(p.value(QStringLiteral("ac")).toStdString());
        if (!ac)
            throw InputError("--ac: must be none, selective or full");
        s.activationCheckpointing = *ac;
    }
    s.flags.fsdpPrefetchLayers = degree(p, "fsdp-prefetch", s.flags.fsdpPrefetchLayers);
    if (isSet(p, "reduce-bf16"))
        s.flags.reduceInBf16 = true;
    if (isSet(p, "eager"))
        s.flags.compiled = false;
    if (isSet(p, "unfused-optimizer"))
        s.flags.fusedOptimizer = false;
    if (isSet(p, "optimizer-in-backward"))
        s.flags.optimizerInBackward = true;
    if (isSet(p, "fp8-scales-in-backward"))
        s.flags.fp8ScalesInBackward = true;
    return s;
}

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
    return { { "mfu_low", band.mfuLow }, { "mfu_high", band.mfuHigh }, { "hfu_low", band.hfuLow },
        { "hfu_high", band.hfuHigh }, { "tflops_per_gpu_low", band.tflopsPerGpuLow },
        { "tflops_per_gpu_high", band.tflopsPerGpuHigh }, { "tokens_per_sec_low", band.tokensPerSecLow },
        { "tokens_per_sec_high", band.tokensPerSecHigh }, { "tokens_per_sec_per_gpu_low", band.tokensPerSecPerGpuLow },
        { "tokens_per_sec_per_gpu_high", band.tokensPerSecPerGpuHigh }, { "step_time_s_low", band.stepTimeSecondsLow },
        { "step_time_s_high", band.stepTimeSecondsHigh }, { "error_band_basis", band.basis } };
}

} // namespace mfu::cli
