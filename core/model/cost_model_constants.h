#pragma once
// Every efficiency and overhead figure the cost model uses, in one editable struct. A scenario may carry its own for
// its hardware (Scenario::costModel: calibrated, stored in the scenario file, or from a hardware preset's
// "cost_model"); when it does not, defaultCostModelConstants() picks documented defaults by vendor and generation.
// Beside the hardware spec, below the scenario and the presets that carry it; the cost model reads it
// (core/costmodel/constants.h: costModelConstantsFor).
// Justifications: docs/cost-model.md, "Constants".
#include <string>

namespace mfu {

struct HardwareSpec;

struct CostModelConstants {
    // Dense GEMMs: achieved fraction of the dense peak for large, well-shaped matmuls (cuBLAS/cuBLASLt).
    double gemmEfficiency = 0.675;
    // Shape penalty: a GEMM whose smaller weight dimension per GPU is d runs at d / (d + gemmHalfSaturationDim) of
    // gemmEfficiency (tile and wave quantisation, lower arithmetic intensity after TP slices the weights).
    double gemmHalfSaturationDim = 384;
    // A lone GPU's GEMMs (a one-GPU run: no collective kernels sharing its SMs and HBM, no neighbours sharing the
    // node's power budget), replacing the two figures above: measured on four traced single-H200 training steps
    // (hidden sizes 1,024-4,096, 16k-32k tokens a micro-batch) at 70-79% of the dense peak with no shape penalty
    // visible from a width of 1,024. 0 where no lone GPU was measured: the published runs' fit holds there.
    double isolatedGemmEfficiency = 0;
    double isolatedGemmHalfSaturationDim = 0;
    // A lone GPU's tensor-core kernels (GEMMs and attention) slow down as they fill more of its busy time: the GPU
    // holds its power limit by lowering its clock, and the memory-bound kernels between them draw less power. Their
    // time is multiplied by 1 + slowdown x max(0, share - knee), share = (matmul + attention + recompute) over those
    // plus the memory-bound work, from the step's own uncalibrated terms. Fitted on the same four traced steps
    // (shares 0.66-0.85), where the compiled 8B step's GEMMs and attention both ran 4-5% slower than the eager step's
    // on the same cuBLAS and cuDNN kernels. 0: not measured (the published runs' fit carries their clocks).
    double isolatedTensorCoreSlowdown = 0;
    double isolatedTensorCoreShareKnee = 0;
    // FP8 GEMMs reach a lower fraction of their (doubled) peak than BF16 ones.
    double fp8GemmEfficiencyRatio = 0.80;
    // FP8 and FP4 linear layers lose more to a narrow weight dimension d than BF16 ones, by d / (d + this x (s - 1)),
    // s their rate over BF16's (linearGemmPeak): the per-tile fixed time stays while the MMAs speed up. Measured on an
    // H200 (bench/gpu/gemm_shape_laws.py, 2026-11-30): per-tensor FP8 over BF16 at d = 256-1,024 follows d / (d +
    // 110); at the model's FP8 speed-up of 1.6, 110 / 0.6.
    double fastFormatGemmHalfSaturationDim = 183;
    // FP8 cast/scale passes: bytes moved per GEMM operand element (read bf16, write fp8, amax).
    double fp8CastBytesPerElement = 3.0;

    // Flash attention (causal; the executed FLOPs are half the full S x S square). Backward efficiency is quoted
    // against 2x the forward FLOPs and absorbs the kernel's internal recomputation of Q.K^T.
    double attentionForwardEfficiency = 0.55;
    double attentionBackwardEfficiency = 0.35;
    // Attention split into context-parallel chunks, K and V all-gathered first (Parallelism::cpComm allgather): each
    // rank's kernel calls over its chunks and the merge of their partial outputs run at this share of unsplit
    // attention (fitted on TorchTitan's Llama 3.1 8B at 128k on 8 H100 with CP 4; docs/cost-model.md, Validation).
    double contextParallelAttentionEfficiency = 0.70;
    // ... and in a P2P ring (Transformer Engine's context parallelism under Megatron-Core: one fused kernel per ring
    // step over load-balanced chunks, the exchange asynchronous): fitted on MoE Parallel Folding's Mixtral 8x22B at
    // 32k with CP 8, the ring's exposure at its judged contextParallelRingExposedFraction and its hop across nodes at
    // one NIC; the grid's best is its bound, 1 (docs/cost-model.md, "Interleaved schedules, CP rings and recompute"):
    // the shorter kernels of the ring's steps cost what the kernel-length curve says, nothing more.
    double contextParallelRingAttentionEfficiency = 1.0;
    // Fused attention kernels approach their plateau as the keys per call grow: s / (s + this) of it.
    double attentionHalfSaturationSeq = 256;
    // Unfused attention (scores materialised in HBM, Megatron-LM before 2022): bytes moved per score element and
    // layer, forward + backward: scores written, softmax read and written, read by the second batched GEMM (8 B
    // forward) and about twice that backward.
    double unfusedAttentionBytesPerScore = 24;
    // Token mixers beyond attention (core/model/token_mixers.h), as a fraction of the BF16 dense peak. The chunked
    // linear-attention and Mamba-2 kernels (flash-linear-attention, mamba_ssm: Triton, 64-wide tiles) on the matmul
    // FLOPs they execute (core/model/chunked_scans.h); their HBM traffic, timed at hbmEfficiency, binds first at
    // today's shapes, so this rate matters only past ~150 FLOP per byte. The sparse-attention indexer, on the FLOP
    // count formulas.md gives it, streams every key's index vector. Judgement, not validated against published runs.
    double recurrentMixerEfficiency = 0.40;
    double sparseIndexerEfficiency = 0.30;

