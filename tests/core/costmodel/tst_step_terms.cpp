// Each term of the step time (core/costmodel/*_terms.h, *_comm.h) on a context stated by hand with round numbers,
// against the answer worked out in the comment above each check. The context: 10 layers a stage of width 1,000,
// 1,000 tokens per micro-batch, a 1 PFLOP/s BF16 peak (2 PFLOP/s FP8), 1 TB/s of achieved HBM bandwidth, 100 GB/s
// scale-up links in domains of 8 GPUs and 10 GB/s to the next domain, no latency unless a test sets it.
#include <QtTest>

#include <cmath>

#include "core/costmodel/attention_terms.h"
#include "core/costmodel/compute_terms.h"
#include "core/costmodel/cost_model.h"
#include "core/costmodel/data_parallel_comm.h"
#include "core/costmodel/expert_parallel_comm.h"
#include "core/costmodel/memory_bound_terms.h"
#include "core/costmodel/model_parallel_comm.h"
#include "core/costmodel/offload_terms.h"
#include "core/costmodel/overhead_terms.h"
#include "core/costmodel/overlap.h"
#include "core/costmodel/physical_bounds.h"
#include "core/costmodel/pipeline_terms.h"
#include "core/costmodel/recompute_terms.h"
#include "core/costmodel/step_context.h"
#include "core/costmodel/step_memory.h"
#include "core/costmodel/sweep.h"
#include "core/scenario/ignored_settings.h"
#include "costmodel_fixtures.h"

using namespace mfu;
using namespace mfu::test;

namespace {

// A dense model of 10 layers: hidden 1,000, 8 heads of 128 (Q 1,024 wide, K and V 1,024 each: MHA), FFN 3,000
// (SwiGLU), vocabulary 3,000. Forward FLOP per token of one layer: QKV 2 x 1,000 x 3,072, output 2 x 1,024 x 1,000,
// FFN 3 x 2 x 1,000 x 3,000.
ModelShape handShape()
{
    ModelShape sh;
    sh.layers = 10;
    sh.vocab = 3000;
    sh.layer.hidden = 1000;
    sh.layer.heads = 8;
    sh.layer.kvHeads = 8;
    sh.layer.qkHeadDim = 128;
    sh.layer.vHeadDim = 128;
    sh.layer.ffnDim = 3000;
    sh.qkvOut = 3072;
    sh.attnOut = 1024;
    sh.ffnWidth = 3000;
    sh.qkvFlops = 2.0 * 1000 * 3072;
    sh.outProjFlops = 2.0 * 1024 * 1000;
    sh.ffnFlops = 6.0 * 1000 * 3000;
    sh.activeLinearParamsPerLayer = (sh.qkvFlops + sh.outProjFlops + sh.ffnFlops) / 2.0;
    sh.totalParams = 1e9;
    sh.fullAttentionShare = 1.0;
    return sh;
}

// Efficiencies chosen so the arithmetic stays round: GEMMs at half the peak, half of that again at a limiting
// dimension of 1,000; attention at 0.5 forward, 0.25 backward, whatever the sequence.
CostModelConstants handConstants()
{
    CostModelConstants c;
    c.gemmEfficiency = 0.5;
    c.gemmHalfSaturationDim = 1000;
    c.fp8GemmEfficiencyRatio = 0.5;
    c.fastFormatGemmHalfSaturationDim = 0; // fastFormatsLoseMoreToNarrowLayers sets it
    c.attentionForwardEfficiency = 0.5;
    c.attentionBackwardEfficiency = 0.25;
    c.attentionHalfSaturationSeq = 0;
    c.contextParallelAttentionEfficiency = 0.5;
    // Grouped GEMMs at a 1 PFLOP/s peak: half efficiency at a width of 500; weights streamed at the full 1 TB/s of
    // the hand context's HBM, so the ridge is 5e14 / 1e12 = 500 tokens per expert.
    c.groupedGemmHalfSaturationDimPerPflops = 500;
    c.groupedGemmWeightStreamShare = 1.0;
    c.expertDispatchLatencySeconds = 0;
    return c;
}

struct Hand {
    Scenario scenario;
    ModelShape shape = handShape();
    CostModelConstants constants = handConstants();
    StepContext x;
    Hand()
    {
        scenario.workload.seqLen = 1000;
        scenario.workload.microBatch = 1;
        // Links the dispatchers read (at the constants' 0.8: 100 GB/s and 10 GB/s achieved).
        scenario.cluster.hardware.scaleUpBandwidthBytesPerSec = 125e9;
        scenario.cluster.hardware.scaleOutBandwidthBytesPerSec = 12.5e9;
        x.scenario = &scenario;
        x.shape = &shape;
        x.constants = &constants;
        x.peakBf16 = 1e15;
        x.peakFp8 = 2e15;
        x.family = AcceleratorFamily::Other; // FlashAttention 2 at the constants' efficiency
        x.tiers.scaleUpBytesPerSec = 100e9;
        x.tiers.scaleOutBytesPerSec = 10e9;
        x.tiers.scaleUpLatency = 0;
        x.tiers.scaleOutLatency = 0;
        x.tiers.domainGpus = 8;
        x.tiers.crossDomainRings = 1;
        x.gpus = 8;
        x.domain = 8;
        x.seq = 1000;
        x.tokensPerMicroBatch = 1000;
        x.moeTokensPerMicroBatch = 1000;
        x.layersPerStage = 10;
        x.hbmBytesPerSec = 1e12;
        x.fsdpUnits = 11;
    }
    // Memory inputs of a rank that holds `params` parameters, its optimizer state sharded over 8 ranks.
    StepMemoryInputs memoryInputs(double params)
    {
        StepMemoryInputs in;
        in.shape = &shape;
        in.constants = &constants;
        in.scenario = &scenario;
        in.modelParallelParams = params;
        in.optimizerGroup = 8;
        return in;
    }
    void setTp(int tp)
    {
        scenario.parallelism.tp = tp;
        x.tp = tp;
        x.sequenceParallel = tp > 1 && scenario.parallelism.sequenceParallel;
        x.moeTokensPerMicroBatch = x.tokensPerMicroBatch / tp;
    }
    void setFullCheckpointing()
    {
        scenario.activationCheckpointing = ActivationCheckpointing::Full;
        x.fullRecomputeShare = 1;
    }
    // 16 experts of width 500, 2 per token, every layer MoE and wholly routed, dispatched at the hidden size.
    void makeMoe(int ep)
    {
        shape.experts = 16;
        shape.expertsPerToken = 2;
        shape.ffnWidth = 500;
        shape.denseFfnWidth = 3000;
        shape.routedFfnShare = 1.0;
        shape.moeLayerShare = 1.0;
        shape.expertDispatchWidth = 1000;
        shape.layer.routedFfnDim = 3000;
        shape.expertParamsPerLayer = 72e6; // 16 experts of 3 x 1,000 x 1,500: 8 times the 2 a token activates
        scenario.parallelism.ep = ep;
        x.ep = ep;
        x.expertLoad = 1.1;
    }
};

} // namespace

class TestStepTerms : public QObject {
    Q_OBJECT
private slots:
    void contextFromAScenario()
    {
        // Llama 3.1 8B (32 layers) on 64 H100, TP 2 x PP 3 is refused by the cost model, so PP 4 x CP 2: 64 / (2 x 4 x
        // 2) = 4 FSDP shards, 8 FSDP-group ranks (shards x CP), 32 / 4 = 8 layers a stage, 2 x 8,192 / 2 = 8,192 tokens
        // per micro-batch; a 1M-token batch over micro-steps of 2 x 8,192 x 4 = 65,536 tokens: 16 micro-batches.
        Scenario s = scenarioFor(llama31_8b(), "h100-sxm", 64, 8192, 2, ActivationCheckpointing::None, 1, 2);
        s.parallelism.pp = 4;
        s.parallelism.cp = 2;
        s.workload.globalBatchTokens = 1 << 20;
        const CostModel model(s);
        const CostModelConstants c = costModelConstantsFor(s);
        const StepContext x = stepContextFor(s, model.shape(), c, 989e12, 1979e12, AcceleratorFamily::Hopper);
        QCOMPARE(x.fsdpGroup, 8);
        QCOMPARE(x.dataParallel, 4.0);
        QCOMPARE(x.layersPerStage, 8.0);
        QCOMPARE(x.tokensPerMicroBatch, 8192.0);
        QCOMPARE(x.tokensPerMicroStep, 65536.0);
        QCOMPARE(x.microBatches, 16.0);
        QVERIFY(x.sequenceParallel);
        QCOMPARE(x.fsdpUnits, 9.0);
        // Dense: every parameter split by TP and PP: N / 8.
        QCOMPARE(x.modelParallelParams, model.shape().totalParams / 8.0);
        QCOMPARE(x.hbmBytesPerSec, s.cluster.hardware.hbmBandwidthBytesPerSec * c.hbmEfficiency);
        // 33 layers over PP 4 rounds up to 9 a stage: the slowest stage sets the pace.
        ModelShape odd = model.shape();
        odd.layers = 33;
        QCOMPARE(stepContextFor(s, odd, c, 989e12, 0, AcceleratorFamily::Hopper).layersPerStage, 9.0);
    }

    void matmuls()
    {
        Hand h;
        // Every limiting dimension is 1,000 (tokens, hidden): shape factor 1,000 / (1,000 + 1,000) = 0.5, so every
        // GEMM runs at 1e15 x 0.5 x 0.5 = 2.5e14 FLOP/s.
        QCOMPARE(gemmShapeFactor(1000, h.constants), 0.5);
        QCOMPARE(gemmShapeFactor(3000, h.constants), 0.75);
        const MatmulTime m = matmulTime(h.x, llama31_8b());
        // One layer: (6.144e6 + 2.048e6 + 18e6) FLOP / 2.5e14 FLOP/s = 1.04768e-7 s per token.
        QCOMPARE(m.layerForwardPerToken, 26.192e6 / 2.5e14);
        // LM head: 2 x 1,000 x 3,000 / 2.5e14 = 2.4e-8 s per token. Forward: 1,000 tokens x (10 layers x 1.04768e-7
        // + 2.4e-8) = 1.07168e-3 s; with backward at twice the forward, 3.21504e-3 s.
        QCOMPARE(m.forward, 1000 * (10 * 26.192e6 / 2.5e14 + 2.4e-8));
        QCOMPARE(m.total(), 3 * 1.07168e-3);
        QCOMPARE(m.visionTraining, 0.0);
        // TP 2 halves the FLOPs per GPU and narrows the output projection's input to 512 (factor 512 / 1,512); the
        // QKV projection (1,536 wide) and the FFN (1,500) stay limited by the 1,000 tokens and the hidden size.
        h.setTp(2);
        const MatmulTime t = matmulTime(h.x, llama31_8b());
        const double qkv = 6.144e6 / 0.5, out = 2.048e6 / (512.0 / 1512.0), ffn = 18e6 / 0.5;
        QCOMPARE(t.layerForwardPerToken, (qkv + out + ffn) / (2 * 5e14));
        // BF16+FP8: linear layers on 2e15 x 0.5 (fp8GemmEfficiencyRatio) = the BF16 peak here, so unchanged.
        h.setTp(1);
        h.x.fp8 = true;
        QCOMPARE(matmulTime(h.x, llama31_8b()).layerForwardPerToken, m.layerForwardPerToken);
    }

    void fastFormatsLoseMoreToNarrowLayers()
    {
        Hand h;
        h.constants.fastFormatGemmHalfSaturationDim = 1000;
        // BF16: the linear layers' factor is the GEMM law's, whatever the constant.
        QCOMPARE(linearShapeFactor(1000, h.x, linearGemmPeak(h.x)), 0.5);
        // FP8 at 4e15 x 0.5 (fp8GemmEfficiencyRatio) x 0.5 = 1e15 FLOP/s, twice BF16's 5e14: an extra d / (d + 1,000 x
        // (2 - 1)), so 0.5 x 0.5 at 1,000 and 0.75 x 0.75 at 3,000.
        h.x.fp8 = true;
        h.x.peakFp8 = 4e15;
        const double fp8Peak = linearGemmPeak(h.x);
        QCOMPARE(fp8Peak, 1e15);
        QCOMPARE(linearShapeFactor(1000, h.x, fp8Peak), 0.25);
        QCOMPARE(linearShapeFactor(3000, h.x, fp8Peak), 0.5625);
        // Every limiting dimension of the hand layer is 1,000: twice the rate at half the factor, so the layer takes
        // as long as in BF16 (26.192e6 FLOP / (1e15 x 0.25)); the LM head stays BF16.
        QCOMPARE(matmulTime(h.x, llama31_8b()).layerForwardPerToken, 26.192e6 / 2.5e14);
        // With the constant at 0 the FP8 layer runs at its full speed-up.
        h.constants.fastFormatGemmHalfSaturationDim = 0;
        QCOMPARE(matmulTime(h.x, llama31_8b()).layerForwardPerToken, 26.192e6 / 5e14);
    }

