#pragma once
// Scenario = model + cluster + workload + precision + parallelism + activation checkpointing + framework flags
// (+ what the user measured). The GUI holds exactly one; every panel, the cost model, the planner, the money
// figures and the scenario file read it. Plain data: the functions that use it live beside their own headers.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model/cost_model_constants.h"
#include "core/model/flops.h"
#include "core/model/hardware_spec.h"
#include "core/model/mfu.h"
#include "core/model/model_spec.h"
#include "core/model/packing.h"
#include "core/model/precision.h"

namespace mfu {

struct Workload {
    int64_t seqLen = 8192;
    int64_t globalBatchTokens = 0; // tokens per optimizer step, whole cluster; 0: one micro-batch per DP rank
    int64_t microBatch = 1; // sequences per GPU per micro-step
    // Documents packed into each sequence (seqLen is then the packing length), their attention mask, and padding
    // kept in the batch (core/model/packing.h). Default: one document per sequence, no padding.
    SequencePacking packing;
    // Vision tokens of a vision-language run (core/model/vision_encoder.h); none by default.
    VisionWorkload vision;
    // Multi-token-prediction layers trained beside the model (DeepSeek-V3's MTP depth, num_nextn_predict_layers):
    // each a transformer layer with its own projection, LM head pass and loss, on the last pipeline stage unless a
    // layout places it. Not in FLOP/token (the model presets leave them out, as their model cards count).
    int mtpLayers = 0;
};

enum class PipelineSchedule { OneFOneB, Interleaved1F1B, ZeroBubble };

// How the data-parallel ranks hold the model state. FSDP (ZeRO-3, TorchTitan's FSDP2) shards weights, gradients and
// optimizer state and all-gathers weights per layer; ZeRO-1 (Megatron's distributed optimizer, DeepSpeed stage 1)
// keeps whole BF16 weights and FP32 gradients on every rank, shards the FP32 master weights and optimizer state,
// reduce-scatters gradients and all-gathers the updated weights once per step; DDP keeps everything whole and
// all-reduces the gradients once per step. Megatron-FSDP (Megatron-Core's own FSDP, --use-megatron-fsdp with
// --data-parallel-sharding-strategy optim_grads_params) shards like FSDP but gathers and reduces in buckets of
// several layers from persistent, NCCL-registered buffers (docs/cost-model.md, "Communication").
enum class DataParallelKind { Fsdp, Zero1, Ddp, MegatronFsdp };

// Whether the data-parallel ranks shard weights and gradients (ZeRO-3): torch FSDP and Megatron-FSDP.
inline bool shardsWeights(DataParallelKind kind)
{
    return kind == DataParallelKind::Fsdp || kind == DataParallelKind::MegatronFsdp;
}

// The attention kernel (FlashAttention 3 on Hopper, 2 on Ampere and later, 1, cuDNN SDPA, or the unfused
// scores-softmax-GEMM path of 2021-2022 Megatron-LM). Auto: the best one the GPU has.
enum class AttentionKernel { Auto, FlashAttention3, FlashAttention2, FlashAttention1, Cudnn, Unfused };

// How MoE tokens travel to their experts and back (docs/cost-model.md, "Expert parallelism"):
// - AllToAll: NCCL all-to-all of one copy per routed expert (Megatron-Core's alltoall dispatcher, TorchTitan's
//   default);
// - AllGather: every rank gathers the EP group's tokens and keeps those routed to its experts, the combine a
//   reduce-scatter (Megatron-Core's allgather dispatcher);
// - DeepEp: DeepSeek's DeepEP kernels: one copy per destination GPU, one per destination node over RDMA forwarded
//   over NVLink inside it (Megatron-Core's flex dispatcher with DeepEP, TorchTitan's deepep);
// - HybridEp: NVIDIA's HybridEP (Megatron-Core's flex dispatcher), the same traffic as DeepEP, hierarchical over
//   NVLink domains.
enum class ExpertDispatcher { AllToAll, AllGather, DeepEp, HybridEp };

// How context parallelism exchanges keys and values (Megatron-Core's --cp-comm-type): all-gathered before attention,
// the gather on the critical path (Llama 3's context parallelism, TorchTitan's default allgather rotation); or a
// ring of point-to-point exchanges, each overlapped with the attention of the chunk already received
// (Transformer Engine's P2P context parallelism, Megatron-Core's and NeMo's default).
enum class ContextParallelComm { AllGather, P2p };

// How asynchronous tensor parallelism hides its collectives (Parallelism::asyncTp): PyTorch's async TP (TorchTitan's
// enable_async_tensor_parallel: torch.compile splits each all-gather or reduce-scatter and its matmul into TP chunks
// that run against SymmetricMemory copies); or Transformer Engine's userbuffers overlap (Megatron-Core's and NeMo's
// --tp-comm-overlap: the GEMM and its chunked ring exchange share the SMs by design).
enum class TpOverlap { SymmetricMemory, Userbuffers };

// How the MoE all-to-alls are hidden: not at all; behind the other micro-batch of a 1F1B steady state
// (Megatron-Core's --overlap-moe-expert-parallel-comm, "EP A2A overlap"); or DeepSeek's DualPipe, whose forward and
// backward chunks run side by side.
enum class ExpertOverlap { None, OneFOneB, DualPipe };

// Routing balance: dropless routing where the busiest expert sets the pace; forced uniform routing (benchmark mode,
// TorchTitan's debug_moe_force_load_balance); token dropping at a capacity factor (Parallelism::expertCapacityFactor).
enum class ExpertBalance { Dropless, Forced };

// Whether each MoE layer's dispatch waits for the host. Dropless dispatchers that size their receive buffers and
// grouped GEMMs from token counts copied to the CPU (Megatron-Core's alltoall and allgather dispatchers and
// Transformer Engine's GroupedLinear m_splits, DeepEP's normal kernels, TorchTitan's all-to-all split sizes) stop the
// CPU's run-ahead once a layer; the GPU then runs no faster than the CPU issues that layer's kernels. Auto: PerLayer
// for dropless routing across EP ranks with those dispatchers; None without EP (torch._grouped_mm takes its group
// offsets on the device, as TorchTitan and Hugging Face run it), with a capacity factor (padded buffers of a known
// size), with HybridEP (taken as sync-free: every published configuration graphs the MoE preprocessing with it) or
// under full-iteration CUDA graphs. PerLayer states a run the default would miss (Megatron-Core without EP: its
// GroupedLinear still takes host-side splits).
enum class ExpertHostSync { Auto, PerLayer, None };

// One virtual pipeline stage of an explicit pipeline layout (Megatron's pipeline_model_parallel_layout, torchtitan's
// per-stage splits): its transformer layers, multi-token-prediction layers, and whether it holds the embedding or
// the LM head and loss. Virtual stage c runs on pipeline rank c mod pp.
struct PipelineChunk {
    int layers = 0;
    int mtpLayers = 0;
    bool embedding = false;
    bool loss = false;
    bool operator==(const PipelineChunk&) const = default;
};

// Degrees multiply to the GPU count: gpus = hsdpReplicas x fsdpShards x tp x pp x cp. Expert parallelism is folded
// over the same ranks (Megatron-Core's MoE Parallel Folding): the ep x expertTp ranks of an expert group are drawn
// from the tp x cp x data-parallel ranks of a pipeline stage, and the rest are expert data parallelism.
struct Parallelism {
    int tp = 1;
    bool sequenceParallel = true; // Megatron-style SP alongside TP
    bool asyncTp = false; // overlap TP collectives with the matmuls
    TpOverlap tpOverlap = TpOverlap::SymmetricMemory; // how, when asyncTp is on
    int pp = 1;
    int virtualStages = 1; // interleaved pipeline chunks per rank
    PipelineSchedule schedule = PipelineSchedule::OneFOneB;
    int cp = 1;
    ContextParallelComm cpComm = ContextParallelComm::AllGather;
    int ep = 1;
    // Tensor-parallel degree of the experts (Megatron-Core's --expert-tensor-parallel-size); 0: 1 with EP, else TP.
    int expertTp = 0;
    int hsdpReplicas = 1; // 1: flat FSDP over all data-parallel ranks; R: R replicas, FSDP inside each
    DataParallelKind dataParallel = DataParallelKind::Fsdp; // how the fsdp-shard ranks hold the state
    // MoE dispatch/combine all-to-alls overlapped with another micro-batch's compute (DeepSeek's DualPipe,
    // Megatron-Core's EP A2A overlap) instead of sitting on the critical path.
    ExpertOverlap expertOverlap = ExpertOverlap::None;
    ExpertDispatcher expertDispatcher = ExpertDispatcher::AllToAll;
    ExpertBalance expertBalance = ExpertBalance::Dropless;
    // Node-limited routing: each token's experts on at most this many scale-up domains (DeepSeek-V3's 4 nodes, by
    // group-limited routing); 0: unlimited.
    int expertNodeLimit = 0;
    // Token dropping: each expert's buffer holds capacity factor x its mean share of the tokens, padded to it
    // (GShard, Switch Transformer, Megatron-Core with --moe-pad-expert-input-to-capacity); tokens beyond it skip the
    // expert. 0: dropless routing, where the busiest expert sets the pace.
    double expertCapacityFactor = 0;
    ExpertHostSync expertHostSync = ExpertHostSync::Auto;
    // Dropless routing: the busiest expert group's tokens over the mean, which the other groups wait for at the
    // combine; 0: the cost model's own (CostModelConstants::expertLoadImbalance, judged for a trained router). A
    // router early in training or a benchmark from scratch runs higher: the Megatron-MoE ModelZoo's forced-balance
    // and dropless pairs of Qwen3-235B imply about 1.5.
    double expertLoadImbalance = 0;