    // Memory-bound kernels: achieved fraction of HBM bandwidth.
    double hbmEfficiency = 0.80;
    // Elementwise/norm traffic per token per layer (forward + backward), in passes over a hidden-size bf16 vector,
    // and over an FFN-size vector. Compiled (torch.compile/Inductor fuses norms, residual adds, SwiGLU).
    double elementwiseHiddenPassesCompiled = 16;
    double elementwiseFfnPassesCompiled = 8;
    double elementwiseHiddenPassesEager = 64;
    double elementwiseFfnPassesEager = 24;
    // Eager with fused RMSNorm, SwiGLU and RoPE kernels (Liger Kernel; FrameworkFlags::fusedNormActivation): the
    // SwiGLU reads gate and up and writes the product (3 FFN-vector passes forward, 5 backward: 8, as compiled); each
    // norm reads and writes once forward and reads two, writes one backward, RoPE runs in place; what stays unfused
    // are the residual adds and casts between them: compiled's 16 plus 8.
    double elementwiseHiddenPassesFusedKernels = 24;
    double elementwiseFfnPassesFusedKernels = 8;
    // AdamW bytes per parameter shard per step: fused (one pass) and multi-tensor (foreach) implementation.
    // Loss: bytes moved per logit (forward + backward): compiled keeps bf16 logits and fuses the softmax/grad,
    // eager upcasts to FP32 and materialises the softmax gradient.
    double lossBytesPerLogitCompiled = 8;
    double lossBytesPerLogitEager = 20;
    double optimizerBytesPerParamFused = 28;
    double optimizerBytesPerParamUnfused = 56;
    // torch.autocast over FP32 weights (FrameworkFlags::autocast), counted op by op for a TorchTitan-style decoder
    // (docs/cost-model.md, "Memory-bound work under autocast"): bytes per token and layer, forward and backward, per
    // element of the hidden vector (FP32 residual adds, norms, the BF16 casts of each linear layer's input and their
    // FP32 gradients), of the FFN vector (SiLU and the gate product), and of the query heads (RoPE over FP32 tables,
    // K and V expanded to the query heads, the attention output's layout copy, the attention backward's
    // preprocessing); bytes per logit of the FP32 loss; bytes per parameter each micro-step (the weight's BF16 cast
    // and its gradient's FP32 cast). Eager from the count; compiled from the kernels of a traced torch.compile step.
    double autocastEagerBytesPerHidden = 196;
    double autocastEagerBytesPerFfn = 28;
    double autocastEagerBytesPerQuery = 150;
    double autocastEagerLossBytesPerLogit = 36;
    double autocastCompiledBytesPerHidden = 69;
    double autocastCompiledBytesPerFfn = 14;
    double autocastCompiledBytesPerQuery = 116;
    double autocastCompiledLossBytesPerLogit = 11;
    // Eager only: a per-head q/k RMSNorm (Qwen3, OLMo 2) gets the BF16 output of its linear layer and an FP32 weight,
    // so PyTorch runs its composite form (FP32 upcast, pow, mean, rsqrt, two multiplies, a cast back) instead of the
    // fused kernel, forward and backward: bytes per query and key element, at eagerHbmEfficiency, measured on a traced
    // eager Qwen3-0.6B-shaped step on an H200 (docs/cost-model.md, "Memory-bound work under autocast").
    double autocastEagerBytesPerQkNormElement = 143;
    double autocastWeightCastBytesPerParam = 12;
    // Achieved fraction of HBM bandwidth of eager PyTorch's many small elementwise kernels (broadcasts, strided
    // slices, FP32 intermediates): measured on two traced eager steps on H200. The eager pass counts without
    // autocast above were set against a published profile at hbmEfficiency and absorb the same inefficiency.
    double eagerHbmEfficiency = 0.57;