    void expertMatmuls()
    {
        Hand h;
        h.makeMoe(4);
        // EP 4: each expert sees 1,000 x 2 x 4 / 16 = 500 tokens, at the ridge: grouped-GEMM factor (500 / (500 +
        // 500)) x 1 / sqrt(1 + 1) at a 1 PFLOP/s peak; the busiest expert runs at 1.1x the mean.
        const double atRidge = 1.0 / std::sqrt(2.0), halfRidge = 1.0 / std::sqrt(5.0);
        QCOMPARE(tokensPerExpert(h.x), 500.0);
        QCOMPARE(groupedGemmRidgeTokens(h.x), 500.0);
        QCOMPARE(groupedGemmShapeFactor(h.x), 0.5 * atRidge);
        const MatmulTime m = matmulTime(h.x, llama31_8b());
        // The width law's time splits: the grouped GEMMs at the kernels' plateau share (0.85) x the token factor,
        // the rest the experts' routing work, which the step books as memory-bound.
        const double routedGemms = 1.1 * 18e6 / (0.85 * atRidge) / 5e14;
        const double routedLaw = 1.1 * 18e6 / (0.5 * atRidge) / 5e14;
        QCOMPARE(groupedGemmKernelFactor(h.x), 0.85 * atRidge);
        QCOMPARE(m.layerForwardPerToken, (6.144e6 / 0.5 + 2.048e6 / 0.5) / 5e14 + routedGemms);
        QCOMPARE(m.routedExpertsPerToken, routedGemms);
        QCOMPARE(m.moeRoutingPerToken, routedLaw - routedGemms);
        QCOMPARE(m.moeRoutingForward, 1000.0 * 10 * (routedLaw - routedGemms));
        // A kernel share below the law's factor (never measured) leaves nothing to routing: the GEMMs take the law's
        // whole time.
        h.constants.groupedGemmKernelPlateauShare = 0.4;
        QCOMPARE(matmulTime(h.x, llama31_8b()).routedExpertsPerToken, routedLaw);
        QCOMPARE(matmulTime(h.x, llama31_8b()).moeRoutingPerToken, 0.0);
        h.constants.groupedGemmKernelPlateauShare = 0.85;
        // TP 2 folded with expert TP 1: a GPU routes its 500 sequence-parallel tokens, so each expert sees 250, half
        // the ridge (1 / sqrt(1 + 2^2)); expert TP 2 splits the width to 250 and every expert-TP rank sees all 500 of
        // the expert's.
        h.setTp(2);
        QCOMPARE(tokensPerExpert(h.x), 250.0);
        QCOMPARE(groupedGemmShapeFactor(h.x), 0.5 * halfRidge);
        h.x.expertTp = 2;
        QCOMPARE(tokensPerExpert(h.x), 500.0);
        QCOMPARE(groupedGemmShapeFactor(h.x), (250.0 / 750.0) * atRidge);
        // The width's half-saturation and the ridge scale with the BF16 peak: at 2 PFLOP/s they are 1,000 wide and
        // 1,000 tokens, so 500 tokens sit at half the ridge.
        h.x.expertTp = 1;
        h.setTp(1);
        h.x.peakBf16 = 2e15;
        QCOMPARE(groupedGemmRidgeTokens(h.x), 1000.0);
        QCOMPARE(groupedGemmShapeFactor(h.x), (500.0 / 1500.0) * halfRidge);
        // Twice the HBM rate halves the ridge again; far above it the factor tends to 1, far below to tokens / ridge.
        h.x.hbmBytesPerSec = 2e12;
        QCOMPARE(groupedGemmRidgeTokens(h.x), 500.0);
        QVERIFY(std::abs(groupedGemmTokenFactor(h.x, 5e5) - 1.0) < 1e-6);
        QVERIFY(std::abs(groupedGemmTokenFactor(h.x, 5.0) - 0.01) < 1e-6);
        QCOMPARE(groupedGemmTokenFactor(h.x, 0.0), 0.0);
    }

    void attention()
    {
        Hand h;
        // Causal: 500 keys per query on average. Forward FLOPs: 1,000 tokens x 10 layers x 2 x 500 x 8 heads x (128 +
        // 128) = 2.048e10, at 0.5 of 1e15: 4.096e-5 s; backward twice the FLOPs at 0.25: 1.6384e-4 s.
        const AttentionTime a = attentionTime(h.x);
        QVERIFY(!a.unfused);
        QCOMPARE(a.forward, 4.096e-5);
        QCOMPARE(a.backward, 1.6384e-4);
        // CP 2 at contextParallelAttentionEfficiency 0.5 doubles both (the same tokens per GPU here).
        h.scenario.parallelism.cp = 2;
        h.x.cp = 2;
        QCOMPARE(attentionTime(h.x).forward, 8.192e-5);
        // Megatron-Core's P2P ring at its own efficiency (here 0.8): forward 4.096e-5 / 0.8, backward 1.6384e-4 / 0.8.
        h.constants.contextParallelRingAttentionEfficiency = 0.8;
        h.scenario.parallelism.cpComm = ContextParallelComm::P2p;
        QCOMPARE(contextParallelAttentionEfficiency(h.x), 0.8);
        QCOMPARE(attentionTime(h.x).forward, 5.12e-5);
        QCOMPARE(attentionTime(h.x).backward, 2.048e-4);
        h.scenario.parallelism.cpComm = ContextParallelComm::AllGather;
        // Unfused (Megatron-LM before 2022): the full square at GEMM speed with the head-dimension factor 128 / 1,128,
        // plus 24 bytes per score over HBM (8 forward, 16 backward): forward 2 x 2.048e10 / (1e15 x 0.5 x 128/1128)
        // + 1e3 x 10 x 1e3 x 8 scores x 8 B / 1e12.
        h.scenario.parallelism.cp = 1;
        h.x.cp = 1;
        h.scenario.flags.attentionKernel = AttentionKernel::Unfused;
        const AttentionTime u = attentionTime(h.x);
        QVERIFY(u.unfused);
        const double bmm = 1e15 * 0.5 * (128.0 / 1128.0);
        QCOMPARE(u.forward, 2 * 2.048e10 / bmm + 8e7 * 8.0 / 1e12);
        QCOMPARE(u.backward, 4 * 2.048e10 / bmm + 8e7 * 16.0 / 1e12);
    }

    void recurrentMixersTakeTheirBytesOrTheirMatmuls()
    {
        Hand h;
        const AttentionTime attention = attentionTime(h.x);
        // A recurrence whose chunked kernels move 1e5 bytes and run 1e6 matmul FLOPs per token and layer: 1e4
        // token-layers move 1e9 bytes, 1e-3 s at 1 TB/s, against 1e10 FLOPs at 0.5 of 1e15, 2e-5 s. The bytes bind;
        // the backward takes twice the forward.
        h.shape.recurrentScanBytes = 1e5;
        h.shape.recurrentScanFlops = 1e6;
        h.constants.recurrentMixerEfficiency = 0.5;
        QCOMPARE(attentionTime(h.x).forward - attention.forward, 1e-3);
        // The backward's own kernels, recomputing the states first: 3e5 bytes, 3e-3 s (twice the matmuls, 4e-5 s).
        h.shape.recurrentScanBackwardBytes = 3e5;
        QCOMPARE(attentionTime(h.x).backward - attention.backward, 3e-3);
        // At 1,000 FLOPs per byte the matmuls bind: 1e12 FLOPs, 2e-3 s forward, twice that backward. TP 2 splits the
        // heads, and both, in half.
        h.shape.recurrentScanFlops = 1e8;
        QCOMPARE(attentionTime(h.x).forward - attention.forward, 2e-3);
        QCOMPARE(attentionTime(h.x).backward - attention.backward, 4e-3);
        h.setTp(2);
        const double withScan = attentionTime(h.x).forward;
        h.shape.recurrentScanFlops = h.shape.recurrentScanBytes = h.shape.recurrentScanBackwardBytes = 0;
        QCOMPARE(withScan - attentionTime(h.x).forward, 1e-3);
    }

    void packedDocumentsAttendWithinThemselves()
    {
        Hand h;
        // Two documents of 500 tokens fill each sequence: 250 keys per query instead of 500, half the attention.
        h.scenario.workload.packing.documents = { { 500, 2.0 } };
        QCOMPARE(overDocuments(h.x, [](const StepContext&, double d) { return d; }), 500.0);
        QCOMPARE(attentionTime(h.x).forward, 4.096e-5 / 2);
    }

    void memoryBoundWork()
    {
        Hand h;
        // Compiled: 16 passes over the hidden vector and 8 over the FFN's, 2 bytes each: 2 x 1,000 x 10 x (16 x 1,000
        // + 8 x 3,000) = 8e8 bytes, 8e-4 s at 1 TB/s; the compiled loss 8 bytes per logit: 1,000 x 3,000 x 8 = 2.4e7.
        const MemoryBoundTime m = memoryBoundTime(h.x);
        QCOMPARE(m.elementwiseBytes, 8e8);
        QCOMPARE(m.elementwise(), 8e-4);
        QCOMPARE(m.lossBytes, 2.4e7);
        QCOMPARE(m.fp8CastBytes, 0.0);
        QCOMPARE(m.total(), 8.24e-4);
        // Eager: 64 and 24 passes (2 x 1e4 x (64e3 + 72e3) = 2.72e9 bytes), the loss at 20 bytes per logit.
        h.scenario.flags.compiled = false;
        QCOMPARE(memoryBoundTime(h.x).total(), (2.72e9 + 6e7) / 1e12);
        // BF16+FP8 casts: 3 bytes per operand element of every GEMM (2 x 1,000 + 3,072 + 1,024 + 3 x 3,000 = 15,096
        // per token and layer) plus the active weights twice: 3 x (1e4 x 15,096 + 2 x 10 x 13.096e6).
        h.scenario.flags.compiled = true;
        h.x.fp8 = true;
        QCOMPARE(memoryBoundTime(h.x).fp8CastBytes, 3.0 * (1e4 * 15096.0 + 20 * 13.096e6));
        // Blocks of one sublayer, one in four attending, the others' recurrences projecting 2,000 elements in and out:
        // 1,000 + 4,096 / 4 + 2,000 + 9,000 = 13,024; an FFN without a gate casts 2 x 3,000 of its own, not 3 x.
        h.shape.layer.sublayersPerLayer = 1.0;
        h.shape.layer.keyValueLayerShare = 0.25;
        h.shape.recurrentProjectionWidth = 2000;
        QCOMPARE(memoryBoundTime(h.x).fp8CastBytes, 3.0 * (1e4 * 13024.0 + 20 * 13.096e6));
        h.shape.layer.gatedFfn = false;
        QCOMPARE(memoryBoundTime(h.x).fp8CastBytes, 3.0 * (1e4 * 10024.0 + 20 * 13.096e6));
    }

    // A layer of one sublayer has one norm and one residual add: half the hidden vector's passes (16 compiled: 2 x
    // 1,000 x 10 x 8 x 1,000 = 1.6e8 of the 8e8 bytes), the FFN's unchanged.
    void oneSublayerBlocksMakeHalfTheHiddenPasses()
    {
        Hand h;
        const double both = memoryBoundTime(h.x).elementwiseBytes;
        h.shape.layer.sublayersPerLayer = 1.0;
        QCOMPARE(both - memoryBoundTime(h.x).elementwiseBytes, 1.6e8);
    }

    // A recurrence's convolutions, norms and gates are elementwise kernels of their own: 1e5 bytes per token and layer
    // add 1e4 token-layers x 1e5 = 1e9 bytes (1e-3 s at 1 TB/s), compiled or eager; TP 2 splits them with the heads.
    void recurrentMixersAddTheirElementwiseKernels()
    {
        Hand h;
        const double without = memoryBoundTime(h.x).elementwiseBytes;
        h.shape.recurrentElementwiseBytes = 1e5;
        QCOMPARE(memoryBoundTime(h.x).elementwiseBytes - without, 1e9);
        h.scenario.flags.compiled = false;
        const double eager = memoryBoundTime(h.x).elementwiseBytes;
        h.shape.recurrentElementwiseBytes = 0;
        QCOMPARE(eager - memoryBoundTime(h.x).elementwiseBytes, 1e9);
        h.scenario.flags.compiled = true;
        h.setTp(2);
        const double tp2 = memoryBoundTime(h.x).elementwiseBytes;
        h.shape.recurrentElementwiseBytes = 1e5;
        QCOMPARE(memoryBoundTime(h.x).elementwiseBytes - tp2, 5e8);
    }

    void fusedExpertMlpDropsTheExpertsWidthPasses()
    {
        // The hand MoE model routes its whole 3,000-wide FFN through experts. Fused into the grouped GEMMs, their
        // activation passes go: 2 x 1,000 x 10 x 16 x 1,000 = 3.2e8 bytes of the hidden vector's passes stay, the 8
        // passes over the FFN width (4.8e8) go; the FP8 casts lose the experts' 3 x 3,000 operand elements a token:
        // 3 x (1e4 x 6,096 + 20 x 76.096e6), the weights those of attention (4.096e6) and of all 16 local experts
        // (72e6), not the 2 a token picks. The routing and permutation stay.
        Hand h;
        h.makeMoe(1);
        h.x.fp8 = true;
        const MemoryBoundTime before = memoryBoundTime(h.x);
        QCOMPARE(before.elementwiseBytes, 8e8);
        h.scenario.flags.fusedExpertMlp = true;
        const MemoryBoundTime fused = memoryBoundTime(h.x);
        QCOMPARE(fused.elementwiseBytes, 3.2e8);
        QCOMPARE(fused.fp8CastBytes, 3.0 * (1e4 * 6096.0 + 20 * 76.096e6));
        // With EP 4 a GPU holds, and casts, 4 of the 16 experts.
        h.makeMoe(4);
        QCOMPARE(memoryBoundTime(h.x).fp8CastBytes, 3.0 * (1e4 * 6096.0 + 20 * (4.096e6 + 18e6)));
        // The router (1,000 x 16 weights) is among a layer's linear weights but stays BF16: nothing more to cast.
        h.shape.routerFlops = 2.0 * 1000 * 16;
        h.shape.activeLinearParamsPerLayer += 1000 * 16;
        QCOMPARE(memoryBoundTime(h.x).fp8CastBytes, 3.0 * (1e4 * 6096.0 + 20 * (4.096e6 + 18e6)));
        h.shape.routerFlops = 0;
        h.shape.activeLinearParamsPerLayer -= 1000 * 16;
        h.makeMoe(1);
        QCOMPARE(fused.moeShuffleBytes, before.moeShuffleBytes);
        QVERIFY(fused.moeShuffleBytes > 0);
        // Routed experts two thirds of the FFN width (2,000 of 3,000), TP 2 with sequence parallelism: the hidden
        // passes 2 x 1e4 x 16 x 1,000 / 2 = 1.6e8 stay; the FFN passes go from 8 x 3,000 / 2 to 8 x 1,000 / 2 a
        // token and layer (2.4e8 -> 8e7 bytes).
        Hand partial;
        partial.makeMoe(1);
        partial.shape.layer.routedFfnDim = 2000;
        partial.setTp(2);
        QCOMPARE(memoryBoundTime(partial.x).elementwiseBytes, 1.6e8 + 2.4e8);
        partial.scenario.flags.fusedExpertMlp = true;
        QCOMPARE(memoryBoundTime(partial.x).elementwiseBytes, 1.6e8 + 8e7);
        // A dense model has no routed width: the switch changes nothing.
        Hand dense;
        dense.scenario.flags.fusedExpertMlp = true;
        QCOMPARE(memoryBoundTime(dense.x).elementwiseBytes, 8e8);
    }

