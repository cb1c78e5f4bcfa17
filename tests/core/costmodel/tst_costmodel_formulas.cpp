// The cost model's building blocks against worked numbers: activation memory per layer (Korthikanti et al. 2022,
// GPT-3 175B with s = 2048, b = 1, t = 8), ring-collective volumes, tiers, and calibration round trips.
#include <QtTest>

#include "core/costmodel/activation_memory.h"
#include "core/costmodel/calibration.h"
#include "core/costmodel/collectives.h"
#include "core/costmodel/cost_model.h"
#include "core/errors.h"
#include "costmodel_fixtures.h"

using namespace mfu;
using namespace mfu::test;

namespace {
// GPT-3 175B as Korthikanti et al. analyse it: MHA, 4h GELU FFN, dropout, no flash attention.
LayerShape gpt3Layer()
{
    LayerShape x;
    x.hidden = 12288;
    x.heads = 96;
    x.kvHeads = 96;
    x.qkHeadDim = 128;
    x.vHeadDim = 128;
    x.ffnDim = 4 * 12288;
    x.gatedFfn = false;
    x.dropout = true;
    x.flashAttention = false;
    return x;
}
} // namespace

class TestCostModelFormulas : public QObject {
    Q_OBJECT
private slots:
    void korthikantiActivationMemory_data()
    {
        QTest::addColumn<bool>("sp");
        QTest::addColumn<int>("recompute");
        QTest::addColumn<double>("expectedBytesPerLayer");
        const double s = 2048, h = 12288, a = 96, t = 8, sbh = s * h;
        // Table 2 of the paper, as closed forms (bytes per layer for one sequence):
        QTest::newRow("TP, no recompute: sbh(10 + 24/t + 5as/(ht))")
            << false << int(ActivationRecompute::None) << sbh * (10 + 24 / t + 5 * a * s / (h * t));
        QTest::newRow("TP + SP: sbh(34/t + 5as/(ht))")
            << true << int(ActivationRecompute::None) << sbh * (34 / t + 5 * a * s / (h * t));
        QTest::newRow("TP + selective: sbh(10 + 24/t)")
            << false << int(ActivationRecompute::AttentionCore) << sbh * (10 + 24 / t);
        QTest::newRow("TP + SP + selective: sbh 34/t")
            << true << int(ActivationRecompute::AttentionCore) << sbh * 34 / t;
        QTest::newRow("full recompute: 2sbh") << false << int(ActivationRecompute::Full) << 2 * sbh;
        QTest::newRow("full recompute + SP: 2sbh/t") << true << int(ActivationRecompute::Full) << 2 * sbh / t;
    }
    void korthikantiActivationMemory()
    {
        QFETCH(bool, sp);
        QFETCH(int, recompute);
        QFETCH(double, expectedBytesPerLayer);
        ActivationLayout layout;
        layout.tp = 8;
        layout.sequenceParallel = sp;
        layout.recompute = static_cast<ActivationRecompute>(recompute);
        QCOMPARE(activationBytesPerTokenLayer(gpt3Layer(), 2048, layout) * 2048, expectedBytesPerLayer);
    }

    // Llama 3.1 8B (GQA 32/8, SwiGLU 14336, flash attention, no dropout), one GPU, bytes per token per layer:
    // norms 2 x 2h + QKV/MLP inputs 2 x 2h + Q 2h + K,V 2 x 2 x 1024 + attention out 2h + 3 x 2F + LSE 4 x 32.
    void llamaActivationMemory()
    {
        const LayerShape x = modelShapeOf(llama31_8b()).layer;
        ActivationLayout eager;
        QCOMPARE(
            activationBytesPerTokenLayer(x, 8192, eager), 8.0 * 4096 + 2 * (4096 + 2048) + 2 * 4096 + 6 * 14336 + 128);
        ActivationLayout compiled;
        compiled.compiledRematerialisation = true; // norm outputs and the SwiGLU product are recomputed
        QCOMPARE(activationBytesPerTokenLayer(x, 8192, compiled),
            4.0 * 4096 + 2 * (4096 + 2048) + 2 * 4096 + 4 * 14336 + 128);
        ActivationLayout op;
        op.recompute = ActivationRecompute::OpLevel; // input, attention output, half the matmul outputs
        const double matmulOutputs = 2 * (4096 + 2048) + 2 * 4096 + 4 * 14336 + 2 * 4096;
        QCOMPARE(activationBytesPerTokenLayer(x, 8192, op), 2.0 * 4096 + 2 * 4096 + 128 + 0.5 * matmulOutputs);
    }