    // Interconnect: achieved fraction of the link bandwidth by large collectives, and per-hop latency.
    double scaleUpEfficiency = 0.80;
    double scaleOutEfficiency = 0.80;
    double scaleUpLatencySeconds = 4e-6;
    double scaleOutLatencySeconds = 12e-6;
    // Rings that can cross a domain boundary at once, one per NIC rail (8 on an HGX node): a collective whose group
    // spans domains moves its data at up to this many times the per-GPU NIC bandwidth, capped by the scale-up link.
    int crossDomainRings = 8;
    // Share of communication that stays exposed even when compute could hide it, with one layer of FSDP prefetch
    // (late issue, stream ordering, SM contention). Divided by the prefetch depth.
    double fsdpPrefetchExposedFraction = 0.12;
    // Offload to host memory (docs/cost-model.md, "Offload to host memory"). The host link (HardwareSpec's
    // hostLinkBytesPerSec: PCIe or NVLink-C2C) reaches this share of its figure with pinned buffers, like the other
    // links.
    double hostLinkEfficiency = 0.80;
    // Share of the activation offload's copies that stays exposed where compute could hide them: the copy engines
    // overlap the next layer's forward (and prefetch ahead of backward), but each layer's copy is waited on before its
    // buffer is freed or used. A judgement, like fsdpPrefetchExposedFraction; not validated.
    double hostOffloadExposedFraction = 0.15;
    // The CPU optimizer's (DeepSpeed's CPU Adam, Megatron-Core's HybridDeviceOptimizer) host-memory bytes per second,
    // per GPU, at optimizerBytesPerParamFused per parameter: about half the DRAM bandwidth a GPU's share of an HGX
    // host has (two Xeon 8480C sockets with 8 channels of DDR5-4800 each, 614 GB/s for 8 GPUs: 77 GB/s). A
    // judgement; a Grace host (512 GB/s for 2 GPUs) is faster: set it per preset.
    double cpuOptimizerBytesPerSec = 40e9;
    // Share of TP communication left exposed by PyTorch's async TP (TpOverlap::SymmetricMemory: each collective and
    // its matmul split into TP chunks on SymmetricMemory). Fitted on TorchTitan's two BF16 pairs of the same layout
    // with and without it (Llama 3.1 8B TP 8 on 64 H100: 1.099x; 70B TP 8 on 256 H100: 1.092x; in sample), where
    // 0.30 had predicted 1.17x and 1.15x (docs/cost-model.md, "Async TP by its implementation").
    double asyncTpExposedFraction = 0.55;
    // The same share for Transformer Engine's userbuffers overlap (TpOverlap::Userbuffers, Megatron-Core's and
    // NeMo's --tp-comm-overlap). A judgement, as the other overlapped streams: it hides most of the traffic, not
    // all; NeMo's MLPerf rows run it and were not fitted.
    double tpCommOverlapExposedFraction = 0.30;
    // Share of context-parallel K/V traffic that attention compute cannot hide. All of it: Llama 3's context
    // parallelism all-gathers K and V before attention and "the all-gather communication latency is exposed in the
    // critical path" (Llama Team 2024, The Llama 3 Herd of Models, 3.3.2); TorchTitan gathers the same way. The P2P
    // ring (Parallelism::cpComm p2p) has its own share, below.
    double contextParallelExposedFraction = 1.0;
    // The P2P ring's share: each step's send and receive run while the previous chunk's attention computes
    // (Megatron-Core's --cp-comm-type help: "P2P is async and can be overlapped with attention compute"); what shows
    // is the first step's exchange and the SMs the copies take. A judgement, as for the other overlapped streams
    // (tpCommOverlapExposedFraction, pipelineP2pExposedFraction).
    double contextParallelRingExposedFraction = 0.30;
    // Share of pipeline point-to-point traffic left exposed.
    double pipelineP2pExposedFraction = 0.30;
    // Share of MoE all-to-all left exposed (dispatch/combine sit on the critical path).
    double expertAllToAllExposedFraction = 0.80;
    // With the all-to-alls overlapped against another micro-batch's compute (Parallelism::expertOverlap), the
    // share of the overlapped part that still shows (launch, synchronisation, SMs given to communication).
    double expertOverlapExposedFraction = 0.10;
    // Dropless routing: the busiest expert group of a micro-batch receives this many times the mean tokens, and the
    // others wait for it at the combine (grouped GEMMs and the all-to-all alike).
    double expertLoadImbalance = 1.10;
    // Grouped GEMMs of the routed experts (docs/cost-model.md, "Grouped GEMMs"): a narrow expert (its width per
    // expert-TP rank, or the hidden size, whichever is smaller: the K of the down projection, the N of the up
    // projections) runs at width / (width + W) of gemmEfficiency. W grows with the tensor cores' speed: a short main
    // loop amortises the same prologue, epilogue and per-group scheduling over less work the faster the MMAs run;
    // per PFLOP/s of the BF16 dense peak.
    double groupedGemmHalfSaturationDimPerPflops = 1100;
    // An expert that receives few tokens streams its weights: m tokens do m FLOPs per weight byte read. Measured on
    // an H200 (torch._grouped_mm, forward and backward, bench/gpu/gemm_shape_laws.py, 2026-11-30): the rate follows
    // 1 / sqrt(1 + (m* / m)^2) of its plateau with m* = 300-320 tokens for experts 1,536-2,880 wide. The ridge is
    // the GEMM rate over the weight-streaming rate; at Hopper's gemmEfficiency this share of the achieved HBM rate
    // (4.8 TB/s x hbmEfficiency) puts it at 305 tokens on the H200.
    double groupedGemmWeightStreamShare = 0.60;
    // The grouped GEMM kernels' own plateau as a share of the dense rate (BF16 peak x gemmEfficiency): on an H200,
    // torch._grouped_mm ran the experts of five MoE models at 591-642 TFLOP/s with 4,096-8,192 tokens each, 0.85-0.91
    // of Hopper's 0.71 x 989 (bench/gpu/gemm_shape_laws.py, 2026-11-30); the lowest is taken. The GEMM term charges
    // the routed experts at this share x the token factor; what the width law charges beyond that is the MoE layer's
    // routing work (the permutation's gathers and scatters, the routing weights' multiply, padding, per-expert
    // launches), which a trace shows as memory-bound kernels, and the step books it there (docs/cost-model.md,
    // "Grouped GEMMs").
    double groupedGemmKernelPlateauShare = 0.85;
    // Token permutation and unpermutation around the experts, memory-bound: bytes per element of the (k + 1) hidden
    // vectors a token becomes (permute: read 1, write k; unpermute: read k, write 1; BF16; forward and backward).
    double moePermuteBytesPerElement = 8;
    // What PyTorch's index kernels spend on the permutation beyond those bytes, per routed hidden element (a token's
    // k copies x the dispatched width), forward and backward, in bytes at the achieved HBM rate: the part of the MoE
    // routing work (MatmulTime::moeRoutingPerToken) a fused permutation (FrameworkFlags::moePermuteFusion) removes.
    // Measured on a traced H200 step of TorchTitan-style experts (bench/gpu/moe_training_step.py, 12 layers of 64
    // experts, top 8, hidden 2,048, 16,384 tokens): index_put, the gathers, index_add and the indexing backward took
    // 70.9 ms where the fused kernels' bytes (moePermuteBytesPerElement) take 8.2 ms; 62.6 ms over 3.54e9 routed
    // elements (the model's busiest-expert load 1.1 included) at 4.8 TB/s x hbmEfficiency.
    double unfusedPermutationBytesPerRoutedElement = 68;
    // The router's softmax / sigmoid, top-k and their backward over FP32 logits: bytes per token and expert.
    double moeRouterBytesPerExpert = 32;
    // All-to-all dispatchers, achieved fraction of the link bandwidth (replacing scaleUp/scaleOutEfficiency for the
    // EP traffic). NCCL all-to-all (and the all-gather dispatcher's rings) ...
    double allToAllScaleUpEfficiency = 0.80;
    double allToAllScaleOutEfficiency = 0.80;
    // NCCL's all-to-all runs on a few channels (SMs) by default, each moving a bounded rate: per GPU it moves at most
    // this over NVLink however fast the links are.
    double allToAllMaxBytesPerSec = 200e9;
    // ... and DeepEP's normal kernels (DeepEP README: 153-158 GB/s over H800 NVLink, 726-740 GB/s over B200 NVLink 5;
    // 43-58 GB/s RDMA across nodes on 400 Gb/s CX7), which HybridEP is taken to match.
    double deepEpScaleUpEfficiency = 0.80;
    double deepEpScaleOutEfficiency = 0.90;
    // Fixed cost of one dispatch or combine: launches and the host synchronisation that sizes the receive buffers.
    double expertDispatchLatencySeconds = 30e-6;
    // Megatron-Core's 1F1B all-to-all overlap (--overlap-moe-expert-parallel-comm): the share of the overlapped part
    // that still shows (DualPipe's is expertOverlapExposedFraction).
    double expertOneFOneBExposedFraction = 0.30;
    // FP8 recipes beside the per-tensor one fp8GemmEfficiencyRatio describes: GEMMs with DeepSeek-V3's blockwise
    // scales (dequantised in the main loop on Hopper) and with MXFP8 block scales (Blackwell tensor cores), as a
    // fraction of the per-tensor recipe's speed; their casts write the FP8 copy in both orientations with its scales.
    double fp8BlockwiseGemmRatio = 0.95;
    double fp8MxGemmRatio = 1.0;
    // TorchAO's rowwise-scaled FP8 GEMMs (torch._scaled_mm with a scale per row and per column: CUTLASS kernels that
    // apply the scales in the epilogue, where the per-tensor recipe runs cuBLAS), as a fraction of the per-tensor
    // recipe's speed. Fitted on one published pair, TorchAO's Llama 3 8B on 8 H100 (rowwise with a BF16 all-gather,
    // 6,768, against tensorwise with the float8 all-gather, 7,689.5 tokens/s per GPU; docs/cost-model.md, "FP8
    // rowwise scaling").
    double fp8RowwiseGemmRatio = 0.82;
    double fp8BlockCastBytesPerElement = 4.0;
    // FP4 linear layers (BF16+FP4 runs): GEMMs at this share of the FP4 dense peak (x gemmEfficiency), the FP8
    // recipe's 0.80 less again: the block-scaled MMA runs twice FP8's rate while the scale-factor loads, the main
    // loop's prologue and the epilogue do not shrink (judgement; docs/cost-model.md checks it against MLPerf
    // Training v5.1's NVFP4 rows without fitting it). MXFP4's GEMMs run at the same rate (one block-scaled MMA).
    double fp4GemmEfficiencyRatio = 0.70;
    // Bytes moved per GEMM operand element to quantise it. NVFP4: an amax pass (read BF16, 2; the Hadamard-transformed
    // column copy's amax in the same read), then the cast (read 2, write the 4-bit values and an E4M3 scale per 16 in
    // both orientations, 2 x (0.5 + 1/16)): 5.125. MXFP4: no per-tensor amax, an E8M0 scale per 32: 2 + 2 x (0.5 +
    // 1/32) = 3.0625.
    double nvfp4CastBytesPerElement = 5.125;
    double mxfp4CastBytesPerElement = 3.0625;
    // Residual bubble of a zero-bubble schedule, as a fraction of the 1F1B bubble.
    double zeroBubbleResidual = 0.15;