    void fusedPermutationTakesTheIndexKernelsOffTheRouting()
    {
        // EP 4 as in expertMatmuls: routing work 1.1 x 18e6 / 5e14 x (1 / (0.5 x a) - 1 / (0.85 x a)) a token and
        // layer, a = 1 / sqrt(2). Each token becomes k x load x width = 2 x 1.1 x 1,000 = 2,200 routed elements; at
        // 30 bytes each (10 a pass, forward; the backward's two passes are charged with the routing), 2.2e4 bytes at
        // 1 TB/s.
        Hand h;
        h.makeMoe(4);
        h.constants.unfusedPermutationBytesPerRoutedElement = 30;
        const double a = 1.0 / std::sqrt(2.0);
        const double routing = 1.1 * 18e6 / 5e14 * (1.0 / (0.5 * a) - 1.0 / (0.85 * a));
        QCOMPARE(unfusedPermutationPerToken(h.x), 2.2e-8);
        const MatmulTime unfused = matmulTime(h.x, llama31_8b());
        QCOMPARE(unfused.moeRoutingPerToken, routing);
        h.scenario.flags.moePermuteFusion = true;
        const MatmulTime fused = matmulTime(h.x, llama31_8b());
        QCOMPARE(fused.moeRoutingPerToken, routing - 2.2e-8);
        // The grouped GEMMs and the permutation's own bytes stay.
        QCOMPARE(fused.routedExpertsPerToken, unfused.routedExpertsPerToken);
        QCOMPARE(fused.layerForwardPerToken, unfused.layerForwardPerToken);
        QCOMPARE(memoryBoundTime(h.x).moeShuffleBytes, 8.0 * (2 * 1.1 + 1) * 1000 * 1000 * 10 + 32.0 * 16 * 1000 * 10);
        // At the shipped 68 bytes (4.99e-8 s) the saving would pass the routing work (4.61e-8 s): nothing is left,
        // and nothing is given back.
        h.constants.unfusedPermutationBytesPerRoutedElement = 68;
        QVERIFY(unfusedPermutationPerToken(h.x) > routing);
        QCOMPARE(matmulTime(h.x, llama31_8b()).moeRoutingPerToken, 0.0);
        // TP 2 with sequence parallelism: a GPU routes half the tokens.
        h.constants.unfusedPermutationBytesPerRoutedElement = 30;
        h.setTp(2);
        QCOMPARE(unfusedPermutationPerToken(h.x), 1.1e-8);
        // A dense model has no permutation.
        Hand dense;
        dense.scenario.flags.moePermuteFusion = true;
        QCOMPARE(unfusedPermutationPerToken(dense.x), 0.0);
    }

    void memoryBoundWorkUnderAutocast()
    {
        Hand h;
        h.scenario.flags.autocast = true;
        h.shape.paramsPerLayer = 13.096e6; // the linear weights only (no norms), so the casts below stay round
        // Compiled: 69 bytes per hidden element, 14 per FFN element, 116 per query element (1,024 wide) a token and
        // layer: 1e4 x (69e3 + 42e3 + 118,784) = 2.29784e9 bytes; the loss at 11 bytes per logit: 1,000 x 3,000 x 11;
        // each weight cast at 12 bytes a micro-step: 10 layers x 13.096e6 plus the 1,000 x 3,000 LM head.
        const MemoryBoundTime m = memoryBoundTime(h.x);
        QCOMPARE(m.elementwiseBytes, 2.29784e9);
        QCOMPARE(m.lossBytes, 3.3e7);
        QCOMPARE(m.autocastCastBytes, 12.0 * (10 * 13.096e6 + 3e6));
        QCOMPARE(m.bytesPerSec, 1e12);
        // Eager: 196, 28 and 150 bytes (1e4 x (196e3 + 84e3 + 153,600) = 4.336e9), the loss at 36 bytes per logit,
        // all at the eager kernels' 0.57 of the HBM bandwidth instead of the constants' 0.8.
        h.scenario.flags.compiled = false;
        const MemoryBoundTime e = memoryBoundTime(h.x);
        QCOMPARE(e.elementwiseBytes, 4.336e9);
        QCOMPARE(e.lossBytes, 1.08e8);
        QCOMPARE(e.bytesPerSec, 1e12 / 0.8 * 0.57);
        // Liger's fused kernels keep their passes; the weights are still cast every micro-step.
        h.scenario.flags.fusedNormActivation = true;
        QCOMPARE(memoryBoundTime(h.x).autocastCastBytes, m.autocastCastBytes);
        QCOMPARE(memoryBoundTime(h.x).elementwiseBytes, 2.0 * 1e4 * (24 * 1000.0 + 8 * 3000.0));
    }

    void optimizer()
    {
        Hand h;
        // Fused AdamW over a shard of 1e9 / 8 parameters: 1.25e8 x 28 bytes / 1e12 = 3.5e-3 s per step.
        h.x.modelParallelParams = 1e9;
        h.x.denseStageParams = 1e9;
        h.x.fsdpGroup = 8;
        QCOMPARE(optimizerGroupOf(h.x), 8);
        QCOMPARE(optimizerTime(h.x), 3.5e-3);
        // Inside backward only one unit's share (of 11) shows.
        h.scenario.flags.optimizerInBackward = true;
        QCOMPARE(optimizerTime(h.x), 3.5e-3 / 11);
        // DDP does not shard: 1e9 x 28 / 1e12.
        h.scenario.flags.optimizerInBackward = false;
        h.scenario.parallelism.dataParallel = DataParallelKind::Ddp;
        h.x.fsdp = false;
        QCOMPARE(optimizerGroupOf(h.x), 1);
        QCOMPARE(optimizerTime(h.x), 2.8e-2);
        // FP8 weight scales after backward: 4 bytes per local parameter.
        QCOMPARE(fp8WeightScaleTime(h.x), 0.0);
        h.x.fp8 = true;
        QCOMPARE(fp8WeightScaleTime(h.x), 4e9 / 1e12);
        h.scenario.flags.fp8ScalesInBackward = true;
        QCOMPARE(fp8WeightScaleTime(h.x), 0.0);
    }

    // MoE: each GPU's experts have ep x expert TP fewer copies than the dense weights, so their master weights and
    // moments shard over fewer ranks. DeepSeek-V3's layout on 256 GB200 (Megatron-Core MoE report: DP 64, EP 64, "EDP
    // 1"): the experts are not sharded at all. Here FSDP over 8 ranks with EP 4: 1e9 dense over 8 and 4e9 expert
    // parameters over 8 / 4 = 2, 1.25e8 + 2e9 parameters, 28 bytes each over 1e12 B/s: 5.95e-2 s. The memory: 12
    // bytes of FP32 weights and moments per sharded parameter.
    void expertOptimizerStateShardsOverTheExpertDataParallelGroup()
    {
        Hand h;
        h.scenario.parallelism.ep = 4;
        h.x.ep = 4;
        h.x.fsdpGroup = 8;
        h.x.denseStageParams = 1e9;
        h.x.expertStageParams = 4e9;
        h.x.modelParallelParams = 5e9;
        QCOMPARE(optimizerGroupOf(h.x), 8);
        QCOMPARE(expertOptimizerGroupOf(h.x), 2);
        QCOMPARE(optimizerShardParams(h.x), 1.25e8 + 2e9);
        QCOMPARE(optimizerTime(h.x), (1.25e8 + 2e9) * 28 / 1e12);
        StepMemoryInputs in = h.memoryInputs(5e9);
        in.fsdpGroup = 8;
        in.expertParams = 4e9;
        in.expertOptimizerGroup = expertOptimizerGroupOf(h.x);
        QCOMPARE(stepMemory(in).optimizerState, 8.0 * (1.25e8 + 2e9));
        // EP over the whole group: one copy of each expert, nothing to shard (EDP 1); DDP shards nothing either.
        h.scenario.parallelism.ep = 8;
        h.x.ep = 8;
        QCOMPARE(expertOptimizerGroupOf(h.x), 1);
        h.scenario.parallelism.dataParallel = DataParallelKind::Ddp;
        QCOMPARE(expertOptimizerGroupOf(h.x), 1);
        QCOMPARE(optimizerShardParams(h.x), 5e9);
    }

    void recompute()
    {
        Hand h;
        const MatmulTime m = matmulTime(h.x, llama31_8b());
        const AttentionTime a = attentionTime(h.x);
        const MemoryBoundTime e = memoryBoundTime(h.x);
        QCOMPARE(recomputeTime(h.x, m, a, e), 0.0);
        // Full: the layers' forward matmuls (1,000 x 10 x 1.04768e-7 s), the attention forward and a third of the
        // elementwise work; not the LM head.
        h.setFullCheckpointing();
        const double layers = 1000 * 10 * 26.192e6 / 2.5e14;
        QCOMPARE(recomputeTime(h.x, m, a, e), layers + 4.096e-5 + 8e-4 / 3);
        // Selective (op-level SAC keeping half the matmul outputs): half the layers' matmuls and a third of the
        // elementwise work.
        h.scenario.activationCheckpointing = ActivationCheckpointing::Selective;
        QCOMPARE(recomputeTime(h.x, m, a, e), 0.5 * layers + 8e-4 / 3);
        // MLA rebuilds its up-projections (here 1e6 FLOP per token and layer) at the QKV projection's speed.
        h.scenario.activationCheckpointing = ActivationCheckpointing::None;
        h.shape.latentUpProjFlops = 1e6;
        QCOMPARE(linearGemmPeak(h.x), 5e14);
        QCOMPARE(recomputeTime(h.x, m, a, e), 1e4 * 1e6 / (5e14 * 0.5));
    }

    void overlapLeavesWhatComputeCannotHide()
    {
        // 3 s of communication beside 2 s of compute: 1 s cannot hide, and 10% of the 2 s that could stays exposed.
        QCOMPARE(exposedAfterOverlap(3.0, 2.0, 0.1), 1.2);
        QCOMPARE(exposedAfterOverlap(1.0, 2.0, 0.1), 0.1);
        QCOMPARE(exposedAfterOverlap(1.0, 2.0, 0.0), 0.0);
    }

    void tensorParallel()
    {
        Hand h;
        QCOMPARE(tensorParallelComm(h.x, 1.0).total, 0.0);
        // TP 2 inside the domain: an all-gather and a reduce-scatter move half of 1,000 x 1,000 x 2 bytes each, 1e6
        // bytes at 100 GB/s: 1e-5 s; two pairs per layer forward and as many backward over 10 layers: 8e-4 s.
        h.setTp(2);
        const CommTime t = tensorParallelComm(h.x, 1.0);
        QCOMPARE(t.total, 8e-4);
        QCOMPARE(t.exposed, 8e-4);
        // Full recompute repeats the forward's: 1.2e-3 s; recomputing 5 of the 10 layers (Megatron's block method)
        // half of that: 1.0e-3 s.
        h.setFullCheckpointing();
        QCOMPARE(tensorParallelComm(h.x, 1.0).total, 1.2e-3);
        h.x.fullRecomputeShare = 0.5;
        QCOMPARE(tensorParallelComm(h.x, 1.0).total, 1.0e-3);
        // Async TP behind 1 s of matmuls: all hidden but the implementation's share, PyTorch's (the default) or
        // Transformer Engine's userbuffers; what the matmuls cannot cover shows whole. Without sequence parallelism
        // there is nothing to overlap.
        h.scenario.activationCheckpointing = ActivationCheckpointing::None;
        h.x.fullRecomputeShare = 0;
        h.scenario.parallelism.asyncTp = true;
        h.constants.asyncTpExposedFraction = 0.5;
        h.constants.tpCommOverlapExposedFraction = 0.25;
        QCOMPARE(tensorParallelComm(h.x, 1.0).exposed, 8e-4 * 0.5);
        QCOMPARE(tensorParallelComm(h.x, 5e-4).exposed, (8e-4 - 5e-4) + 5e-4 * 0.5);
        h.scenario.parallelism.tpOverlap = TpOverlap::Userbuffers;
        QCOMPARE(tensorParallelComm(h.x, 1.0).total, 8e-4);
        QCOMPARE(tensorParallelComm(h.x, 1.0).exposed, 8e-4 * 0.25);
        h.x.sequenceParallel = false;
        QCOMPARE(tensorParallelComm(h.x, 1.0).exposed, tensorParallelComm(h.x, 1.0).total);
        // The kind says how, not whether: without async TP nothing hides, whichever kind is named.
        h.x.sequenceParallel = true;
        h.scenario.parallelism.asyncTp = false;
        QCOMPARE(tensorParallelComm(h.x, 1.0).exposed, 8e-4);
        // Blocks of one sublayer (Nemotron-H: a Mamba-2 mixer, attention, an MLP or a MoE alone) have one pair each:
        // half the traffic; a model whose layers average 1.5 sublayers, three quarters.
        h.shape.layer.sublayersPerLayer = 1.0;
        QCOMPARE(tensorParallelComm(h.x, 1.0).total, 4e-4);
        h.shape.layer.sublayersPerLayer = 1.5;
        QCOMPARE(tensorParallelComm(h.x, 1.0).total, 6e-4);
    }