    void ringVolumes_data()
    {
        QTest::addColumn<int>("collective");
        QTest::addColumn<int>("n");
        QTest::addColumn<double>("bytes");
        QTest::addColumn<int>("steps");
        QTest::newRow("all-reduce 8: 2(n-1)/n") << int(Collective::AllReduce) << 8 << 1.75e9 << 14;
        QTest::newRow("all-gather 8: (n-1)/n") << int(Collective::AllGather) << 8 << 0.875e9 << 7;
        QTest::newRow("reduce-scatter 4") << int(Collective::ReduceScatter) << 4 << 0.75e9 << 3;
        QTest::newRow("all-to-all 2") << int(Collective::AllToAll) << 2 << 0.5e9 << 1;
        QTest::newRow("single rank moves nothing") << int(Collective::AllReduce) << 1 << 0.0 << 0;
    }
    void ringVolumes()
    {
        QFETCH(int, collective);
        QFETCH(int, n);
        QFETCH(double, bytes);
        QFETCH(int, steps);
        QCOMPARE(ringBytesPerGpu(static_cast<Collective>(collective), 1e9, n), bytes);
        QCOMPARE(ringSteps(static_cast<Collective>(collective), n), steps);
    }

    void tiers()
    {
        LinkTiers t;
        t.scaleUpBytesPerSec = 400e9;
        t.scaleOutBytesPerSec = 40e9;
        t.scaleUpLatency = 0;
        t.scaleOutLatency = 0;
        t.domainGpus = 8;
        t.crossDomainRings = 8;
        // Inside one node: NVLink.
        QCOMPARE(collectiveSeconds(Collective::AllGather, 8e9, { 8, 1 }, t), 7e9 / 400e9);
        // One GPU per node (stride 8): every ring hop is a NIC.
        QCOMPARE(collectiveSeconds(Collective::AllGather, 8e9, { 8, 8 }, t), 7e9 / 40e9);
        // 16 GPUs over two nodes: 8 rails of NICs in parallel, 320 GB/s < NVLink.
        QCOMPARE(collectiveSeconds(Collective::AllGather, 16e9, { 16, 1 }, t), 15e9 / 320e9);
        // All-to-all: the 8 peers outside the node are reached through this GPU's NIC.
        QCOMPARE(collectiveSeconds(Collective::AllToAll, 16e9, { 16, 1 }, t), 15e9 * 8.0 / 15.0 / 40e9);
        t.scaleOutLatency = 1e-5;
        QCOMPARE(collectiveSeconds(Collective::AllReduce, 0.0, { 16, 1 }, t), 0.0);
        QVERIFY(qFuzzyCompare(collectiveSeconds(Collective::AllReduce, 16e9, { 16, 1 }, t), 30e9 / 320e9 + 30 * 1e-5));
        // A calibration's traffic stretch: the whole collective, bandwidth and latency alike.
        t.trafficScale = 1.5;
        QVERIFY(qFuzzyCompare(
            collectiveSeconds(Collective::AllReduce, 16e9, { 16, 1 }, t), 1.5 * (30e9 / 320e9 + 30 * 1e-5)));
        // GPUs without NVLink (L40S): each a domain of its own, no scale-up link; a ring over 16 of them runs at the
        // NIC (it had been capped by the absent link, 1 B/s: billions of seconds).
        LinkTiers pcie;
        pcie.scaleUpBytesPerSec = 1.0;
        pcie.scaleOutBytesPerSec = 12.5e9;
        pcie.domainGpus = 1;
        QCOMPARE(collectiveSeconds(Collective::AllGather, 16e9, { 16, 1 }, pcie), 15e9 / 12.5e9);
    }

