// The table of scenario settings (core/scenario/settings.h): one entry per setting, in the order the editors show
// them. The words of each choice come from the enum's own key function, so a file, a flag and a JSON output spell
// it alike.
#include <climits>

#include "core/scenario/parallelism_keys.h"
#include "core/scenario/pipeline_layout.h"
#include "core/scenario/scenario_file.h"
#include "core/scenario/settings.h"

namespace mfu {

namespace {

// Read and write one Scenario member of integer, boolean or enum type, as the table's get/set pair. A macro because
// the member is named, not passed: each expands to two captureless lambdas.
#define MFU_SETTING_MEMBER(member)                                                                                     \
    .get = [](const Scenario& s) -> int64_t { return static_cast<int64_t>(s.member); },                                \
    .set = [](Scenario& s, int64_t v) { s.member = static_cast<decltype(s.member)>(v); }

// Parallel degrees: a number beyond a million GPUs is a typo, and an int holds it with room for the products.
constexpr int64_t kMaxDegree = 1'000'000;
// 100M tokens: ten times the longest published context (Llama 4 Scout's 10M, Meta, "The Llama 4 herd", 2025).
constexpr int64_t kMaxSequence = 100'000'000;
// A billion tokens a step: 16 times DeepSeek-V3's 63M-token batch (15,360 x 4,096), the largest published.
constexpr int64_t kMaxBatchTokens = 1'000'000'000;
constexpr int64_t kMaxStageLayers = 100'000;

template <typename Enum>
std::vector<SettingChoice> choices(std::string_view (*keyOf)(Enum),
    std::initializer_list<std::pair<Enum, std::string_view>> labelled,
    std::initializer_list<std::pair<Enum, std::string_view>> aliases = {})
{
    std::vector<SettingChoice> out;
    for (const auto& [value, label] : labelled) {
        SettingChoice c { static_cast<int>(value), keyOf(value), label };
        for (const auto& [aliased, word] : aliases)
            if (aliased == value)
                c.aliases.push_back(word);
        out.push_back(c);
    }
    return out;
}

std::vector<Setting> buildTable()
{
    using S = SettingSection;
    using K = SettingKind;
    std::vector<Setting> t;
    // Workload (the sequence length is edited in the Scenario editor; the rest in Predict).
    t.push_back({ .key = "seq_len",
        .section = S::Workload,
        .kind = K::Count,
        .flag = "seq",
        .valueName = "S",
        .field = "seqLen",
        .editor = SettingEditor::Scenario,
        .label = "&Sequence length",
        .help = "Sequence length in tokens (32k is 32,768)",
        .aliases = { "seq" },
        .minimum = 1,
        .maximum = kMaxSequence,
        .rule = "a whole number of tokens from 1 to 100,000,000 (ten times the longest "
                "published context, Llama 4 Scout's 10M); 32k is 32,768",
        .suffix = " tokens",
        .required = true,
        .sequenceLength = true,
        MFU_SETTING_MEMBER(workload.seqLen) });
    t.push_back({ .key = "precision",
        .section = S::Top,
        .kind = K::Choice,
        .flag = "precision",
        .valueName = "P",
        .field = "precision",
        .editor = SettingEditor::Scenario,
        .label = "&Precision",
        .help = "Training precision: bf16 (fp16 reads the same 16-bit peak), fp8 (bf16 with FP8 linear layers) or fp4 "
                "(bf16 with FP4 linear layers: NVFP4 or MXFP4, --fp4-recipe)",
        .choices = choices<TrainingPrecision>(trainingPrecisionKey,
            { { TrainingPrecision::BF16, "BF16" }, { TrainingPrecision::BF16_FP8, "BF16 + FP8 linear layers" },
                { TrainingPrecision::BF16_FP4, "BF16 + FP4 linear layers" } },
            { { TrainingPrecision::BF16, "fp16" }, { TrainingPrecision::BF16_FP8, "bf16+fp8" },
                { TrainingPrecision::BF16_FP8, "bf16_fp8" }, { TrainingPrecision::BF16_FP4, "bf16+fp4" },
                { TrainingPrecision::BF16_FP4, "bf16_fp4" } }),
        MFU_SETTING_MEMBER(precision) });

    // Parallelism.
    t.push_back({ .key = "tp",
        .kind = K::Count,
        .flag = "tp",
        .valueName = "N",
        .field = "tp",
        .label = "&TP",
        .help = "Tensor-parallel degree (default 1)",
        .minimum = 1,
        .maximum = kMaxDegree,
        MFU_SETTING_MEMBER(parallelism.tp) });
    t.push_back({ .key = "sequence_parallel",
        .kind = K::Switch,
        .flag = "no-sequence-parallel",
        .field = "sequenceParallel",
        .label = "Sequence parallel",
        .help = "Megatron-style sequence parallelism alongside TP (on by default; the flag turns it off)",
        .flagSets = false,
        MFU_SETTING_MEMBER(parallelism.sequenceParallel) });
    t.push_back({ .key = "async_tp",
        .kind = K::Switch,
        .flag = "async-tp",
        .field = "asyncTp",
        .label = "Async TP",
        .help = "Overlap TP collectives with the matmuls (asynchronous tensor parallelism; how: --tp-overlap-kind, "
                "PyTorch's by default)",
        MFU_SETTING_MEMBER(parallelism.asyncTp) });
    t.push_back({ .key = "tp_overlap_kind",
        .kind = K::Choice,
        .flag = "tp-overlap-kind",
        .valueName = "KIND",
        .field = "tpOverlap",
        .label = "TP overlap",
        .help = "How async TP hides its collectives: symmetric_memory|userbuffers (symmetric_memory: PyTorch's async "
                "TP, as TorchTitan enables it; userbuffers: Transformer Engine's, Megatron-Core's and NeMo's "
                "--tp-comm-overlap; default symmetric_memory)",
        .choices = choices<TpOverlap>(tpOverlapKey,
            { { TpOverlap::SymmetricMemory, "PyTorch async TP" }, { TpOverlap::Userbuffers, "TE userbuffers" } },
            { { TpOverlap::SymmetricMemory, "pytorch" }, { TpOverlap::Userbuffers, "tp_comm_overlap" } }),
        .writtenWhenDefault = false,
        MFU_SETTING_MEMBER(parallelism.tpOverlap) });
    t.push_back({ .key = "pp",
        .kind = K::Count,
        .flag = "pp",
        .valueName = "N",
        .field = "pp",
        .label = "&PP stages",
        .help = "Pipeline stages (default 1)",
        .minimum = 1,
        .maximum = kMaxDegree,
        MFU_SETTING_MEMBER(parallelism.pp) });
    t.push_back({ .key = "virtual_stages",
        .kind = K::Count,
        .flag = "virtual-stages",
        .valueName = "N",
        .field = "virtualStages",
        .label = "&Virtual stages",
        .help = "Interleaved pipeline chunks per rank (default 1; more than 1 runs interleaved 1F1B unless a "
                "schedule is given)",
        .minimum = 1,
        .maximum = 1024,
        MFU_SETTING_MEMBER(parallelism.virtualStages) });
    t.push_back({ .key = "schedule",
        .kind = K::Choice,
        .flag = "schedule",
        .valueName = "NAME",
        .field = "schedule",
        .label = "&Schedule",
        .help = "Pipeline schedule: 1f1b|interleaved_1f1b|zero_bubble",
        .choices = choices<PipelineSchedule>(pipelineScheduleKey,
            { { PipelineSchedule::OneFOneB, "1F1B" }, { PipelineSchedule::Interleaved1F1B, "Interleaved 1F1B" },
                { PipelineSchedule::ZeroBubble, "Zero bubble" } },
            { { PipelineSchedule::Interleaved1F1B, "interleaved" } }),
        MFU_SETTING_MEMBER(parallelism.schedule) });
    t.push_back({ .key = "cp",
        .kind = K::Count,
        .flag = "cp",
        .valueName = "N",
        .field = "cp",
        .label = "&CP",
        .help = "Context-parallel degree (default 1)",
        .minimum = 1,
        .maximum = kMaxDegree,
        MFU_SETTING_MEMBER(parallelism.cp) });
    t.push_back({ .key = "cp_comm",
        .kind = K::Choice,
        .flag = "cp-comm",
        .valueName = "KIND",
        .field = "cpComm",
        .label = "CP exchange",
        .help = "How context parallelism exchanges keys and values: allgather|p2p (allgather: gathered before "
                "attention, exposed, as Llama 3 and TorchTitan; p2p: Megatron-Core's ring, each exchange overlapped "
                "with attention; default allgather)",
        .choices = choices<ContextParallelComm>(contextParallelCommKey,
            { { ContextParallelComm::AllGather, "All-gather" }, { ContextParallelComm::P2p, "P2P ring" } },
            { { ContextParallelComm::AllGather, "all_gather" } }),
        .writtenWhenDefault = false,
        MFU_SETTING_MEMBER(parallelism.cpComm) });
    t.push_back({ .key = "ep",
        .kind = K::Count,
        .flag = "ep",
        .valueName = "N",
        .field = "ep",
        .label = "&EP",
        .help = "Expert-parallel degree, MoE only (default 1)",
        .minimum = 1,
        .maximum = kMaxDegree,
        MFU_SETTING_MEMBER(parallelism.ep) });
    t.push_back({ .key = "expert_tp",
        .kind = K::Count,
        .flag = "expert-tp",
        .valueName = "N",
        .field = "expertTp",
        .label = "E&xpert TP",
        .help = "Tensor-parallel degree of the experts (Megatron-Core's --expert-tensor-parallel-size; 0, the "
                "default: 1 with EP, else TP)",
        .minimum = 0,
        .maximum = kMaxDegree,
        .zeroText = "auto",
        .writtenWhenDefault = false,
        MFU_SETTING_MEMBER(parallelism.expertTp) });
    t.push_back({ .key = "expert_dispatcher",
        .kind = K::Choice,
        .flag = "expert-dispatcher",
        .valueName = "KIND",
        .field = "expertDispatcher",
        .label = "Dis&patcher",
        .help = "How MoE tokens reach their experts: alltoall|allgather|deepep|hybridep (default alltoall: NCCL "
                "all-to-all)",
        .choices = choices<ExpertDispatcher>(expertDispatcherKey,
            { { ExpertDispatcher::AllToAll, "NCCL all-to-all" }, { ExpertDispatcher::AllGather, "All-gather" },
                { ExpertDispatcher::DeepEp, "DeepEP" }, { ExpertDispatcher::HybridEp, "HybridEP" } }),
        .writtenWhenDefault = false,
        MFU_SETTING_MEMBER(parallelism.expertDispatcher) });
    t.push_back({ .key = "expert_overlap",
        .kind = K::Choice,
        .flag = "expert-overlap-kind",
        .valueName = "KIND",
        .field = "expertOverlap",
        .label = "A2A o&verlap",
        .help = "How MoE all-to-alls are hidden: none|1f1b|dualpipe (1f1b: Megatron-Core's EP A2A overlap; "
                "--expert-overlap is dualpipe)",
        .choices = choices<ExpertOverlap>(expertOverlapKey,
            { { ExpertOverlap::None, "None" }, { ExpertOverlap::OneFOneB, "1F1B" },
                { ExpertOverlap::DualPipe, "DualPipe" } }),
        .trueChoice = "dualpipe",
        MFU_SETTING_MEMBER(parallelism.expertOverlap) });
    t.push_back({ .key = "expert_balance",
        .kind = K::Choice,
        .flag = "expert-balance",
        .valueName = "KIND",
        .field = "expertBalance",
        .label = "Routin&g",
        .help = "MoE routing balance: dropless (busiest expert sets the pace, default) or forced (uniform, "
                "benchmark mode)",
        .choices = choices<ExpertBalance>(
            expertBalanceKey, { { ExpertBalance::Dropless, "Dropless" }, { ExpertBalance::Forced, "Forced balance" } }),
        .writtenWhenDefault = false,
        MFU_SETTING_MEMBER(parallelism.expertBalance) });
    t.push_back({ .key = "expert_capacity_factor",
        .kind = K::Number,
        .flag = "expert-capacity-factor",
        .valueName = "F",
        .field = "expertCapacityFactor",
        .label = "Capacity factor",
        .help = "MoE token dropping: expert buffers padded to F x the mean share (GShard, Switch); 0 = dropless "
                "(default)",
        .minimumNumber = 0,
        .maximumNumber = 16,
        .valid = isExpertCapacityFactor,
        .rule = "0 (dropless) or a capacity factor between 1 and 16",
        .zeroText = "dropless",
        .getNumber = [](const Scenario& s) { return s.parallelism.expertCapacityFactor; },
        .setNumber = [](Scenario& s, double v) { s.parallelism.expertCapacityFactor = v; } });
    t.push_back({ .key = "expert_load_imbalance",
        .kind = K::Number,
        .flag = "expert-load-imbalance",
        .valueName = "F",
        .field = "expertLoadImbalance",
        .label = "Expert load",
        .help = "Dropless MoE routing: the busiest expert group's tokens over the mean, which the others wait for; "
                "0 = the model's own, 1.10 for a trained router (default); a from-scratch benchmark runs about 1.5",
        .minimumNumber = 0,
        .maximumNumber = 16,
        .valid = isExpertLoadImbalance,
        .rule = "0 (the model's own) or a load between 1 and 16 times the mean",
        .zeroText = "model's own",
        .writtenWhenDefault = false,
        .getNumber = [](const Scenario& s) { return s.parallelism.expertLoadImbalance; },
        .setNumber = [](Scenario& s, double v) { s.parallelism.expertLoadImbalance = v; } });
    t.push_back({ .key = "expert_host_sync",
        .kind = K::Choice,
        .flag = "expert-host-sync",
        .valueName = "KIND",
        .field = "expertHostSync",
        .label = "Host s&ync",
        .help = "Whether each MoE layer's dispatch waits for the host (token counts copied to the CPU): "
                "auto|per_layer|none (auto, the default: per_layer for dropless routing across EP ranks with the "
                "alltoall, allgather or DeepEP dispatchers; none without EP, with a capacity factor, HybridEP or "
                "full-iteration CUDA graphs)",
        .choices = choices<ExpertHostSync>(expertHostSyncKey,
            { { ExpertHostSync::Auto, "Auto" }, { ExpertHostSync::PerLayer, "Every MoE layer" },
                { ExpertHostSync::None, "Sync-free" } }),
        .writtenWhenDefault = false,
        MFU_SETTING_MEMBER(parallelism.expertHostSync) });
    t.push_back({ .key = "expert_node_limit",
        .kind = K::Count,
        .flag = "expert-node-limit",
        .valueName = "N",
        .field = "expertNodeLimit",
        .label = "Node limit",
        .help = "Node-limited routing: each token's experts on at most N scale-up domains (DeepSeek-V3: 4; default "
                "0: unlimited)",
        .minimum = 0,
        .maximum = kMaxDegree,
        .zeroText = "none",
        .writtenWhenDefault = false,
        MFU_SETTING_MEMBER(parallelism.expertNodeLimit) });
    t.push_back({ .key = "first_stage_layers",
        .kind = K::Count,
        .flag = "first-stage-layers",
        .valueName = "N",
        .field = "firstStageLayers",
        .label = "First stage",
        .help = "Transformer layers of the first pipeline stage (Megatron's decoder-first-pipeline-num-layers; 0, "
                "the default: even)",
        .minimum = 0,
        .maximum = kMaxStageLayers,
        .zeroText = "even",
        .writtenWhenDefault = false,
        MFU_SETTING_MEMBER(parallelism.firstStageLayers) });
    t.push_back({ .key = "last_stage_layers",
        .kind = K::Count,
        .flag = "last-stage-layers",
        .valueName = "N",
        .field = "lastStageLayers",
        .label = "Last stage",
        .help = "Transformer layers of the last pipeline stage (Megatron's decoder-last-pipeline-num-layers; 0, the "
                "default: even)",
        .minimum = 0,
        .maximum = kMaxStageLayers,
        .zeroText = "even",
        .writtenWhenDefault = false,
        MFU_SETTING_MEMBER(parallelism.lastStageLayers) });
    t.push_back({ .key = "embedding_stage",
        .kind = K::Switch,
        .flag = "embedding-stage",
        .help = "Count the embedding as a layer of the first pipeline stage (Megatron)",
        .writtenWhenDefault = false,
        MFU_SETTING_MEMBER(parallelism.embeddingStage) });
    t.push_back({ .key = "loss_stage",
        .kind = K::Switch,
        .flag = "loss-stage",
        .help = "Count the LM head and loss as a layer of the last pipeline stage (Megatron)",
        .writtenWhenDefault = false,
        MFU_SETTING_MEMBER(parallelism.lossStage) });
    t.push_back({ .key = "pipeline_layout",
        .kind = K::Text,
        .flag = "pipeline-layout",
        .valueName = "LAYOUT",
        .field = "pipelineLayout",
        .label = "La&yout",
        .help = "Megatron pipeline layout: E embedding, t layer, m MTP layer, L loss, | next virtual stage, *n repeats "
                "(DeepSeek-V3: 'Et*3|(tt|)*29m|L'); empty: an even split",
        .zeroText = "even",
        .writtenWhenDefault = false,
        .getText =
            [](const Scenario& s) {
                return s.parallelism.pipelineLayout.empty() ? std::string()
                                                            : pipelineLayoutText(s.parallelism.pipelineLayout);
            },
        .setText =
            [](Scenario& s, std::string_view text) {
                const bool blank = text.find_first_not_of(" \t") == std::string_view::npos;
                s.parallelism.pipelineLayout
                    = blank ? std::vector<PipelineChunk> {} : parsePipelineLayout(std::string(text));
            } });
    t.push_back({ .key = "mtp_layers",
        .section = S::Workload,
        .kind = K::Count,
        .flag = "mtp-layers",
        .valueName = "N",
        .field = "mtpLayers",
        .label = "MTP layers",
        .help = "Multi-token-prediction layers trained beside the model (DeepSeek-V3: 1)",
        .minimum = 0,
        .maximum = 64,
        .writtenWhenDefault = false,
        MFU_SETTING_MEMBER(workload.mtpLayers) });
    t.push_back({ .key = "hsdp_replicas",
        .kind = K::Count,
        .flag = "hsdp-replicas",
        .valueName = "N",
        .field = "hsdpReplicas",
        .label = "&HSDP replicas",
        .help = "HSDP replica groups; FSDP shards over the rest (default 1: flat FSDP)",
        .minimum = 1,
        .maximum = kMaxDegree,
        MFU_SETTING_MEMBER(parallelism.hsdpReplicas) });
    t.push_back({ .key = "data_parallel",
        .kind = K::Choice,
        .flag = "data-parallel",
        .valueName = "KIND",
        .field = "dataParallel",
        .label = "Data parallel",
        .help = "How data-parallel ranks hold the state: fsdp|zero1|ddp|megatron_fsdp (megatron_fsdp: Megatron-Core's "
                "--use-megatron-fsdp, ZeRO-3 in buckets; default fsdp)",
        .choices = choices<DataParallelKind>(dataParallelKey,
            { { DataParallelKind::Fsdp, "FSDP (ZeRO-3)" }, { DataParallelKind::Zero1, "ZeRO-1" },
                { DataParallelKind::Ddp, "DDP" }, { DataParallelKind::MegatronFsdp, "Megatron-FSDP" } },
            { { DataParallelKind::Fsdp, "hsdp" } }),
        MFU_SETTING_MEMBER(parallelism.dataParallel) });
    t.push_back({ .key = "micro_batch",
        .section = S::Workload,
        .kind = K::Count,
        .flag = "micro-batch",
        .valueName = "N",
        .field = "microBatch",
        .label = "&Micro-batch",
        .help = "Sequences per GPU per micro-step (default 1)",
        .minimum = 1,
        .maximum = kMaxDegree,
        MFU_SETTING_MEMBER(workload.microBatch) });
    t.push_back({ .key = "global_batch_tokens",
        .section = S::Workload,
        .kind = K::Count,
        .flag = "global-batch-tokens",
        .valueName = "N",
        .field = "globalBatchTokens",
        .label = "&Global batch",
        .help = "Tokens per optimizer step, whole cluster (default: one micro-batch per DP rank)",
        .minimum = 0,
        .maximum = kMaxBatchTokens,
        .zeroText = "1 micro-step",
        .suffix = " tokens",
        MFU_SETTING_MEMBER(workload.globalBatchTokens) });

    // Activation checkpointing and recomputation.
    t.push_back({ .key = "activation_checkpointing",
        .section = S::Top,
        .kind = K::Choice,
        .flag = "ac",
        .valueName = "MODE",
        .field = "activationCheckpointing",
        .label = "&Checkpointing",
        .help = "Activation checkpointing: none|selective|full (default none)",
        .aliases = { "checkpointing" },
        .choices = choices<ActivationCheckpointing>(activationCheckpointingKey,
            { { ActivationCheckpointing::None, "None" }, { ActivationCheckpointing::Selective, "Selective" },
                { ActivationCheckpointing::Full, "Full" } }),
        MFU_SETTING_MEMBER(activationCheckpointing) });
    t.push_back({ .key = "recompute_modules",
        .section = S::Flags,
        .kind = K::Text,
        .flag = "recompute-modules",
        .valueName = "LIST",
        .field = "recomputeModules",
        .label = "Recompute",
        .help
        = "Selective checkpointing of Megatron's modules, a comma-separated list of core_attn, mlp, moe, moe_act, "
          "layernorm, mla_up_proj, shared_experts (with selective checkpointing; none: TorchTitan's op-level "
          "SAC)",
        .zeroText = "op-level SAC",
        .writtenWhenDefault = false,
        .textAsList = true,
        .getText = [](const Scenario& s) { return recomputeModulesText(s.flags.recomputeModules); },
        .setText
        = [](Scenario& s, std::string_view text) { s.flags.recomputeModules = parseRecomputeModules(text); } });
    t.push_back({ .key = "recompute_layers",
        .section = S::Flags,
        .kind = K::Count,
        .flag = "recompute-layers",
        .valueName = "N",
        .field = "recomputeLayers",
        .label = "Recompute layers",
        .help = "With full checkpointing, recompute only this many layers a pipeline stage (Megatron's block method; "
                "0, the default: all)",
        .minimum = 0,
        .maximum = kMaxStageLayers,
        .zeroText = "all",
        .writtenWhenDefault = false,
        MFU_SETTING_MEMBER(flags.recomputeLayers) });

    // Precision recipe and framework flags.
    t.push_back({ .key = "fp8_recipe",
        .section = S::Flags,
        .kind = K::Choice,
        .flag = "fp8-recipe",
        .valueName = "RECIPE",
        .field = "fp8Recipe",
        .label = "FP8 rec&ipe",
        .help = "FP8 scaling of a bf16+fp8 run: tensorwise, blockwise, mxfp8, rowwise or rowwise_with_gw_hp "
                "(default tensorwise)",
        .choices = choices<Fp8Recipe>(fp8RecipeKey,
            { { Fp8Recipe::Tensorwise, "Per tensor" }, { Fp8Recipe::Blockwise, "Blockwise" },
                { Fp8Recipe::Mxfp8, "MXFP8" }, { Fp8Recipe::Rowwise, "Per row" },
                { Fp8Recipe::RowwiseWithGwHp, "Per row, BF16 weight gradients" } }),
        .writtenWhenDefault = false,
        MFU_SETTING_MEMBER(flags.fp8Recipe) });
    t.push_back({ .key = "fp4_recipe",
        .section = S::Flags,
        .kind = K::Choice,
        .flag = "fp4-recipe",
        .valueName = "RECIPE",
        .field = "fp4Recipe",
        .label = "FP4 recipe",
        .help = "FP4 format of a bf16+fp4 run: nvfp4 (16-element blocks, E4M3 scales and a per-tensor scale; NVIDIA "
                "Blackwell) or mxfp4 (32-element blocks, E8M0 scales; OCP MX); default nvfp4",
        .choices = choices<Fp4Recipe>(fp4RecipeKey, { { Fp4Recipe::Nvfp4, "NVFP4" }, { Fp4Recipe::Mxfp4, "MXFP4" } }),
        .writtenWhenDefault = false,
        MFU_SETTING_MEMBER(flags.fp4Recipe) });
    t.push_back({ .key = "fp4_bf16_layer_share",
        .section = S::Flags,
        .kind = K::Number,
        .flag = "fp4-bf16-layers",
        .valueName = "SHARE",
        .field = "fp4Bf16Layers",
        .label = "BF16 share (FP4)",
        .help = "Share of a bf16+fp4 run's linear layers kept in BF16, 0 to 1 (the NVFP4 paper keeps about 0.15, "
                "the last blocks); default 0: every linear layer in FP4",
        .minimumNumber = 0,
        .maximumNumber = 1,
        .rule = "a share from 0 to 1",
        .zeroText = "none",
        .writtenWhenDefault = false,
        .getNumber = [](const Scenario& s) { return s.flags.fp4Bf16LayerShare; },
        .setNumber = [](Scenario& s, double v) { s.flags.fp4Bf16LayerShare = v; } });
    t.push_back({ .key = "cuda_graphs",
        .section = S::Flags,
        .kind = K::Choice,
        .flag = "cuda-graphs",
        .valueName = "SCOPE",
        .field = "cudaGraphs",
        .label = "CUDA graphs",
        .help = "CUDA graphs: none|modules|full_iteration (modules: Megatron-Core's attn/moe_router/moe_preprocess "
                "scopes; full_iteration: the whole step, torch.compile's reduce-overhead); default none",
        .choices = choices<CudaGraphs>(cudaGraphsKey,
            { { CudaGraphs::None, "None" }, { CudaGraphs::Modules, "Per module" },
                { CudaGraphs::FullIteration, "Full iteration" } }),
        .writtenWhenDefault = false,
        MFU_SETTING_MEMBER(flags.cudaGraphs) });
    t.push_back({ .key = "fp8_attention",
        .section = S::Flags,
        .kind = K::Switch,
        .flag = "fp8-attention",
        .field = "fp8Attention",
        .label = "FP8 attention",
        .help = "Attention core in FP8 (Transformer Engine's FP8 dot-product attention, cuDNN; FlashAttention-3): "
                "needs an FP8 peak and the cuDNN or FlashAttention 3 kernel",
        .writtenWhenDefault = false,
        MFU_SETTING_MEMBER(flags.fp8Attention) });
    t.push_back({ .key = "fused_expert_mlp",
        .section = S::Flags,
        .kind = K::Switch,
        .flag = "fused-expert-mlp",
        .field = "fusedExpertMlp",
        .label = "Fused expert MLP",
        .help = "MoE only: the routed experts' SwiGLU and its FP8/FP4 quantisation run in the grouped GEMMs' "
                "epilogues (fused grouped-MLP kernels, as Transformer Engine's on Blackwell): no memory passes over "
                "the experts' width",
        .writtenWhenDefault = false,
        MFU_SETTING_MEMBER(flags.fusedExpertMlp) });
    t.push_back({ .key = "moe_permute_fusion",
        .section = S::Flags,
        .kind = K::Switch,
        .flag = "moe-permute-fusion",
        .field = "moePermuteFusion",
        .label = "Fused MoE permutation",
        .help = "MoE only: tokens permuted into expert order and back by fused kernels (Megatron-Core's "
                "--moe-permute-fusion, Transformer Engine's moe_permute/moe_unpermute), not PyTorch's index kernels",
        .writtenWhenDefault = false,
        MFU_SETTING_MEMBER(flags.moePermuteFusion) });
    t.push_back({ .key = "fp8_param_gather",
        .section = S::Flags,
        .kind = K::Switch,
        .flag = "fp8-param-gather",
        .field = "fp8ParamGather",
        .label = "FP8 parameters",
        .help = "BF16+FP8 only: the linear layers' weights held and all-gathered in FP8, cast once a step "
                "(Megatron's --fp8-param-gather, NeMo's fp8_params, TorchAO's float8 FSDP all-gather)",
        .writtenWhenDefault = false,
        MFU_SETTING_MEMBER(flags.fp8ParamGather) });
    t.push_back({ .key = "quantized_weight_cache",
        .section = S::Flags,
        .kind = K::Switch,
        .flag = "quantized-weight-cache",
        .field = "quantizedWeightCache",
        .label = "Cached FP8/FP4 weights",
        .help = "BF16+FP8 and FP4 only: each linear weight quantised once per step and reused by every micro-batch "
                "(Transformer Engine's is_first_microbatch, as Megatron-Core and NeMo pass it), not cast every "
                "micro-batch (TorchAO); the copies in both orientations stay in memory",
        .writtenWhenDefault = false,
        MFU_SETTING_MEMBER(flags.quantizedWeightCache) });
    t.push_back({ .key = "optimizer_offload_fraction",
        .section = S::Flags,
        .kind = K::Number,
        .flag = "optimizer-offload-fraction",
        .valueName = "F",
        .field = "optimizerOffload",
        .label = "Optimizer offload",
        .help = "Share of the optimizer state (FP32 master weights, Adam moments) kept in host memory and updated on "
                "the CPU: Megatron-Core's --optimizer-cpu-offload --optimizer-offload-fraction F, torch FSDP's "
                "CPUOffload = 1; 0 to 1, default 0",
        .minimumNumber = 0,
        .maximumNumber = 1,
        .valid = isOffloadFraction,
        .rule = "a fraction from 0 (none) to 1 (all)",
        .zeroText = "none",
        .writtenWhenDefault = false,
        .getNumber = [](const Scenario& s) { return s.flags.optimizerOffloadFraction; },
        .setNumber = [](Scenario& s, double v) { s.flags.optimizerOffloadFraction = v; } });
    t.push_back({ .key = "activation_offload",
        .section = S::Flags,
        .kind = K::Number,
        .flag = "activation-offload",
        .valueName = "F",
        .field = "activationOffload",
        .label = "Activation offload",
        .help = "Share of the activations saved for backward copied to host memory in forward and back in backward "
                "(1: all, torchao/TorchTitan activation offloading; Megatron-Core's fine-grained offload: the share "
                "its modules hold); 0 to 1, default 0",
        .minimumNumber = 0,
        .maximumNumber = 1,
        .valid = isOffloadFraction,
        .rule = "a fraction from 0 (none) to 1 (all)",
        .zeroText = "none",
        .writtenWhenDefault = false,
        .getNumber = [](const Scenario& s) { return s.flags.activationOffloadFraction; },
        .setNumber = [](Scenario& s, double v) { s.flags.activationOffloadFraction = v; } });
    t.push_back({ .key = "activation_offload_modules",
        .section = S::Flags,
        .kind = K::Text,
        .flag = "activation-offload-modules",
        .valueName = "LIST",
        .field = "activationOffloadModules",
        .label = "Offload modules",
        .help = "Megatron-Core's fine-grained activation offload (--offload-modules), a comma-separated list of "
                "expert_fc1, moe_act: the routed experts' saved inputs copied to host memory; default none",
        .zeroText = "none",
        .writtenWhenDefault = false,
        .textAsList = true,
        .getText = [](const Scenario& s) { return offloadModulesText(s.flags.activationOffloadModules); },
        .setText
        = [](Scenario& s, std::string_view text) { s.flags.activationOffloadModules = parseOffloadModules(text); } });
    t.push_back({ .key = "fsdp_prefetch_layers",
        .section = S::Flags,
        .kind = K::Count,
        .flag = "fsdp-prefetch",
        .valueName = "N",
        .field = "fsdpPrefetch",
        .label = "FSDP pre&fetch",
        .help = "Layers FSDP all-gathers ahead of compute (default 1)",
        .minimum = 0,
        .maximum = 1024,
        MFU_SETTING_MEMBER(flags.fsdpPrefetchLayers) });
    t.push_back({ .key = "reduce_in_bf16",
        .section = S::Flags,
        .kind = K::Switch,
        .flag = "reduce-bf16",
        .field = "reduceDtype",
        .label = "&Reduce dtype",
        .help = "Reduce gradients in BF16 (default FP32)",
        .choices = { { 0, "fp32", "FP32" }, { 1, "bf16", "BF16" } },
        MFU_SETTING_MEMBER(flags.reduceInBf16) });
    t.push_back({ .key = "overlap_grad_reduce",
        .section = S::Flags,
        .kind = K::Switch,
        .flag = "no-overlap-grad-reduce",
        .field = "overlapGradReduce",
        .label = "Overlap gradient reduce",
        .help = "DDP and ZeRO-1: gradients reduced in buckets under the backward pass (on by default; the flag "
                "syncs them after it, as Megatron-LM does without --overlap-grad-reduce)",
        .flagSets = false,
        MFU_SETTING_MEMBER(flags.overlapGradReduce) });
    t.push_back({ .key = "overlap_param_gather",
        .section = S::Flags,
        .kind = K::Switch,
        .flag = "no-overlap-param-gather",
        .field = "overlapParamGather",
        .label = "Overlap parameter gather",
        .help = "ZeRO-1: the updated weights all-gathered under the next forward (on by default; the flag gathers "
                "them before it, as Megatron-LM does without --overlap-param-gather)",
        .flagSets = false,
        MFU_SETTING_MEMBER(flags.overlapParamGather) });
    t.push_back({ .key = "fused_optimizer",
        .section = S::Flags,
        .kind = K::Switch,
        .flag = "unfused-optimizer",
        .field = "fusedOptimizer",
        .label = "Fused optimizer",
        .help = "Fused AdamW (on by default; the flag runs the multi-tensor one instead)",
        .flagSets = false,
        MFU_SETTING_MEMBER(flags.fusedOptimizer) });
    t.push_back({ .key = "compiled",
        .section = S::Flags,
        .kind = K::Switch,
        .flag = "eager",
        .field = "compiled",
        .label = "torch.compile",
        .help = "torch.compile fuses the elementwise ops (on by default; the flag runs eager, unfused)",
        .flagSets = false,
        MFU_SETTING_MEMBER(flags.compiled) });
    t.push_back({ .key = "autocast",
        .section = S::Flags,
        .kind = K::Switch,
        .flag = "autocast",
        .field = "autocast",
        .label = "torch.autocast (FP32 weights)",
        .help = "Mixed precision by torch.autocast over FP32 weights (Hugging Face Trainer's bf16, Lightning's "
                "bf16-mixed): an FP32 residual stream and BF16 casts of every linear layer's input and weight each "
                "micro-step (default: BF16 weights with FP32 master weights, as Megatron-Core and FSDP2 run)",
        .writtenWhenDefault = false,
        MFU_SETTING_MEMBER(flags.autocast) });
    t.push_back({ .key = "attention_kernel",
        .section = S::Flags,
        .kind = K::Choice,
        .flag = "attention-kernel",
        .valueName = "NAME",
        .field = "attentionKernel",
        .label = "Attention kernel",
        .help = "Attention kernel: auto|flash3|flash2|flash1|cudnn|unfused (default auto: the best on the GPU)",
        .choices = choices<AttentionKernel>(attentionKernelKey,
            { { AttentionKernel::Auto, "Best on the GPU" }, { AttentionKernel::FlashAttention3, "FlashAttention 3" },
                { AttentionKernel::FlashAttention2, "FlashAttention 2" },
                { AttentionKernel::FlashAttention1, "FlashAttention 1" }, { AttentionKernel::Cudnn, "cuDNN SDPA" },
                { AttentionKernel::Unfused, "Unfused" } }),
        MFU_SETTING_MEMBER(flags.attentionKernel) });
    t.push_back({ .key = "optimizer_in_backward",
        .section = S::Flags,
        .kind = K::Switch,
        .flag = "optimizer-in-backward",
        .field = "optimizerInBackward",
        .label = "Optimizer in backward",
        .help = "Run the optimizer step inside the backward pass",
        MFU_SETTING_MEMBER(flags.optimizerInBackward) });
    t.push_back({ .key = "fused_linear_cross_entropy",
        .section = S::Flags,
        .kind = K::Switch,
        .flag = "fused-linear-cross-entropy",
        .field = "fusedLinearCrossEntropy",
        .label = "Fused linear cross-entropy",
        .help = "LM head and loss fused in chunks (Liger Kernel): the full logits are never held in memory",
        MFU_SETTING_MEMBER(flags.fusedLinearCrossEntropy) });
    t.push_back({ .key = "fused_norm_activation",
        .section = S::Flags,
        .kind = K::Switch,
        .flag = "fused-norm-activation",
        .field = "fusedNormActivation",
        .label = "Fused norm/SwiGLU/RoPE",
        .help = "Fused RMSNorm, SwiGLU and RoPE kernels (Liger Kernel): in an eager run fewer memory passes and less "
                "saved; torch.compile fuses them already",
        .writtenWhenDefault = false,
        MFU_SETTING_MEMBER(flags.fusedNormActivation) });
    t.push_back({ .key = "fp8_scales_in_backward",
        .section = S::Flags,
        .kind = K::Switch,
        .flag = "fp8-scales-in-backward",
        .field = "fp8ScalesInBackward",
        .label = "FP8 scales in backward",
        .help = "Precompute FP8 weight scales during backward",
        MFU_SETTING_MEMBER(flags.fp8ScalesInBackward) });
    return t;
}

#undef MFU_SETTING_MEMBER

} // namespace

std::span<const Setting> scenarioSettings()
{
    static const std::vector<Setting> table = buildTable();
    return table;
}

std::span<const SettingShorthand> settingShorthands()
{
    static const std::vector<SettingShorthand> shorthands = {
        { "expert-overlap", "Overlap MoE all-to-alls with another micro-batch's compute (DualPipe)",
            { { "expert_overlap", static_cast<int64_t>(ExpertOverlap::DualPipe) } } },
        { "tp-comm-overlap",
            "Transformer Engine's TP communication overlap as Megatron-Core and NeMo enable it (--tp-comm-overlap): "
            "--async-tp and --tp-overlap-kind userbuffers",
            { { "async_tp", 1 }, { "tp_overlap_kind", static_cast<int64_t>(TpOverlap::Userbuffers) } } },
        { "liger-kernel",
            "Liger Kernel as trainers enable it (use_liger_kernel): --fused-linear-cross-entropy and "
            "--fused-norm-activation",
            { { "fused_linear_cross_entropy", 1 }, { "fused_norm_activation", 1 } } },
    };
    return shorthands;
}

} // namespace mfu