    void contextParallel()
    {
        Hand h;
        // CP 2: K and V of the whole sequence (2 x 1,000 tokens x 8 heads x 256 x 2 bytes = 8.192e6 bytes) all-gathered
        // over 2 ranks: half of it, 4.096e6 bytes at 100 GB/s = 4.096e-5 s; three times a layer (forward; K, V and
        // their gradients backward) over 10 layers: 1.2288e-3 s, all exposed (contextParallelExposedFraction 1).
        h.scenario.parallelism.cp = 2;
        h.x.cp = 2;
        const CommTime t = contextParallelComm(h.x, 1.0);
        QCOMPARE(t.total, 1.2288e-3);
        QCOMPARE(t.exposed, 1.2288e-3);
        h.constants.contextParallelExposedFraction = 0.25;
        QCOMPARE(contextParallelComm(h.x, 1.0).exposed, 1.2288e-3 * 0.25);
        // The P2P ring moves the same bytes, each step's exchange under the previous chunk's attention: its own share
        // shows, and what the attention cannot cover all of it.
        h.scenario.parallelism.cpComm = ContextParallelComm::P2p;
        h.constants.contextParallelRingExposedFraction = 0.1;
        QCOMPARE(contextParallelComm(h.x, 1.0).total, 1.2288e-3);
        QCOMPARE(contextParallelComm(h.x, 1.0).exposed, 1.2288e-3 * 0.1);
        QCOMPARE(contextParallelComm(h.x, 1e-3).exposed, (1.2288e-3 - 1e-3) + 1e-3 * 0.1);
        // Only the layers with softmax attention exchange keys and values: a quarter of them (Qwen3.5's one in four),
        // a quarter of the traffic.
        h.shape.layer.keyValueLayerShare = 0.25;
        QCOMPARE(contextParallelComm(h.x, 1.0).total, 1.2288e-3 / 4);
        h.shape.layer.keyValueLayerShare = 1.0;
        // Checkpointing that repeats the attention's forward repeats its exchange: a fourth pass under full
        // recompute of every layer, half of one when half the layers are recomputed, a whole one with Megatron's
        // core_attn module; per-op selective checkpointing keeps the attention's output and exchanges nothing again.
        h.scenario.activationCheckpointing = ActivationCheckpointing::Full;
        h.x.fullRecomputeShare = 1.0;
        QCOMPARE(contextParallelComm(h.x, 1.0).total, 1.2288e-3 * 4.0 / 3.0);
        h.x.fullRecomputeShare = 0.5;
        QCOMPARE(contextParallelComm(h.x, 1.0).total, 1.2288e-3 * 3.5 / 3.0);
        h.x.fullRecomputeShare = 0;
        h.scenario.activationCheckpointing = ActivationCheckpointing::Selective;
        QCOMPARE(contextParallelComm(h.x, 1.0).total, 1.2288e-3);
        h.scenario.flags.recomputeModules = RecomputeCoreAttention;
        QCOMPARE(contextParallelComm(h.x, 1.0).total, 1.2288e-3 * 4.0 / 3.0);
        h.scenario.flags.recomputeModules = 0;
        // CP 16 over two 8-GPU domains, NCCL free to run 8 rings: the all-gather crosses at 8 NICs (80 GB/s), the
        // P2P ring, one ring of send/receive pairs, at one (10 GB/s): 8 times as long.
        h.scenario.parallelism.cp = 16;
        h.x.cp = 16;
        h.x.gpus = 16;
        h.x.tiers.crossDomainRings = 8;
        const double ring = contextParallelComm(h.x, 1.0).total;
        h.scenario.parallelism.cpComm = ContextParallelComm::AllGather;
        QCOMPARE(ring, 8.0 * contextParallelComm(h.x, 1.0).total);
    }

    void expertParallel()
    {
        Hand h;
        // EP 4 inside the domain, dropless at 1.1x, NCCL all-to-all: each GPU sends 1,000 tokens x 1.1 x 2 copies x
        // 1,000 elements x 8 bytes (dispatch, combine, both gradients in BF16) = 1.76e7 bytes, 3/4 of it to others:
        // 1.32e7 bytes at 100 GB/s = 1.32e-4 s a layer, 1.32e-3 s for 10; 80% exposed.
        h.makeMoe(4);
        const DispatchBytes one = dispatchBytes(h.x, 2.0);
        QCOMPARE(one.scaleUp, 1100.0 * 2 * 2000 * 0.75);
        QCOMPARE(one.scaleOut, 0.0);
        const CommTime t = expertParallelComm(h.x, 1.0);
        QCOMPARE(t.total, 1.32e-3);
        QCOMPARE(t.exposed, 1.32e-3 * 0.8);
        // DualPipe behind another micro-batch's 1 s of compute: 10% (expertOverlapExposedFraction) shows; Megatron's
        // 1F1B overlap 30%.
        h.scenario.parallelism.expertOverlap = ExpertOverlap::DualPipe;
        QCOMPARE(expertParallelComm(h.x, 1.0).exposed, 1.32e-3 * 0.1);
        h.scenario.parallelism.expertOverlap = ExpertOverlap::OneFOneB;
        QCOMPARE(expertParallelComm(h.x, 1.0).exposed, 1.32e-3 * 0.3);
        // BF16+FP8: NCCL's all-to-all moves the BF16 hidden states (the grouped GEMMs quantise after it)...
        h.scenario.parallelism.expertOverlap = ExpertOverlap::None;
        h.x.fp8 = true;
        QCOMPARE(expertParallelComm(h.x, 1.0).total, 1.32e-3);
        // ...DeepEP sends what goes to the experts in FP8, the activations forward and the gradients entering the
        // down-projections backward (DeepSeek-V3, 3.3.2), the combines in BF16: 6 bytes of 8. DeepEP's bytes are
        // one copy per destination GPU (1.75 of 2 copies) at the same 100 GB/s.
        h.scenario.parallelism.expertDispatcher = ExpertDispatcher::DeepEp;
        const double deepEpBf16 = 10 * 4 * (1100.0 * 2000 * 1.75 * 0.75) / 100e9;
        QCOMPARE(expertParallelComm(h.x, 1.0).total, deepEpBf16 * 6 / 8);
        // Full checkpointing repeats the forward's dispatch and combine: 8 + 4 bytes of 8.
        h.scenario.parallelism.expertDispatcher = ExpertDispatcher::AllToAll;
        h.x.fp8 = false;
        h.setFullCheckpointing();
        QCOMPARE(expertParallelComm(h.x, 1.0).total, 1.32e-3 * 12 / 8);
    }

    void expertDispatchers()
    {
        Hand h;
        h.makeMoe(4);
        // NCCL's all-to-all is capped at allToAllMaxBytesPerSec however fast NVLink is.
        h.constants.allToAllMaxBytesPerSec = 50e9;
        QCOMPARE(dispatchSeconds(h.x, 2.0), 3.3e6 / 50e9);
        h.constants.allToAllMaxBytesPerSec = 1e12;
        // The all-gather dispatcher sends a GPU's 1,000 tokens to the 3 others, whatever k and whatever the router's
        // load (1.1 here) or a capacity factor: every token goes everywhere, 1,000 x 2,000 x 3 bytes...
        h.scenario.parallelism.expertDispatcher = ExpertDispatcher::AllGather;
        QCOMPARE(dispatchBytes(h.x, 2.0).scaleUp, 1000.0 * 2000 * 3);
        h.x.expertLoad = 2.0;
        QCOMPARE(dispatchBytes(h.x, 2.0).scaleUp, 1000.0 * 2000 * 3);
        h.x.expertLoad = 1.1;
        // ...over rings at the link's rate, not all-to-all's channel cap.
        h.constants.allToAllMaxBytesPerSec = 50e9;
        QCOMPARE(dispatchSeconds(h.x, 2.0), 1000.0 * 2000 * 3 / (125e9 * 0.8));
        h.constants.allToAllMaxBytesPerSec = 1e12;
        // DeepEP sends one copy per destination GPU: 2 picks among 4 GPUs reach 4 (1 - (3/4)^2) = 1.75 of them.
        h.scenario.parallelism.expertDispatcher = ExpertDispatcher::DeepEp;
        QCOMPARE(dispatchBytes(h.x, 2.0).scaleUp, 1100.0 * 2000 * 1.75 * 0.75);
        QCOMPARE(dispatchSeconds(h.x, 2.0), 1100.0 * 2000 * 1.75 * 0.75 / (125e9 * 0.8));
        // EP 16 over two domains of 8 (expert TP 1, stride 1), k = 2: across domains one copy per destination domain,
        // 2 (1 - (1/2)^2) = 1.5 domains reached, half of them the other: 1,100 x 2,000 x 0.75 bytes through the NIC.
        h.makeMoe(16);
        h.x.gpus = 16;
        QCOMPARE(dispatchBytes(h.x, 2.0).scaleOut, 1100.0 * 2000 * 1.5 * 0.5);
        // Node-limited routing to 1 domain caps it at one.
        h.scenario.parallelism.expertNodeLimit = 1;
        QCOMPARE(dispatchBytes(h.x, 2.0).scaleOut, 1100.0 * 2000 * 1.0 * 0.5);
        // NCCL's all-to-all sends every copy, 2 x 15/16 of them to others, of which the 8 in the other domain's share
        // through the NIC.
        h.scenario.parallelism.expertDispatcher = ExpertDispatcher::AllToAll;
        const DispatchBytes a2a = dispatchBytes(h.x, 2.0);
        QCOMPARE(a2a.scaleUp + a2a.scaleOut, 1100.0 * 2 * 2000 * 15 / 16);
        QCOMPARE(a2a.scaleOut, 1100.0 * 2 * 2000 * 15 / 16 * (8.0 / 15.0));
    }

    void expertTensorParallel()
    {
        Hand h;
        // EP 2 x expert TP 2 on TP 2: per MoE layer the received tokens (2 x 500 x 1.1 x 2 copies x 1,000 wide x 2 B
        // = 4.4e6 bytes gathered) are all-gathered and reduce-scattered over the 2 expert-TP ranks, forward and
        // backward: 4 collectives moving half the buffer at 100 GB/s, over 10 layers.
        h.makeMoe(2);
        h.setTp(2);
        h.x.expertTp = 2;
        const CommTime with = expertParallelComm(h.x, 1.0);
        h.x.expertTp = 1;
        const CommTime without = expertParallelComm(h.x, 1.0);
        QCOMPARE(with.total - without.total, 10 * 4 * (4.4e6 / 2) / 100e9);
    }

    void moeRoutingAndPermutation()
    {
        Hand h;
        QCOMPARE(moeShuffleBytes(h.x), 0.0);
        // Per routed token and MoE layer: 8 x (2 x 1.1 + 1) x 1,000 bytes of permutation, 32 x 16 of router logits;
        // 1,000 tokens x 10 layers.
        h.makeMoe(4);
        QCOMPARE(moeShuffleBytes(h.x), 1e4 * (8.0 * 3.2 * 1000 + 32.0 * 16));
        QCOMPARE(memoryBoundTime(h.x).moeShuffleBytes, moeShuffleBytes(h.x));
    }

    void moduleRecompute()
    {
        Hand h;
        h.makeMoe(4);
        h.scenario.activationCheckpointing = ActivationCheckpointing::Selective;
        const MatmulTime m = matmulTime(h.x, llama31_8b());
        const AttentionTime a = attentionTime(h.x);
        const MemoryBoundTime e = memoryBoundTime(h.x);
        // Megatron's moe_act: the experts' activation again, reading gate and up and writing their product (3 x 2 B x
        // 3,000 x 1.1 per token and layer); layernorm: two norms reading and writing 1,000-wide vectors (8 B each).
        h.scenario.flags.recomputeModules = RecomputeMoeActivation | RecomputeLayernorm;
        QCOMPARE(recomputeTime(h.x, m, a, e), 1e4 * (1.1 * 6.0 * 3000 + 8.0 * 1000) / 1e12);
        // moe: the experts' matmuls with the routing work around them and a third of the permutation again;
        // core_attn: the attention forward.
        h.scenario.flags.recomputeModules = RecomputeMoe | RecomputeCoreAttention;
        QVERIFY(m.moeRoutingPerToken > 0);
        QCOMPARE(recomputeTime(h.x, m, a, e),
            1e4 * (m.routedExpertsPerToken + m.moeRoutingPerToken) + e.moeShuffle() / 3 + a.forward);
        // ... and the moe module repeats the dispatch and combine.
        QCOMPARE(expertParallelComm(h.x, 1.0).total, 1.32e-3 * 12 / 8);
    }

    void fp8Recipes()
    {
        Hand h;
        h.x.fp8 = true;
        // Per tensor: 2e15 x 0.5 (fp8GemmEfficiencyRatio) x 0.5 (gemmEfficiency); blockwise at 0.95 of it; MXFP8 at 1.
        QCOMPARE(linearGemmPeak(h.x), 5e14);
        h.scenario.flags.fp8Recipe = Fp8Recipe::Blockwise;
        QCOMPARE(linearGemmPeak(h.x), 5e14 * 0.95);
        // Block scales quantise in both orientations: 4 bytes per operand element instead of 3, and each weight once
        // (its bytes write both orientations) where a per-tensor cast runs twice.
        QCOMPARE(memoryBoundTime(h.x).fp8CastBytes, 4.0 * (1e4 * 15096.0 + 10 * 13.096e6));
        h.scenario.flags.fp8Recipe = Fp8Recipe::Mxfp8;
        QCOMPARE(linearGemmPeak(h.x), 5e14);
        // TorchAO's rowwise scales: the GEMMs at fp8RowwiseGemmRatio of per-tensor speed, cast in both orientations.
        h.constants.fp8RowwiseGemmRatio = 0.7;
        h.scenario.flags.fp8Recipe = Fp8Recipe::Rowwise;
        QCOMPARE(linearGemmPeak(h.x), 3.5e14);
        QCOMPARE(memoryBoundTime(h.x).fp8CastBytes, 4.0 * (1e4 * 15096.0 + 10 * 13.096e6));
        // rowwise_with_gw_hp: a third of the FLOPs (the weight gradients) at the BF16 rate, 1e15 x 0.5, the rest at
        // the rowwise rate; the harmonic mean is 1 / (2/3 / 3.5e14 + 1/3 / 5e14). One orientation is cast.
        h.scenario.flags.fp8Recipe = Fp8Recipe::RowwiseWithGwHp;
        QCOMPARE(linearGemmPeak(h.x), 1.0 / (2.0 / 3.0 / 3.5e14 + 1.0 / 3.0 / 5e14));
        QCOMPARE(memoryBoundTime(h.x).fp8CastBytes, 3.0 * (1e4 * 15096.0 + 20 * 13.096e6));
    }