    void calibrationRoundTrip_data()
    {
        QTest::addColumn<double>("measured");
        QTest::newRow("Lambda baseline 44.46%") << 0.4446;
        QTest::newRow("Lambda tuned 55.34%") << 0.5534;
        QTest::newRow("higher than predicted") << 0.62;
    }
    void calibrationRoundTrip()
    {
        QFETCH(double, measured);
        const Scenario s = scenarioFor(llama31_8b(), "b200", 8, 8192);
        const CalibrationResult r = calibrateToMfu(s, measured);
        QVERIFY(qAbs(r.after.mfu - measured) < 1e-6);
        QVERIFY(r.scale > 0);
        QCOMPARE(r.before.mfu, evaluate(s).mfu);
        QVERIFY((measured < r.before.mfu) == (r.scale < 1.0));
        // The calibrated constants move the other predictions the same way.
        Scenario other = scenarioFor(llama31_8b(), "b200", 8, 32768);
        const double uncalibrated = evaluate(other).mfu;
        other.costModel = r.constants;
        QVERIFY((evaluate(other).mfu < uncalibrated) == (r.scale < 1.0));
    }
    // Every HBM efficiency scales with k, the eager kernels' under autocast too: an eager autocast step's memory-bound
    // work (elementwise, loss and optimizer alike) takes 1/k of its time once calibrated.
    void calibrationScalesEagerAutocastBandwidth()
    {
        Scenario s = scenarioFor(llama31_8b(), "h100-sxm", 8, 8192);
        s.flags.compiled = false;
        s.flags.autocast = true;
        const CalibrationResult r = calibrateToMfu(s, 0.8 * evaluate(s).mfu);
        QVERIFY(r.scale < 1.0);
        QVERIFY(qAbs(r.after.time.memoryBound * r.scale / r.before.time.memoryBound - 1.0) < 1e-9);
    }

    // The reachable range ends where every scaled efficiency reaches 1, the eager autocast kernels' HBM efficiency
    // included when it is the lowest; it ended where the GEMM, attention and compiled HBM ones did, and an eager run
    // measured between the two was refused as unreachable.
    void calibrationReachesTheLowestEfficiencysCeiling()
    {
        Scenario s = scenarioFor(llama31_8b(), "h100-sxm", 8, 8192);
        s.flags.compiled = false;
        s.flags.autocast = true;
        CostModelConstants slowEager = costModelConstantsFor(s);
        slowEager.eagerHbmEfficiency = 0.3; // below the others, as a slow framework's eager kernels may be
        s.costModel = slowEager;
        const CostModelConstants base = costModelConstantsFor(s);
        const double others = std::min({ base.gemmEfficiency, base.attentionForwardEfficiency,
            base.attentionBackwardEfficiency, base.hbmEfficiency });
        QVERIFY(base.eagerHbmEfficiency < others);
        const auto mfuAt = [&](double k) {
            return CostModel(s.model, s.cluster.hardware, scaledEfficiencies(base, k)).evaluateValid(s).mfu;
        };
        const double ceiling = mfuAt(1.0 / base.eagerHbmEfficiency);
        const double measured = 0.5 * (mfuAt(1.0 / others) + ceiling);
        QVERIFY(measured > mfuAt(1.0 / others));
        const CalibrationResult r = calibrateToMfu(s, measured);
        QVERIFY(qAbs(r.after.mfu / measured - 1.0) < 1e-6);
    }

    void calibrationFromThroughputAndErrors()
    {
        const Scenario s = scenarioFor(llama31_8b(), "b200", 8, 8192);
        // Lambda's worked example: 21,111 tokens/s per GPU.
        const CalibrationResult r = calibrateToTokensPerSecPerGpu(s, 21111);
        QVERIFY(qAbs(r.after.tokensPerSecPerGpu - 21111) < 0.01);
        QVERIFY_THROWS_EXCEPTION(InputError, calibrateToMfu(s, 0.0));
        QVERIFY_THROWS_EXCEPTION(InputError, calibrateToMfu(s, 0.99)); // beyond any efficiency
    }
};

QTEST_GUILESS_MAIN(TestCostModelFormulas)
#include "tst_costmodel_formulas.moc"