    // Fixed costs.
    double perLayerOverheadSecondsCompiled = 15e-6; // launches and host work per layer per micro-batch pass
    double perLayerOverheadSecondsEager = 60e-6;
    double perStepOverheadSeconds = 0.02; // data loading, logging, grad-norm clipping, synchronisation
    // The CPU's time to issue one MoE transformer layer's forward after its dispatch has synchronised with the host
    // (ExpertHostSync): the GPU runs that layer no faster. Eager Megatron-Core with Transformer Engine and DeepEP on
    // an x86 host; fitted on one published row, the Megatron-MoE-ModelZoo's Qwen3-235B-A22B with TP 4 and EP 8 on 256
    // H100 (docs/cost-model.md, "The host after each MoE dispatch").
    double moeLayerHostSeconds = 5.4e-3;

    // Memory.
    double runtimeReservedBytes = 4e9; // CUDA context, NCCL buffers, cuBLAS workspaces
    double allocatorFragmentation = 0.05; // share of the dynamic peak lost to the caching allocator
    // Torch-titan-style selective (op-level) checkpointing keeps every other matmul output.
    double selectiveKeptMatmulFraction = 0.5;

    int gpusPerNode = 8; // for "per node" figures: an HGX board, or a compute tray of a rack-scale system
    std::string basis; // which default set this came from, for display
};

// Defaults for a device, keyed by vendor and generation (docs/cost-model.md says why each differs).
CostModelConstants defaultCostModelConstants(const HardwareSpec& hardware);

} // namespace mfu