    // Block-scaled MX formats run where the tensor cores scale blocks: Blackwell and AMD's CDNA 4 (MI355X), not
    // Hopper or CDNA 3 (MI300X). A full-iteration CUDA graph holds no dispatch that copies its counts to the host.
    void refusalsOfWhatTheHardwareOrAGraphCannotDo()
    {
        const auto refusal = [](const Scenario& s) {
            const char* reason = CostModel(s).invalidReason(s);
            return std::string(reason ? reason : "");
        };
        for (const auto& [gpu, runs] :
            { std::pair { "b200", true }, { "mi355x", true }, { "h100-sxm", false }, { "mi300x", false } }) {
            Scenario s = scenarioFor(llama31_8b(), gpu, 8, 4096);
            s.precision = TrainingPrecision::BF16_FP8;
            s.flags.fp8Recipe = Fp8Recipe::Mxfp8;
            QVERIFY2(refusal(s).empty() == runs, gpu);
        }
        // FP8 attention on a GPU where no modelled kernel runs says so, rather than naming kernels it then refuses.
        Scenario amd = scenarioFor(llama31_8b(), "mi355x", 8, 4096);
        amd.precision = TrainingPrecision::BF16_FP8;
        amd.flags.fp8Attention = true;
        QVERIFY2(refusal(amd).find("Hopper and Blackwell") != std::string::npos, refusal(amd).c_str());
        Scenario moe = scenarioFor(mixtral_8x7b(), "b200", 16, 4096);
        moe.parallelism.ep = 8;
        moe.flags.cudaGraphs = CudaGraphs::FullIteration;
        QCOMPARE(refusal(moe), std::string()); // auto: a graphed step is taken as a sync-free dispatch
        moe.parallelism.expertHostSync = ExpertHostSync::PerLayer;
        QVERIFY2(refusal(moe).find("cannot capture") != std::string::npos, refusal(moe).c_str());
        moe.flags.cudaGraphs = CudaGraphs::Modules;
        QCOMPARE(refusal(moe), std::string());
    }

    void fp8CastsUnderTensorParallelism()
    {
        Hand h;
        h.x.fp8 = true;
        h.setTp(4);
        // Tensorwise with sequence parallelism: each rank casts its sequence shard and gathers FP8, so every operand is
        // a quarter: 3 x (1e4 x 15,096 / 4 + 20 x 13.096e6 / 4).
        QCOMPARE(memoryBoundTime(h.x).fp8CastBytes, 3.0 * (1e4 * 15096.0 + 20 * 13.096e6) / 4.0);
        // TorchAO's rowwise scales gather BF16: the two hidden-wide operands (2 x 1,000 per token and layer) are cast
        // whole on every rank, the heads' and the FFN's (13,096) a quarter: 4 x (1e4 x (2,000 + 13,096 / 4) + ...).
        h.scenario.flags.fp8Recipe = Fp8Recipe::Rowwise;
        QCOMPARE(memoryBoundTime(h.x).fp8CastBytes, 4.0 * (1e4 * (2000.0 + 13096.0 / 4.0) + 10 * 13.096e6 / 4.0));
        // Without sequence parallelism the hidden-wide operands are whole on every rank whatever the recipe.
        h.scenario.flags.fp8Recipe = Fp8Recipe::Tensorwise;
        h.x.sequenceParallel = false;
        QCOMPARE(memoryBoundTime(h.x).fp8CastBytes, 3.0 * (1e4 * (2000.0 + 13096.0 / 4.0) + 20 * 13.096e6 / 4.0));
    }

    // FP8 parameters (Megatron's --fp8-param-gather, NeMo's fp8_params, TorchAO's float8 FSDP all-gather): the linear
    // layers' working weights in FP8, the embedding and LM head in BF16; no weight cast per micro-batch.
    void fp8Parameters()
    {
        Hand h;
        h.shape.totalParams = 10e9;
        h.shape.embeddingParams = 1e9;
        h.shape.lmHeadParams = 1e9;
        h.shape.expertParamsPerLayer = 0;
        QCOMPARE(workingWeightBytes(h.shape, h.scenario, false), 2.0); // BF16 run: the flag is off
        h.scenario.flags.fp8ParamGather = true;
        QCOMPARE(workingWeightBytes(h.shape, h.scenario, false), 2.0); // on, but a BF16 run holds BF16 weights
        h.scenario.precision = TrainingPrecision::BF16_FP8;
        // 8e9 of the 10e9 parameters are linear: 0.8 x 1 + 0.2 x 2 bytes.
        QCOMPARE(workingWeightBytes(h.shape, h.scenario, false), 1.2);
        QCOMPARE(workingWeightBytes(h.shape, h.scenario, true), 1.0);
        // MoE: 4 layers of 2e9 expert parameters leave 2e9 dense, all of it embedding and LM head.
        h.shape.layers = 4;
        h.shape.expertParamsPerLayer = 2e9;
        QCOMPARE(workingWeightBytes(h.shape, h.scenario, false), 2.0);

        h.x.fp8 = true;
        QCOMPARE(memoryBoundTime(h.x).fp8CastBytes, 3.0 * 1e4 * 15096.0); // activations only, no weight casts

        // DDP-style replicas hold the whole working weights: 5e9 dense at 1.2 bytes (the 10e9 model above without
        // experts), not 2.
        h.shape.expertParamsPerLayer = 0;
        h.scenario.parallelism.dataParallel = DataParallelKind::Zero1;
        StepMemoryInputs in = h.memoryInputs(5e9);
        const double fp8Params = stepMemory(in).parameters;
        h.scenario.flags.fp8ParamGather = false;
        QCOMPARE(stepMemory(in).parameters - fp8Params, 0.8 * 5e9);

        Scenario bf16 = scenarioFor(llama31_8b(), "h100-sxm", 8, 8192);
        bf16.flags.fp8ParamGather = true;
        QCOMPARE(std::string(CostModel(bf16).invalidReason(bf16)),
            std::string("FP8 parameters need BF16+FP8 linear layers"));
        bf16.precision = TrainingPrecision::BF16_FP8;
        QVERIFY(!CostModel(bf16).invalidReason(bf16));
        // TorchAO gathers FP8 weights only with per-tensor scales.
        bf16.flags.fp8Recipe = Fp8Recipe::Rowwise;
        QCOMPARE(std::string(CostModel(bf16).invalidReason(bf16)),
            std::string("FP8 parameters need a tensorwise, blockwise or MXFP8 recipe (rowwise scaling gathers BF16)"));
    }

    // Quantised weights cached per step (Transformer Engine's is_first_microbatch, as Megatron-Core and NeMo pass
    // it): each weight is cast in the step's first micro-batch only, and the copies in both orientations stay.
    void quantizedWeightCache()
    {
        Hand h;
        h.scenario.precision = TrainingPrecision::BF16_FP8;
        h.x.fp8 = true;
        h.x.microBatches = 4;
        const double perMicroBatch = memoryBoundTime(h.x).fp8CastBytes;
        QCOMPARE(perMicroBatch, 3.0 * (1e4 * 15096.0 + 20 * 13.096e6)); // two casts of each weight, every micro-batch
        h.scenario.flags.quantizedWeightCache = true;
        QCOMPARE(weightCastsPerMicroBatch(h.x), 0.25);
        QCOMPARE(memoryBoundTime(h.x).fp8CastBytes, 3.0 * (1e4 * 15096.0 + 5 * 13.096e6)); // 2 casts / 4 a micro-batch
        h.x.microBatches = 1; // one micro-batch a step: nothing to reuse
        QCOMPARE(memoryBoundTime(h.x).fp8CastBytes, perMicroBatch);

        // The cached copies: 1 byte in each of two orientations per linear weight (8e9 of 10e9 dense parameters),
        // half that in FP4 for the layers it quantises, none with FP8 parameters (they are the FP8 copy).
        h.shape.totalParams = 10e9;
        h.shape.embeddingParams = 1e9;
        h.shape.lmHeadParams = 1e9;
        h.shape.expertParamsPerLayer = 0;
        QCOMPARE(cachedQuantizedWeightBytes(h.shape, h.scenario, false), 1.6);
        QCOMPARE(cachedQuantizedWeightBytes(h.shape, h.scenario, true), 2.0);
        h.scenario.precision = TrainingPrecision::BF16_FP4;
        h.scenario.flags.fp4Bf16LayerShare = 0.25;
        QCOMPARE(cachedQuantizedWeightBytes(h.shape, h.scenario, true), 0.75);
        h.scenario.precision = TrainingPrecision::BF16_FP8;
        h.scenario.flags.fp8ParamGather = true;
        QCOMPARE(cachedQuantizedWeightBytes(h.shape, h.scenario, true), 0.0);
        h.scenario.flags.fp8ParamGather = false;
        StepMemoryInputs in = h.memoryInputs(5e9);
        const double cached = stepMemory(in).parameters;
        h.scenario.flags.quantizedWeightCache = false;
        QCOMPARE(cached - stepMemory(in).parameters, 1.6 * 5e9);

        // Only runs that quantise can cache; a precision sweep's BF16 point drops it, its FP8 point keeps it.
        Scenario bf16 = scenarioFor(llama31_8b(), "b200", 8, 8192);
        bf16.flags.quantizedWeightCache = true;
        QCOMPARE(std::string(CostModel(bf16).invalidReason(bf16)),
            std::string("Cached quantised weights need BF16+FP8 or BF16+FP4 linear layers"));
        bf16.precision = TrainingPrecision::BF16_FP8;
        QVERIFY(!CostModel(bf16).invalidReason(bf16));
        bf16.precision = TrainingPrecision::BF16_FP4;
        QVERIFY(!CostModel(bf16).invalidReason(bf16));
        const SweepResult r = runSweep(bf16, SweepAxis::Precision);
        QVERIFY(r.points.size() >= 2);
        for (const auto& point : r.points)
            QVERIFY2(point.currentValid, point.currentProblem.c_str()); // the BF16 point too
        QVERIFY(!scenarioAt(bf16, SweepAxis::Precision, 0).flags.quantizedWeightCache);
    }

    void multiTokenPrediction()
    {
        Hand h;
        const double base = matmulTime(h.x, llama31_8b()).forward;
        // One MTP layer on the stage: a layer more, its projection of [hidden; embedding] (4e6 FLOP at the QKV
        // projection's 2.5e14 FLOP/s), and a second LM head pass (2.4e-8 s a token) with its loss.
        h.shape.mtpProjectionFlops = 4e6;
        h.x.layersPerStage = 11;
        h.x.mtpLayersOnStage = 1;
        h.x.headPassesOnStage = 2;
        const double withMtp = matmulTime(h.x, llama31_8b()).forward;
        QCOMPARE(withMtp - base, 1000 * (26.192e6 / 2.5e14 + 2.4e-8 + 4e6 / 2.5e14));
        QCOMPARE(memoryBoundTime(h.x).lossBytes, 2 * 2.4e7);
    }

    void pipeline()
    {
        Hand h;
        QCOMPARE(pipelineP2pComm(h.x).total, 0.0);
        QCOMPARE(pipelineBubble(h.x, 1.0), 0.0);
        // PP 4 on 8 GPUs (one domain): 1,000 x 1,000 x 2 bytes forward and back at 100 GB/s, 2e-5 s each, 4e-5 s; 30%
        // exposed. Bubble: (4 - 1) / 1 micro-batch slots.
        h.scenario.parallelism.pp = 4;
        h.x.pp = 4;
        const CommTime p = pipelineP2pComm(h.x);
        QCOMPARE(p.total, 4e-5);
        QCOMPARE(p.exposed, 4e-5 * 0.3);
        QCOMPARE(pipelineBubble(h.x, 2.0), 6.0);
        // Interleaved with 3 virtual stages and 8 micro-batches: a third of the bubble, three times the boundaries.
        h.scenario.parallelism.virtualStages = 3;
        h.x.virtualStages = 3;
        h.x.microBatches = 8;
        QCOMPARE(pipelineP2pComm(h.x).total, 1.2e-4);
        QCOMPARE(pipelineBubble(h.x, 2.0), 2.0);
        // With 2 micro-batches, fewer than the 4 stages, each of the first two rounds also waits 4 - 2 chunk slots for
        // its first micro-batch to come back: (3 + 2 x 2) / 3 of a micro-batch, where 1F1B waits 3 (the schedule never
        // beats running the first micro-batch through every stage).
        h.x.microBatches = 2;
        QCOMPARE(pipelineBubble(h.x, 2.0), 2.0 * 7.0 / 3.0);
        h.x.microBatches = 8;
        // Zero bubble: 15% of it.
        h.scenario.parallelism.schedule = PipelineSchedule::ZeroBubble;
        QCOMPARE(pipelineBubble(h.x, 2.0), 2.0 * 0.15);
        // Across domains the boundary runs at the NIC's 10 GB/s.
        h.x.gpus = 16;
        QCOMPARE(pipelineP2pComm(h.x).total, 2.0 * 3 * (2e6 / 10e9));
    }