    // Uneven pipeline stages. Megatron's --decoder-first/last-pipeline-num-layers: the first and last pipeline ranks
    // hold these many transformer layers, the others split the rest (0: an even split). Megatron's
    // --account-for-embedding/loss-in-pipeline-split: the embedding, and the LM head with the loss, count as a layer
    // of the first and the last virtual stage.
    int firstStageLayers = 0;
    int lastStageLayers = 0;
    bool embeddingStage = false;
    bool lossStage = false;
    // An explicit layout, pp x virtualStages chunks in pipeline order; it replaces the four fields above. Empty: the
    // layers split evenly (ceil(layers / pp) on the busiest rank, which also holds the LM head and loss).
    std::vector<PipelineChunk> pipelineLayout;
};

// An expert's tokens as a multiple of the mean share, or 0 for none stated: at least 1, at most 16.
inline bool isUnsetOrExpertLoadMultiple(double f)
{
    return f == 0 || (f >= 1.0 && f <= 16.0);
}

// 0 (dropless) or a capacity factor in [1, 16]: below 1 drops tokens even when routing is even; beyond 16 it caps
// nothing. Scenario files, the command line and the cost model all check with this.
inline bool isExpertCapacityFactor(double f)
{
    return isUnsetOrExpertLoadMultiple(f);
}

// 0 (the cost model's own) or a busiest-expert load in [1, 16]: no expert group's busiest can run below the mean,
// and beyond 16 the router sends nearly every token to one group. Checked where the capacity factor is.
inline bool isExpertLoadImbalance(double f)
{
    return isUnsetOrExpertLoadMultiple(f);
}

// CUDA graphs: kernels captured once and replayed by one launch, so the host no longer launches them one by one.
// None; per module (Megatron-Core's --cuda-graph-scope attn, moe_router, moe_preprocess; Transformer Engine's
// make_graphed_callables): the captured modules' launches go; full iteration (Megatron-Core's
// --cuda-graph-scope full_iteration, torch.compile's mode="reduce-overhead"): every per-layer launch goes.
enum class CudaGraphs { None, Modules, FullIteration };

// FP8 scaling recipes for the linear layers and grouped GEMMs of a BF16+FP8 run: one scale per tensor (Transformer
// Engine's delayed and current scaling, TorchAO's tensorwise), DeepSeek-V3's blockwise scales (1 x 128 activation
// tiles, 128 x 128 weight blocks), MXFP8's 1 x 32 blocks with E8M0 scales (Blackwell tensor cores), or TorchAO's
// rowwise scaling (Float8LinearRecipeName.ROWWISE: a scale per row of each operand, so every operand is cast again
// along the other axis for the GEMM that reads its transpose) and ROWWISE_WITH_GW_HP (the same, with the weight
// gradient's GEMM kept in BF16).
enum class Fp8Recipe { Tensorwise, Blockwise, Mxfp8, Rowwise, RowwiseWithGwHp };

// FP4 recipes for the linear layers and grouped GEMMs of a BF16+FP4 run (Blackwell-class tensor cores). NVFP4
// ("Pretraining Large Language Models with NVFP4", NVIDIA 2025; Transformer Engine's NVFP4BlockScaling): E2M1 values in
// blocks of 16 with an E4M3 scale each and an FP32 scale per tensor, random Hadamard transforms on the weight-gradient
// GEMM's inputs, stochastic rounding of the gradients. MXFP4 (OCP Microscaling Formats v1.0): blocks of 32 with an E8M0
// scale and no per-tensor scale.
enum class Fp4Recipe { Nvfp4, Mxfp4 };

// Megatron-Core's --recompute-modules under selective checkpointing (a bit set): what is rebuilt in backward
// instead of kept. None set: TorchTitan's op-level SAC (every other matmul output kept).
enum RecomputeModule : unsigned {
    RecomputeCoreAttention = 1u << 0, // core_attn: the attention core
    RecomputeMlp = 1u << 1, // mlp: dense MLPs
    RecomputeMoe = 1u << 2, // moe: whole MoE layers, their dispatch and combine included
    RecomputeMoeActivation = 1u << 3, // moe_act: the experts' activation function
    RecomputeLayernorm = 1u << 4, // layernorm: input and pre-MLP norms
    RecomputeMlaUpProjection = 1u << 5, // mla_up_proj: MLA's up-projections
    RecomputeSharedExperts = 1u << 6, // shared_experts
};

// Megatron-Core's fine-grained activation offloading (--fine-grained-activation-offloading --offload-modules), a
// bit set: the saved tensors of these modules go to host memory. Those the cost model can size: the routed experts'
// FC1 input (the dispatched tokens) and the input of their activation function (the FC1 output).
enum OffloadModule : unsigned {
    OffloadExpertFc1 = 1u << 0, // expert_fc1
    OffloadMoeActivation = 1u << 1, // moe_act
};

// Framework switches Lambda's MFU paper names as levers.
struct FrameworkFlags {
    int fsdpPrefetchLayers = 1; // layers all-gathered ahead of compute (FSDP default 1)
    bool reduceInBf16
        = false; // gradient reduce-scatter/all-reduce dtype: bf16 (true) or fp32 (false, TorchTitan default)
    bool fusedOptimizer = true;
    bool compiled = true; // torch.compile: fused elementwise ops
    bool optimizerInBackward = false; // optimizer step overlapped with the backward pass
    bool fp8ScalesInBackward = false; // precompute FP8 weight scales during backward (Lambda's MFU paper, 3.4)
    AttentionKernel attentionKernel = AttentionKernel::Auto;
    // Fused linear + cross-entropy (Liger Kernel's FusedLinearCrossEntropy): the LM head and the loss run in chunks
    // of tokens, so the full tokens x vocabulary logits are never held; what lets long packed sequences fit.
    bool fusedLinearCrossEntropy = false;
    // Fused RMSNorm, SwiGLU and RoPE kernels (Liger Kernel's LigerRMSNorm, LigerSwiGLUMLP, liger_rotary_pos_emb): in
    // an eager run, one pass over each vector where PyTorch's ops make several, and no FP32 copies or SiLU output
    // saved for backward. torch.compile already fuses these, so compiled runs gain nothing more from them.
    bool fusedNormActivation = false;
    Fp8Recipe fp8Recipe = Fp8Recipe::Tensorwise; // BF16+FP8 runs only
    Fp4Recipe fp4Recipe = Fp4Recipe::Nvfp4; // BF16+FP4 runs only
    // BF16+FP4 runs: the share of the linear layers kept in BF16 (the NVFP4 paper keeps about 15%, the last blocks,
    // for its 12B model); 0, the default, runs every linear layer in FP4.
    double fp4Bf16LayerShare = 0;
    CudaGraphs cudaGraphs = CudaGraphs::None;
    // The attention core in FP8 (Transformer Engine's FP8 dot-product attention on cuDNN, FlashAttention-3's FP8
    // forward): needs an FP8 peak and a kernel that has it.
    bool fp8Attention = false;
    // The routed experts' MLP as fused grouped GEMMs (Megatron-Core with Transformer Engine's grouped MLP kernels on
    // Blackwell, CUTLASS epilogue fusion): the SwiGLU activation, its gradient and the FP8/FP4 quantisation of what
    // they produce run in the grouped GEMMs' epilogues, so those memory passes over the experts' width are gone.
    bool fusedExpertMlp = false;
    // MoE: the tokens' permutation into expert order and back as fused kernels (Megatron-Core's
    // --moe-permute-fusion, Transformer Engine's moe_permute / moe_unpermute with the routing weights): one gather
    // and one weighted scatter at their bytes, where PyTorch's index kernels (index_put, gathers, index_add and their
    // sort-based backward) take several times as long (costmodel/compute_terms.cpp, unfusedPermutationPerToken).
    bool moePermuteFusion = false;
    // BF16+FP8 runs: the linear layers' working weights kept and all-gathered in FP8, quantised once per step after
    // the optimizer (Megatron-Core's --fp8-param-gather with Transformer Engine's FP8 model weights, NeMo's
    // fp8_params; TorchAO's enable_fsdp_float8_all_gather casts each FSDP shard before gathering it). The embedding
    // and the LM head stay BF16.
    bool fp8ParamGather = false;
    // BF16+FP8 and BF16+FP4 runs: each linear weight quantised once per step and the copy reused by every
    // micro-batch, where TorchAO casts it every micro-batch. Transformer Engine does this when its caller passes
    // is_first_microbatch ("allows caching of the FP8 versions of the weights", Transformer Engine's API reference),
    // which Megatron-Core's schedules and NeMo do. The copies, in both orientations, stay resident for the step.
    bool quantizedWeightCache = false;
    unsigned recomputeModules = 0; // RecomputeModule bits; selective checkpointing only
    // Full checkpointing of only this many layers a pipeline stage, the others keeping everything (Megatron's
    // --recompute-method block --recompute-num-layers); 0: every layer.
    int recomputeLayers = 0;
    // Mixed precision by torch.autocast over FP32 parameters (Hugging Face Trainer's bf16=True, Lightning's
    // "bf16-mixed", plain PyTorch loops): the residual stream stays FP32 and every linear layer casts its input and
    // weight to BF16 each micro-step. Off: BF16 working weights beside FP32 master weights in the optimizer
    // (Megatron-Core, TorchTitan's FSDP2 mixed-precision policy, nanotron).
    bool autocast = false;
    // Optimizer-state offload (Megatron-Core's --optimizer-cpu-offload with --optimizer-offload-fraction F; torch
    // FSDP's CPUOffload at F = 1; DeepSpeed's ZeRO-Offload): this share of the FP32 master weights and Adam moments
    // lives in host memory and its update runs on the CPU. 0 (default): none.
    double optimizerOffloadFraction = 0;
    // Activation offload (Megatron-Core's fine-grained activation offloading of named modules, torchao's and
    // TorchTitan's activation offloading, FSDP with activations offloaded to the host): this share of the
    // activations saved for backward is copied to host memory in forward and back in backward. 0 (default): none;
    // 1: all of them.
    double activationOffloadFraction = 0;
    unsigned activationOffloadModules = 0; // OffloadModule bits: Megatron-Core's --offload-modules
    // DDP and ZeRO-1: the gradients reduced in buckets while the backward pass still runs (PyTorch DDP's default,
    // Megatron-LM's --overlap-grad-reduce, which is off unless asked); off, the whole sync waits for the backward.
    bool overlapGradReduce = true;
    // ZeRO-1: the updated weights all-gathered under the next step's forward (Megatron-LM's --overlap-param-gather,
    // off unless asked); off, the gather runs between the optimizer and the next forward.
    bool overlapParamGather = true;
};

// Offload shares are fractions: 0 (none) to 1 (all). Scenario files, the command line and the cost model check
// with this.
inline bool isOffloadFraction(double f)
{
    return f >= 0.0 && f <= 1.0;
}

// A throughput the user measured, overlaid on sweeps and used for calibration.
struct MeasuredPoint {
    std::string label;
    int64_t seqLen = 0;
    int gpuCount = 0;
    TrainingPrecision precision = TrainingPrecision::BF16;
    double mfu = 0; // fraction of 1
};

// The money inputs (Cost panel, core/money): a job as a token budget or as days of the cluster, and an MFU uplift.
// Part of the scenario so that edits are undoable and saved with it.
struct CostInputs {
    std::optional<double> tokenBudget; // wins over days when both are set
    std::optional<double> days;
    std::optional<double> baselineMfu; // fraction of 1; empty: the scenario's measured or predicted MFU
    std::optional<double> targetMfu;
};

struct Scenario {
    ModelSpec model;
    ClusterSpec cluster;
    Workload workload;
    TrainingPrecision precision = TrainingPrecision::BF16;
    Parallelism parallelism;
    ActivationCheckpointing activationCheckpointing = ActivationCheckpointing::None;
    FrameworkFlags flags;
    FlopFormula mfuFormula = kDefaultFlopFormula; // the FLOP/token convention MFU is reported in
    // The cost model's constants for cluster.hardware: calibrated, edited, read from the scenario file or from the
    // hardware's preset entry. Empty: the defaults by vendor and generation (costModelConstantsFor).
    std::optional<CostModelConstants> costModel;

    // What the run achieved, when known (Calculator panel input).
    std::optional<Throughput> measuredThroughput;
    std::vector<MeasuredPoint> measuredPoints;

    std::optional<double> pricePerGpuHourUsd; // overrides the hardware preset's typical price
    double effectivePricePerGpuHourUsd() const
    {
        return pricePerGpuHourUsd ? *pricePerGpuHourUsd : cluster.hardware.pricePerGpuHourUsd;
    }
    CostInputs cost;
};

} // namespace mfu