    void fsdp()
    {
        Hand h;
        // FSDP over 8 GPUs, 1e9 dense parameters in 11 units: each unit's all-gather moves 7/8 of 1e9 / 11 x 2 bytes,
        // 11 of them: 1.75e9 bytes at 100 GB/s = 1.75e-2 s; the FP32 reduce-scatter twice that.
        h.x.fsdpGroup = 8;
        h.x.denseParams = 1e9;
        h.x.denseStageParams = 1e9;
        const FsdpComm f = fsdpComm(h.x, 1.0, 2.0);
        QVERIFY(f.reshardEachMicroBatch);
        QCOMPARE(f.allGather, 1.75e-2);
        QCOMPARE(f.reduceScatter, 3.5e-2);
        // FP8 parameters gathered at 1.5 bytes a parameter on average: three quarters of the BF16 gather.
        h.x.denseWeightBytes = 1.5;
        QCOMPARE(fsdpComm(h.x, 1.0, 2.0).allGather, 1.75e-2 * 0.75);
        h.x.denseWeightBytes = 2.0;
        // Forward: hidden behind 1 s but for 12% (prefetch depth 1: fsdpPrefetchExposedFraction) and the first unit.
        h.x.prefetchExposedShare = 0.12;
        const FsdpComm g = fsdpComm(h.x, 1.0, 2.0);
        QCOMPARE(g.allGatherForwardExposed, 1.75e-2 * 0.12 + 1.75e-2 / 11);
        // Backward: the second all-gather and the reduce-scatter behind 2 s, split in proportion, plus the last
        // reduce-scatter unit.
        const double backward = 5.25e-2 * 0.12 + 3.5e-2 / 11;
        QCOMPARE(g.allGatherBackwardExposed + g.reduceScatterExposed, backward);
        QCOMPARE(g.allGatherBackwardExposed, backward / 3);
        // With PP the stage stays gathered for the step: once per step.
        h.scenario.parallelism.pp = 2;
        h.x.pp = 2;
        h.x.denseStageParams = 1e9 / 2;
        const FsdpComm p = fsdpComm(h.x, 1.0, 2.0);
        QVERIFY(!p.reshardEachMicroBatch);
        QCOMPARE(p.allGather, 1.75e-2 / 2);
        QCOMPARE(p.allGatherStepExposed, 1.75e-2 / 2 * 0.12 + 1.75e-2 / 2 / 11);
        QCOMPARE(p.allGatherForwardExposed, 0.0);
    }

    void dataParallelSyncPerStep()
    {
        Hand h;
        // HSDP, 2 replicas of an FSDP group of 8 (stride 8: across domains at 10 GB/s, one ring): the FP32 gradient
        // shard 1e9 / 8 x 4 bytes all-reduced, 2 x 1/2 of 5e8 bytes = 5e8 bytes, 0.05 s; behind 0.02 s of backward
        // 0.03 s is left, plus the last bucket (a unit of 11): 0.05 / 11.
        h.scenario.parallelism.hsdpReplicas = 2;
        h.x.fsdpGroup = 8;
        h.x.gpus = 16;
        h.x.modelParallelParams = 1e9;
        h.x.denseStageParams = 1e9;
        DataParallelSync d = dataParallelSync(h.x, 1.0, 0.02);
        QCOMPARE(d.gradients.total, 0.05);
        QCOMPARE(d.gradients.exposed, 0.03 + 0.05 / 11);
        QCOMPARE(d.weightGather.total, 0.0);
        // MoE with EP 4 in the group of 8: 1e9 more expert parameters shard over the 2 ranks that hold the same
        // experts, so the shard grows by 5e8 parameters and the all-reduce by 5x: 0.25 s.
        h.scenario.parallelism.ep = 4;
        h.x.ep = 4;
        h.x.expertStageParams = 1e9;
        h.x.modelParallelParams = 2e9;
        QCOMPARE(dataParallelSync(h.x, 1.0, 0.02).gradients.total, 0.25);
        h.scenario.parallelism.ep = 1;
        h.x.ep = 1;
        h.x.expertStageParams = 0;
        h.x.modelParallelParams = 1e9;
        // ZeRO-1 over 8 data-parallel ranks in the domain: reduce-scatter 7/8 of 4e9 bytes (3.5e-2 s) and all-gather
        // 7/8 of the 2e9 BF16 weights (1.75e-2 s), the gather hidden behind the forward but for 12%.
        h.scenario.parallelism.hsdpReplicas = 1;
        h.scenario.parallelism.dataParallel = DataParallelKind::Zero1;
        h.x.fsdp = false;
        h.x.dataParallel = 8;
        h.x.denseParams = 1e9;
        h.x.denseStageParams = 1e9;
        h.x.prefetchExposedShare = 0.12;
        d = dataParallelSync(h.x, 1.0, 1.0);
        QCOMPARE(d.gradients.total, 3.5e-2);
        QCOMPARE(d.gradients.exposed, 3.5e-2 / 11);
        QCOMPARE(d.weightGather.total, 1.75e-2);
        QCOMPARE(d.weightGather.exposed, 1.75e-2 * 0.12 + 1.75e-2 / 11);
        // Megatron-LM without --overlap-grad-reduce and --overlap-param-gather: both collectives wholly exposed, the
        // same bytes moved.
        h.scenario.flags.overlapGradReduce = false;
        d = dataParallelSync(h.x, 1.0, 1.0);
        QCOMPARE(d.gradients.exposed, 3.5e-2);
        QCOMPARE(d.weightGather.exposed, 1.75e-2 * 0.12 + 1.75e-2 / 11);
        h.scenario.flags.overlapParamGather = false;
        d = dataParallelSync(h.x, 1.0, 1.0);
        QCOMPARE(d.gradients.total, 3.5e-2);
        QCOMPARE(d.weightGather.exposed, 1.75e-2);
        h.scenario.flags.overlapGradReduce = h.scenario.flags.overlapParamGather = true;
        // FP8 parameters: the dense weights gathered at 1.2 bytes, the experts' at 1 (EP 2 of the 8 ranks: the 1e9
        // expert parameters over the 4 that share them, 3/4 of 1e9 bytes at 100 GB/s); the gradients unchanged.
        h.x.denseWeightBytes = 1.2;
        h.x.expertWeightBytes = 1.0;
        h.scenario.parallelism.ep = 2;
        h.x.ep = 2;
        h.x.expertStageParams = 1e9;
        d = dataParallelSync(h.x, 1.0, 1.0);
        QCOMPARE(d.weightGather.total, 1.75e-2 * 0.6 + 0.75e9 / 100e9);
        h.x.denseWeightBytes = h.x.expertWeightBytes = 2.0;
        h.scenario.parallelism.ep = 1;
        h.x.ep = 1;
        h.x.expertStageParams = 0;
        // DDP all-reduces: twice the reduce-scatter's bytes, no gather.
        h.scenario.parallelism.dataParallel = DataParallelKind::Ddp;
        d = dataParallelSync(h.x, 1.0, 1.0);
        QCOMPARE(d.gradients.total, 7e-2);
        QCOMPARE(d.weightGather.total, 0.0);
        h.scenario.parallelism.dataParallel = DataParallelKind::Zero1;
        // A sync longer than the backward it hides behind: 0.035 s behind 0.02 s; the first of 11 buckets is ready
        // after 1/11 of the backward, and from then on the stream never waits.
        d = dataParallelSync(h.x, 1.0, 0.02);
        QCOMPARE(d.gradients.exposed, 3.5e-2 - 0.02 + 0.02 / 11);
        QVERIFY(d.gradients.exposed <= d.gradients.total);
        d = dataParallelSync(h.x, 1.0, 1e-4);
        QVERIFY(d.gradients.exposed <= d.gradients.total);
        QVERIFY(d.weightGather.exposed <= d.weightGather.total);
    }

    // Megatron-Core's interleaved schedule syncs and gathers chunk by chunk: with PP 4, 4 virtual stages and 8
    // micro-batches, a chunk's micro-batch takes a quarter of the pass and 4 of them separate two chunks' last
    // backwards (or first forwards).
    void dataParallelSyncByChunk()
    {
        Hand h;
        h.scenario.parallelism.dataParallel = DataParallelKind::Zero1;
        h.x.fsdp = false;
        h.x.dataParallel = 8;
        h.x.denseParams = h.x.denseStageParams = h.x.modelParallelParams = 1e9;
        h.x.denseWeightBytes = h.x.expertWeightBytes = 2.0;
        h.x.prefetchExposedShare = 0.12;
        h.scenario.parallelism.pp = 4;
        h.x.pp = 4;
        h.x.microBatches = 8;
        const DataParallelSync one = dataParallelSync(h.x, 0.01, 0.02);
        QCOMPARE(one.gradients.exposed, 3.5e-2 - 0.02 + 0.02 / 11);
        h.scenario.parallelism.virtualStages = 4;
        h.x.virtualStages = 4;
        const DataParallelSync d = dataParallelSync(h.x, 0.01, 0.02);
        QCOMPARE(d.gradients.total, one.gradients.total);
        QCOMPARE(d.weightGather.total, one.weightGather.total);
        // Gradients: each chunk's 0.035 / 4 s sync finishes within the 0.02 s of other chunks' backwards before the
        // next chunk's is ready; the last chunk's is left, less its 0.005 s backward after its first of 2.75 buckets.
        QCOMPARE(d.gradients.exposed, 3.5e-2 / 4 - 0.005 + 0.005 / 2.75);
        // Weights: the first chunk's 0.0175 / 4 s gather behind its own 0.0025 s forward (12% of what hides shows)
        // and its first bucket; the other three hide behind the chunk before them, 12% of each showing.
        const double chunk = 1.75e-2 / 4;
        QCOMPARE(d.weightGather.exposed, (chunk - 0.0025) + 0.0025 * 0.12 + 1.75e-2 / 11 + 3 * chunk * 0.12);
        // With 2 micro-batches a chunk group is 2 micro-batches long: more of each sync shows.
        h.x.microBatches = 2;
        QVERIFY(dataParallelSync(h.x, 0.01, 0.02).gradients.exposed > d.gradients.exposed);
        // With one micro-batch a step, chunks change nothing a bucket-by-bucket prefetch did not already give: never
        // more exposed than without virtual stages.
        h.x.microBatches = 1;
        for (int v : { 2, 3, 4, 8 }) {
            h.scenario.parallelism.virtualStages = v;
            h.x.virtualStages = v;
            const DataParallelSync chunked = dataParallelSync(h.x, 0.01, 0.02);
            h.scenario.parallelism.virtualStages = 1;
            h.x.virtualStages = 1;
            const DataParallelSync whole = dataParallelSync(h.x, 0.01, 0.02);
            QVERIFY(chunked.weightGather.exposed <= whole.weightGather.exposed * (1 + 1e-12));
            QVERIFY(chunked.gradients.exposed <= whole.gradients.exposed * (1 + 1e-12));
        }
    }

    // MoE Parallel Folding without dense data parallelism: TP 8 x EP 4 on 8 GPUs leaves each expert on 2 ranks, whose
    // gradients still reduce (and, under ZeRO-1, whose updated weights still gather) once a step.
    void expertDataParallelWithoutDenseReplicas()
    {
        Hand h;
        h.setTp(8);
        h.scenario.parallelism.dataParallel = DataParallelKind::Zero1;
        h.x.dataParallel = 1;
        h.x.fsdp = false;
        h.scenario.parallelism.ep = 4;
        h.x.ep = 4;
        h.x.expertTp = 1;
        h.x.expertStageParams = 1e9;
        h.x.denseStageParams = 1e8;
        // The 1e9 expert parameters over the 2 ranks that share them: half of 4e9 FP32 bytes at 100 GB/s.
        const DataParallelSync d = dataParallelSync(h.x, 1.0, 1.0);
        QCOMPARE(d.gradients.total, 2e9 / 100e9);
        QCOMPARE(d.weightGather.total, 1e9 / 100e9);
    }

    void launchOverhead()
    {
        Hand h;
        // Compiled: 15 us per layer and pass, two passes (forward, backward) over 10 layers; three with checkpointing;
        // eager 60 us.
        QCOMPARE(launchOverheadTime(h.x), 2 * 10 * 15e-6);
        h.scenario.activationCheckpointing = ActivationCheckpointing::Selective;
        QCOMPARE(launchOverheadTime(h.x), 3 * 10 * 15e-6);
        h.scenario.flags.compiled = false;
        QCOMPARE(launchOverheadTime(h.x), 3 * 10 * 60e-6);
        // CUDA graphs replay what they captured in one launch: per module half of it, the full iteration all.
        h.scenario.flags.cudaGraphs = CudaGraphs::Modules;
        QCOMPARE(launchOverheadTime(h.x), (1 - kModuleGraphLaunchShare) * 3 * 10 * 60e-6);
        h.scenario.flags.cudaGraphs = CudaGraphs::FullIteration;
        QCOMPARE(launchOverheadTime(h.x), 0.0);
    }

    // After each MoE dispatch the CPU issues the layer at moeLayerHostSeconds (5.4 ms) and the GPU runs it no
    // faster: 10 MoE layers take 54 ms a forward pass however little the GPU has to do. With 20 ms of forward work
    // on the GPU the stall is 34 ms; with 70 ms the GPU sets the pace and nothing is added.
    void moeHostStall()
    {
        Hand h;
        h.makeMoe(4);
        QCOMPARE(h.constants.moeLayerHostSeconds, 5.4e-3);
        QVERIFY(moeDispatchWaitsForHost(h.scenario));
        // The whole wait when every forward, the recomputed ones too, runs `forwardGpu` seconds on the GPU.
        const auto moeHostStallTime = [](const StepContext& x, double forwardGpu) {
            const double recomputed = std::max(0.0, moeHostStallPasses(x) - 1.0);
            return mfu::moeHostStall(x, forwardGpu, recomputed * forwardGpu).total();
        };
        QCOMPARE(moeHostStallTime(h.x, 0.0), 10 * 5.4e-3);
        QVERIFY(std::abs(moeHostStallTime(h.x, 0.020) - 0.034) < 1e-15);
        QCOMPARE(moeHostStallTime(h.x, 0.070), 0.0);
        // Half the layers routed (DeepSeek's leading dense layers, hybrid stacks): half the host time.
        h.shape.moeLayerShare = 0.5;
        QVERIFY(std::abs(moeHostStallTime(h.x, 0.020) - 0.007) < 1e-15);
        h.shape.moeLayerShare = 1.0;
        // The recomputed forward dispatches again: full checkpointing, or Megatron's moe module; moe_act, layernorm
        // and mlp (the dense MLP) do not.
        h.setFullCheckpointing();
        QVERIFY(std::abs(moeHostStallTime(h.x, 0.020) - 2 * 0.034) < 1e-15);
        h.scenario.activationCheckpointing = ActivationCheckpointing::Selective;
        h.scenario.flags.recomputeModules = RecomputeMoeActivation | RecomputeLayernorm;
        QVERIFY(std::abs(moeHostStallTime(h.x, 0.020) - 0.034) < 1e-15);
        h.scenario.flags.recomputeModules = RecomputeMlp;
        QVERIFY(std::abs(moeHostStallTime(h.x, 0.020) - 0.034) < 1e-15);
        h.scenario.flags.recomputeModules = RecomputeMoe;
        QVERIFY(std::abs(moeHostStallTime(h.x, 0.020) - 2 * 0.034) < 1e-15);
        // Each forward against the GPU time it issues: the recomputed MoE layers beside 10 ms of recomputed kernels
        // wait 44 ms, whatever the first forward's attention took.
        const MoeHostStall split = mfu::moeHostStall(h.x, 0.020, 0.010);
        QVERIFY(std::abs(split.forward - 0.034) < 1e-15);
        QVERIFY(std::abs(split.recompute - 0.044) < 1e-15);
        h.scenario.activationCheckpointing = ActivationCheckpointing::None;
        // CUDA graphs of Megatron's modules issue half of the layer's launches in one: 27 ms of host time.
        h.scenario.flags.cudaGraphs = CudaGraphs::Modules;
        QVERIFY(std::abs(moeHostStallTime(h.x, 0.020) - 0.007) < 1e-15);
        h.scenario.flags.cudaGraphs = CudaGraphs::FullIteration;
        QVERIFY(!moeDispatchWaitsForHost(h.scenario));
        QCOMPARE(moeHostStallTime(h.x, 0.0), 0.0);
        h.scenario.flags.cudaGraphs = CudaGraphs::None;
        // Sync-free by default: padded capacity, HybridEP, no EP. Stated otherwise, the statement wins.
        h.scenario.parallelism.expertCapacityFactor = 1.25;
        QVERIFY(!moeDispatchWaitsForHost(h.scenario));
        h.scenario.parallelism.expertHostSync = ExpertHostSync::PerLayer;
        QVERIFY(moeDispatchWaitsForHost(h.scenario));
        h.scenario.parallelism.expertHostSync = ExpertHostSync::Auto;
        h.scenario.parallelism.expertCapacityFactor = 0;
        h.scenario.parallelism.expertDispatcher = ExpertDispatcher::HybridEp;
        QVERIFY(!moeDispatchWaitsForHost(h.scenario));
        h.scenario.parallelism.expertDispatcher = ExpertDispatcher::DeepEp;
        QVERIFY(moeDispatchWaitsForHost(h.scenario));
        h.scenario.parallelism.expertHostSync = ExpertHostSync::None;
        QCOMPARE(moeHostStallTime(h.x, 0.0), 0.0);
        h.scenario.parallelism.expertHostSync = ExpertHostSync::Auto;
        h.makeMoe(1);
        QVERIFY(!moeDispatchWaitsForHost(h.scenario));
        // A dense model has no dispatch, whatever is stated.
        Hand dense;
        dense.scenario.parallelism.expertHostSync = ExpertHostSync::PerLayer;
        QCOMPARE(moeHostStallTime(dense.x, 0.0), 0.0);
    }

    // BF16+FP4: the linear layers at the FP4 peak x fp4GemmEfficiencyRatio (the router and LM head stay BF16), the
    // share kept in BF16 at the BF16 peak; the quantisation moves each recipe's bytes per operand element.
    void fp4LinearLayers()
    {
        Hand h;
        h.x.fp4 = true;
        h.x.peakFp4 = 4e15;
        h.constants.fp4GemmEfficiencyRatio = 0.5;
        // 4e15 x 0.5 (ratio) x 0.5 (gemmEfficiency) = 1e15, four times BF16's 2.5e14 at the shape factor 0.5.
        QCOMPARE(linearGemmPeak(h.x), 1e15);
        const MatmulTime m = matmulTime(h.x, llama31_8b());
        QCOMPARE(m.layerForwardPerToken, 26.192e6 / 5e14);
        // 1,000 tokens, 10 layers, and the LM head still at BF16's 2.4e-8 s a token.
        QCOMPARE(m.forward, 1000 * (10 * 26.192e6 / 5e14 + 2.4e-8));
        // NVFP4: 5.125 bytes per operand element (amax pass, cast to both orientations with E4M3 scales per 16);
        // 15,096 operand elements per token and layer, and the 13.096M weights of a layer once per micro-batch (the
        // same pass writes both orientations).
        QCOMPARE(memoryBoundTime(h.x).fp8CastBytes, 5.125 * (1e4 * 15096.0 + 10 * 13.096e6));
        h.scenario.flags.fp4Recipe = Fp4Recipe::Mxfp4;
        QCOMPARE(memoryBoundTime(h.x).fp8CastBytes, 3.0625 * (1e4 * 15096.0 + 10 * 13.096e6));
        QCOMPARE(linearGemmPeak(h.x), 1e15); // the same block-scaled MMA
        // A quarter of the linear layers kept in BF16: 0.5 / (0.75 / 2e15 + 0.25 / 1e15) = 8e14, and a quarter less
        // to cast.
        h.scenario.flags.fp4Bf16LayerShare = 0.25;
        QCOMPARE(linearGemmPeak(h.x), 8e14);
        QCOMPARE(memoryBoundTime(h.x).fp8CastBytes, 0.75 * 3.0625 * (1e4 * 15096.0 + 10 * 13.096e6));
        // Under TP 4 with sequence parallelism every operand is a quarter (the shard is cast, the FP4 tensor
        // gathered); without it the two hidden-wide operands (2 x 1,000 a token and layer) are whole on every rank.
        h.scenario.flags.fp4Bf16LayerShare = 0;
        h.setTp(4);
        QCOMPARE(memoryBoundTime(h.x).fp8CastBytes, 3.0625 * (1e4 * 15096.0 + 10 * 13.096e6) / 4.0);
        h.x.sequenceParallel = false;
        QCOMPARE(memoryBoundTime(h.x).fp8CastBytes, 3.0625 * (1e4 * (2000.0 + 13096.0 / 4.0) + 10 * 13.096e6 / 4.0));
    }

    // A GPU without an FP4 peak refuses BF16+FP4; NVFP4 needs NVIDIA's Blackwell, MXFP4 runs on AMD's MI355X too.
    void fp4RefusedWithoutItsTensorCores()
    {
        for (const char* gpu : { "a100-sxm-80gb", "h100-sxm", "h200", "mi300x" }) {
            Scenario s = scenarioFor(llama31_8b(), gpu, 8, 8192);
            s.precision = TrainingPrecision::BF16_FP4;
            const char* why = CostModel(s).invalidReason(s);
            QVERIFY2(why && std::string(why).find("BF16+FP4 needs a dense FP4 peak") == 0, gpu);
        }
        Scenario b200 = scenarioFor(llama31_8b(), "b200", 8, 8192);
        b200.precision = TrainingPrecision::BF16_FP4;
        QVERIFY(!CostModel(b200).invalidReason(b200));
        Scenario amd = scenarioFor(llama31_8b(), "mi355x", 8, 8192);
        amd.precision = TrainingPrecision::BF16_FP4;
        QCOMPARE(std::string(CostModel(amd).invalidReason(amd)),
            std::string("NVFP4 needs NVIDIA Blackwell tensor cores (E4M3 block scales): use the mxfp4 recipe"));
        amd.flags.fp4Recipe = Fp4Recipe::Mxfp4;
        QVERIFY(!CostModel(amd).invalidReason(amd));
        // On a B200 the FP4 run is faster than the FP8 one, and its TFLOPS are bounded by the FP4 peak, not FP8's.
        Scenario fp8 = b200;
        fp8.precision = TrainingPrecision::BF16_FP8;
        QVERIFY(evaluate(b200).tokensPerSec > evaluate(fp8).tokensPerSec);
        QCOMPARE(precisionPeakFlops(b200.cluster.hardware, b200.precision), 9000e12);
        // MFU against the BF16 peak may reach FP4's peak over BF16's (4x on B200), FP8's (2x) for BF16+FP8, 100% for
        // BF16.
        QCOMPARE(utilisationCeiling(b200.cluster.hardware, b200.precision), 4.0);
        QCOMPARE(utilisationCeiling(b200.cluster.hardware, TrainingPrecision::BF16_FP8), 2.0);
        QCOMPARE(utilisationCeiling(b200.cluster.hardware, TrainingPrecision::BF16), 1.0);
        // A GPU without the precision's peak is bounded by its BF16 one.
        const Scenario a100 = scenarioFor(llama31_8b(), "a100-sxm-80gb", 8, 8192);
        QCOMPARE(utilisationCeiling(a100.cluster.hardware, TrainingPrecision::BF16_FP8), 1.0);
    }

    // FP8 attention: the forward at FlashAttention-3's FP8 speed, the backward as it was; refused where no kernel or
    // peak has FP8.
    void fp8AttentionSpeedsTheForward()
    {
        Hand h;
        const AttentionTime bf16 = attentionTime(h.x);
        h.scenario.flags.fp8Attention = true;
        const AttentionTime fp8 = attentionTime(h.x);
        QVERIFY(std::abs(fp8.forward - bf16.forward / kFp8AttentionForwardSpeedup) < 1e-15);
        QCOMPARE(fp8.backward, bf16.backward);

        Scenario s = scenarioFor(llama31_8b(), "h100-sxm", 8, 8192);
        s.flags.fp8Attention = true;
        QVERIFY(!CostModel(s).invalidReason(s)); // FlashAttention 3 on Hopper
        Scenario ampere = scenarioFor(llama31_8b(), "a100-sxm-80gb", 8, 8192);
        ampere.flags.fp8Attention = true;
        QCOMPARE(std::string(CostModel(ampere).invalidReason(ampere)),
            std::string("FP8 attention needs a dense FP8 peak for this hardware"));
    }

    // A whole step with CUDA graphs is shorter by exactly the launch overhead they replay; the per-step overhead
    // (data loading, logging, clipping) stays.
    void cudaGraphsRemoveTheLaunchOverheadOfAStep()
    {
        Scenario s = scenarioFor(llama31_70b(), "h100-sxm", 64, 8192, 4, ActivationCheckpointing::Full, 2, 2);
        const StepPrediction none = evaluate(s);
        s.flags.cudaGraphs = CudaGraphs::FullIteration;
        const StepPrediction full = evaluate(s);
        QCOMPARE(full.time.overhead, CostModel(s).constants().perStepOverheadSeconds);
        QVERIFY(std::abs((none.stepTimeSeconds - full.stepTimeSeconds) - (none.time.overhead - full.time.overhead))
            < 1e-12);
        QVERIFY(full.mfu > none.mfu);
    }

    // The host link: the preset's figure, or PCIe Gen5 x16 (64 GB/s a direction) where none is stated, at
    // hostLinkEfficiency (0.8).
    void hostLink()
    {
        Hand h;
        QCOMPARE(hostLinkBytesPerSec(h.x), 64e9 * 0.8);
        h.scenario.cluster.hardware.hostLinkBytesPerSec = 225e9; // NVLink-C2C's share of one GB200 GPU
        QCOMPARE(hostLinkBytesPerSec(h.x), 180e9);
    }

    // Activation offload: 1e10 bytes each way over 100 GB/s is 0.1 s a direction, the copies out under the forward,
    // the copies back under the backward. Behind 0.2 s of forward and 0.4 s of backward 15% of each stays exposed
    // (hostOffloadExposedFraction), 0.03 s in all; behind a 0.05 s forward the copies out show their other 0.05 s,
    // and with no backward to hide them the copies back show whole: (0.05 + 0.05 x 0.15) + 0.1. A forward of nothing
    // hides nothing, however long the backward. Under 1F1B both directions copy at once beside forward and backward
    // together: max(0, 0.1 - 0.05) + 2 x 0.15 x 0.05. Less compute never makes the micro-batch longer.
    void activationOffloadTraffic()
    {
        Hand h;
        h.scenario.cluster.hardware.hostLinkBytesPerSec = 125e9;
        QCOMPARE(h.constants.hostOffloadExposedFraction, 0.15);
        const CommTime hidden = activationOffloadComm(h.x, 1e10, 0.2, 0.4);
        QCOMPARE(hidden.total, 0.2);
        QVERIFY(std::abs(hidden.exposed - 0.03) < 1e-15);
        const CommTime bound = activationOffloadComm(h.x, 1e10, 0.05, 0.0);
        QVERIFY(std::abs(bound.exposed - ((0.05 + 0.05 * 0.15) + 0.1)) < 1e-15);
        QVERIFY(std::abs(activationOffloadComm(h.x, 1e10, 0.0, 0.6).exposed - (0.1 + 0.1 * 0.15)) < 1e-15);
        QCOMPARE(activationOffloadComm(h.x, 0, 0.2, 0.4).total, 0.0);
        const auto microBatch = [&h](double forward, double backward) {
            return forward + backward + activationOffloadComm(h.x, 1e10, forward, backward).exposed;
        };
        for (const double f : { 0.01, 0.05, 0.1, 0.2 })
            QVERIFY(microBatch(f, 2 * f) <= microBatch(f * 1.1, 2 * f * 1.1));
        h.scenario.parallelism.pp = 2;
        QVERIFY(std::abs(activationOffloadComm(h.x, 1e10, 0.05, 0.0).exposed - (0.05 + 2 * 0.15 * 0.05)) < 1e-15);
        for (const double f : { 0.01, 0.05, 0.1, 0.2 })
            QVERIFY(microBatch(f, 2 * f) <= microBatch(f * 1.1, 2 * f * 1.1));
    }

    // Optimizer offload of half the 1.25e8-parameter shard (1e9 over 8): 6.25e7 parameters. FP32 gradients down and
    // weights up over 100 GB/s, 2 x 6.25e7 x 4 bytes = 5e-3 s; the CPU's update at 40 GB/s of 28 bytes a parameter,
    // 4.375e-2 s. The GPU updates the other half meanwhile (1.75e-3 s of optimizer() 's 3.5e-3), so the step waits
    // for the host: 4.875e-2 s.
    void optimizerOffloadStep()
    {
        Hand h;
        h.scenario.cluster.hardware.hostLinkBytesPerSec = 125e9;
        h.x.modelParallelParams = 1e9;
        h.x.denseStageParams = 1e9;
        h.x.fsdpGroup = 8;
        h.scenario.parallelism.dataParallel = DataParallelKind::MegatronFsdp;
        const OptimizerOffload none = optimizerOffload(h.x, 3.5e-3);
        QCOMPARE(none.gpuSeconds, 3.5e-3);
        QCOMPARE(none.hostSeconds, 0.0);
        h.scenario.flags.optimizerOffloadFraction = 0.5;
        QCOMPARE(h.constants.cpuOptimizerBytesPerSec, 40e9);
        const OptimizerOffload half = optimizerOffload(h.x, 3.5e-3);
        QCOMPARE(half.gpuSeconds, 1.75e-3);
        QCOMPARE(half.hostSeconds, 5e-3 + 4.375e-2);
        QCOMPARE(half.stepSeconds(), 4.875e-2);
        QCOMPARE(fsdpHostShardShare(h.scenario), 0.0);
        // torch FSDP's CPUOffload keeps the FP32 shards on the host: the optimizer copies nothing of its own...
        h.scenario.parallelism.dataParallel = DataParallelKind::Fsdp;
        h.scenario.flags.optimizerOffloadFraction = 1.0;
        QCOMPARE(fsdpHostShardShare(h.scenario), 1.0);
        QCOMPARE(optimizerOffload(h.x, 3.5e-3).hostSeconds, 8.75e-2);
        // ...while every pass of all-gathers first copies the rank's 1.25e8-parameter FP32 shard in (5e8 bytes at
        // 100 GB/s, beside the 1.75e-2 s the gathers take: fsdp() below) and every pass of reduce-scatters copies
        // its FP32 gradient shard out.
        const FsdpComm f = fsdpComm(h.x, 1.0, 2.0);
        QCOMPARE(f.allGather, 1.75e-2 + 5e-3);
        QCOMPARE(f.reduceScatter, 3.5e-2 + 5e-3);
        // Reduced in BF16, the collective halves; the gradient goes to the host in its FP32 parameters' dtype.
        h.x.reduceBytes = 2.0;
        QCOMPARE(fsdpComm(h.x, 1.0, 2.0).reduceScatter, 1.75e-2 + 5e-3);
        h.x.reduceBytes = 4.0;
        // With one GPU there is nothing to gather, and the copies are all there is: the whole 1e9 in FP32, 4e-2 s.
        h.x.fsdpGroup = 1;
        QCOMPARE(fsdpComm(h.x, 1.0, 2.0).allGather, 4e-2);
    }

    // Megatron-FSDP moves FSDP's bytes (fsdp() above: 1.75e-2 s of all-gather, 3.5e-2 s of reduce-scatter per
    // micro-batch) but hides the micro-batch's traffic, 2 x 1.75e-2 + 3.5e-2 = 7e-2 s, behind all of its 3 s of
    // compute at once, 12% exposed, split in proportion; the first gathered and last reduced unit once per step.
    void megatronFsdp()
    {
        Hand h;
        h.scenario.parallelism.dataParallel = DataParallelKind::MegatronFsdp;
        h.x.fsdpGroup = 8;
        h.x.denseParams = 1e9;
        h.x.denseStageParams = 1e9;
        h.x.prefetchExposedShare = 0.12;
        const FsdpComm f = fsdpComm(h.x, 1.0, 2.0);
        QCOMPARE(f.allGather, 1.75e-2);
        QCOMPARE(f.reduceScatter, 3.5e-2);
        const double exposed = 7e-2 * 0.12;
        QCOMPARE(f.allGatherForwardExposed, exposed / 4);
        QCOMPARE(f.allGatherBackwardExposed, exposed / 4);
        QCOMPARE(f.allGatherForwardExposed + f.allGatherBackwardExposed + f.reduceScatterExposed, exposed);
        QCOMPARE(f.allGatherStepExposed, 1.75e-2 / 11);
        QCOMPARE(f.reduceScatterStepExposed, 3.5e-2 / 11);
        // Comm-bound: what 0.05 s of compute cannot hide shows, 7e-2 - 5e-2 + 5e-2 x 0.12.
        const FsdpComm bound = fsdpComm(h.x, 0.02, 0.03);
        QCOMPARE(bound.allGatherForwardExposed + bound.allGatherBackwardExposed + bound.reduceScatterExposed,
            2e-2 + 5e-2 * 0.12);
    }

    // Memory freed by offload, on the hand model (1e9 parameters over 8, 1,000 tokens, 10 layers, one micro-batch in
    // flight): the optimizer's offloaded share of the 12 bytes a parameter of master weights and moments, and the
    // offloaded activations but for a double buffer of one layer's.
    void offloadFreesMemory()
    {
        Hand h;
        StepMemoryInputs in = h.memoryInputs(1e9);
        in.fsdpGroup = 8;
        in.tokensPerMicroBatch = 1000;
        in.layersPerStage = 10;
        h.scenario.parallelism.dataParallel = DataParallelKind::MegatronFsdp;
        const MemoryBreakdown kept = stepMemory(in);
        h.scenario.flags.optimizerOffloadFraction = 0.5;
        const MemoryBreakdown half = stepMemory(in);
        QCOMPARE((kept.parameters + kept.optimizerState) - (half.parameters + half.optimizerState), 0.5 * 12 * 1.25e8);
        QCOMPARE(half.gradients, kept.gradients); // the GPU reduces the gradients before they go down
        // torch FSDP's CPUOffload keeps the reduced FP32 gradient shard on the host as well.
        h.scenario.parallelism.dataParallel = DataParallelKind::Fsdp;
        QCOMPARE(kept.gradients - stepMemory(in).gradients, 0.5 * 4 * 1.25e8);
        // All activations offloaded: 2 of the 10 layers' worth stay; half of them: 5 + 1 of 10.
        h.scenario.flags.activationOffloadFraction = 1.0;
        QCOMPARE(stepMemory(in).activations, kept.activations * 2 / 10);
        h.scenario.flags.activationOffloadFraction = 0.5;
        QCOMPARE(stepMemory(in).activations, kept.activations * 6 / 10);
        QCOMPARE(offloadedActivationBytesPerTokenLayer(in), kept.activations / 1000 / 10 / 2);
    }

    // Megatron's offload modules on the MoE hand model (2 of 16 experts a token, expert load 1): expert_fc1 keeps the
    // 2 dispatched copies of the 1,000-wide hidden vector, 2 x 2 x 1,000 bytes; moe_act the routed experts' FC1
    // output, 4 x 3,000 bytes (gate and up). Full checkpointing saves neither.
    void offloadModules()
    {
        Hand h;
        h.makeMoe(1);
        ActivationLayout layout;
        const auto bytes
            = [&](unsigned modules) { return offloadedModuleBytesPerToken(h.shape, layout, 1.0, 1.0, modules); };
        QCOMPARE(bytes(0), 0.0);
        QCOMPARE(bytes(OffloadExpertFc1), 4000.0);
        QCOMPARE(bytes(OffloadMoeActivation), 12000.0);
        QCOMPARE(bytes(OffloadExpertFc1 | OffloadMoeActivation), 16000.0);
        layout.tp = 2; // each GPU holds half of the copies and of the FC1 output
        QCOMPARE(bytes(OffloadExpertFc1 | OffloadMoeActivation), 8000.0);
        // moe_act follows the busiest rank's load, as the saved FC1 output does: 1.1 x 12,000 / 2.
        QCOMPARE(offloadedModuleBytesPerToken(h.shape, layout, 1.1, 1.0, OffloadMoeActivation), 6600.0);
        // TorchTitan's op-level policy keeps half the matmul outputs (selectiveKeptMatmulFraction): only those leave.
        layout.recompute = ActivationRecompute::OpLevel;
        layout.keptMatmulFraction = 0.5;
        QCOMPARE(bytes(OffloadMoeActivation), 3000.0);
        QCOMPARE(bytes(OffloadExpertFc1), 2000.0); // its policy saves the all-to-all's output whole
        layout.recompute = ActivationRecompute::Full;
        QCOMPARE(bytes(OffloadExpertFc1 | OffloadMoeActivation), 0.0);
    }

    // Megatron's block method of full checkpointing: the layers it does not recompute keep their experts' tensors,
    // and the named modules offload them; with every layer recomputed nothing is left, and the setting says so.
    void offloadModulesUnderPartialFullCheckpointing()
    {
        Scenario s = scenarioFor(mixtral_8x7b(), "h100-sxm", 8, 4096, 1, ActivationCheckpointing::Full);
        s.parallelism.ep = 8;
        s.flags.recomputeLayers = 16; // of 32
        const auto offloadTime
            = [](const Scenario& sc) { return evaluate(sc).commSeconds[size_t(CommKind::HostOffload)]; };
        QCOMPARE(offloadTime(s), 0.0);
        s.flags.activationOffloadModules = OffloadExpertFc1 | OffloadMoeActivation;
        QVERIFY(offloadTime(s) > 0);
        const double memoryHalf = evaluate(s).memory.activations;
        s.flags.activationOffloadModules = 0;
        QVERIFY(evaluate(s).memory.activations > memoryHalf);
        QVERIFY(ignoredSettings(s).empty());
        s.flags.activationOffloadModules = OffloadExpertFc1 | OffloadMoeActivation;
        s.flags.recomputeLayers = 32; // all of them, as recompute_layers 0 says
        QCOMPARE(offloadTime(s), 0.0);
        QCOMPARE(ignoredSettings(s).size(), size_t(1));
        s.flags.recomputeLayers = 0;
        QCOMPARE(offloadTime(s), 0.0);
        const std::vector<IgnoredSetting> ignored = ignoredSettings(s);
        QCOMPARE(ignored.size(), size_t(1));
        QCOMPARE(QString::fromUtf8(ignored[0].key.data(), qsizetype(ignored[0].key.size())),
            QStringLiteral("activation_offload_modules"));
    }

    // A whole step: offload costs time on the host link and frees memory; nonsense is refused with the reason.
    void offloadInAWholeStep()
    {
        Scenario s = scenarioFor(llama31_70b(), "h100-sxm", 64, 8192, 4, ActivationCheckpointing::Full, 2, 2);
        const StepPrediction none = evaluate(s);
        QCOMPARE(none.time.comm(CommKind::HostOffload), 0.0);
        s.flags.activationOffloadFraction = 1.0;
        s.flags.optimizerOffloadFraction = 1.0;
        const StepPrediction both = evaluate(s);
        QVERIFY(both.time.comm(CommKind::HostOffload) > 0);
        QVERIFY(both.commSeconds[size_t(CommKind::HostOffload)] >= both.time.comm(CommKind::HostOffload));
        QVERIFY(both.memory.total() < none.memory.total());
        QVERIFY(both.stepTimeSeconds > none.stepTimeSeconds);
        QCOMPARE(both.time.total(), both.stepTimeSeconds);
        s.flags.optimizerOffloadFraction = 1.5;
        QCOMPARE(QString(CostModel(s).invalidReason(s)),
            QStringLiteral("offload fractions must lie between 0 (none) and 1 (all)"));
        QVERIFY(CostModel(s).invalidReasonText(s)->find("optimizer 1.50") != std::string::npos);
        s.flags.optimizerOffloadFraction = 0.5;
        s.flags.activationOffloadFraction = -0.1;
        QVERIFY(CostModel(s).invalidReason(s));
        s.flags.activationOffloadFraction = 0;
        s.flags.optimizerInBackward = true;
        QVERIFY(QString(CostModel(s).invalidReason(s)).contains(QStringLiteral("cannot run inside backward")));
        // Megatron-FSDP holds what torch FSDP holds.
        s.flags = FrameworkFlags {};
        const StepPrediction fsdp = evaluate(s);
        s.parallelism.dataParallel = DataParallelKind::MegatronFsdp;
        const StepPrediction megatron = evaluate(s);
        QCOMPARE(megatron.memory.total(), fsdp.memory.total());
        QVERIFY(megatron.commSeconds[size_t(CommKind::FsdpAllGather)] > 0);
    }

    // The terms add up to the step the cost model reports.
    void termsAddUpToTheStep()
    {
        Scenario s = scenarioFor(llama31_70b(), "h100-sxm", 64, 8192, 4, ActivationCheckpointing::Full, 2, 2);
        s.parallelism.pp = 2;
        const StepPrediction p = evaluate(s);
        QCOMPARE(p.time.total(), p.stepTimeSeconds);
        const CostModel model(s);
        const HardwareSpec& hw = s.cluster.hardware;
        const StepContext x = stepContextFor(s, model.shape(), model.constants(), *hw.mfuPeak(),
            hw.densePeak(NumberFormat::FP8).value_or(0.0), acceleratorFamilyOf(hw));
        const MatmulTime m = matmulTime(x, s.model);
        QCOMPARE(p.time.matmul, x.microBatches * m.total());
        QCOMPARE(p.time.attention, x.microBatches * attentionTime(x).total());
    }
};

QTEST_GUILESS_MAIN(TestStepTerms)
#include "tst_step_terms.moc"
