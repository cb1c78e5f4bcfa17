// MFU / HFU / TFLOPS against the worked examples in docs/references.md.
#include <QtTest>

#include "core/errors.h"
#include "core/model/flops.h"
#include "core/model/mfu.h"
#include "model_fixtures.h"

using namespace mfu;

namespace {
HardwareSpec gpu(const char* id, double bf16Tflops, double fp8Tflops)
{
    HardwareSpec h;
    h.id = id;
    h.peakDenseFlops[size_t(NumberFormat::BF16)] = bf16Tflops * 1e12;
    if (fp8Tflops > 0)
        h.peakDenseFlops[size_t(NumberFormat::FP8)] = fp8Tflops * 1e12;
    return h;
}
} // namespace

class TestMfu : public QObject {
    Q_OBJECT
private slots:
    void lambdaSingleB200()
    {
        // 21,111 tok/s on one B200 -> 1,223 TFLOPS, MFU 54.34% (Lambda's MFU paper, appendix).
        const double flops = *countFlopsPerToken(test::llama31_8b(), 8192).palm;
        const MfuResult r = computeMfu(flops, 0, 21111, 1, gpu("b200", 2250, 4500), TrainingPrecision::BF16);
        QCOMPARE(qRound(r.achievedFlopsPerGpu / 1e12), 1223);
        QCOMPARE(qRound(r.mfu * 10000) / 100.0, 54.34);
        QCOMPARE(r.hfu, r.mfu); // no recompute
        QVERIFY(!r.mfuVsFp8Peak);
    }

    void tutorialSevenBOnEightH100()
    {
        // step 1.2 s, batch 8 x 4096 tokens, 6N with N = 7e9, 8 x H100 at 989 TFLOPS -> 14.5%.
        const double perStep = double(tokensPerStep(8, 4096, 1, 1));
        QCOMPARE(perStep, 32768.0);
        const Throughput t = throughputFromStep(1.2, perStep);
        QCOMPARE(qRound(t.tokensPerSec), 27307);
        const double sixN = countFlopsPerToken(bareModel(7'000'000'000), 4096).sixN;
        const MfuResult r
            = computeMfu(sixN, 0, tokensPerSecPerGpu(t, 8), 8, gpu("h100-sxm", 989, 1979), TrainingPrecision::BF16);
        QCOMPARE(qRound(r.achievedFlopsCluster / 1e12), 1147); // 1.147e15
        QCOMPARE(qRound(r.mfu * 1000) / 10.0, 14.5);
    }

    void throughputScopes()
    {
        QCOMPARE(tokensPerSecPerGpu({ 80000, ThroughputScope::Cluster }, 8), 10000.0);
        QCOMPARE(tokensPerSecPerGpu({ 10000, ThroughputScope::PerGpu }, 8), 10000.0);
        QCOMPARE(tokensPerStep(24, 2048, 64, 8), qint64(25'165'824)); // the B200 scaling report's 8-GPU iteration
        // The step time a throughput implies (the scenario editor switched to a step time): 1,048,576 tokens at
        // 80,000 tokens/s for the cluster, however the throughput is scoped; none without tokens or throughput.
        QCOMPARE(stepSecondsAt({ 80000, ThroughputScope::Cluster }, 8, 1048576), 1048576 / 80000.0);
        QCOMPARE(stepSecondsAt({ 10000, ThroughputScope::PerGpu }, 8, 1048576), 1048576 / 80000.0);
        QCOMPARE(stepSecondsAt({ 10000, ThroughputScope::PerGpu }, 8, 0), 0.0);
        QCOMPARE(stepSecondsAt({ 0, ThroughputScope::PerGpu }, 8, 1048576), 0.0);
    }

    void hfuAddsRecompute()
    {
        const ModelSpec m = test::llama31_8b();
        const double flops = *countFlopsPerToken(m, 8192).palm;
        const double extra = recomputeFlopsPerToken(m, 8192, ActivationCheckpointing::Full, FlopFormula::PaLM);
        const MfuResult r = computeMfu(flops, extra, 10000, 16, gpu("b200", 2250, 4500), TrainingPrecision::BF16);
        QCOMPARE(r.hfu / r.mfu, 4.0 / 3.0); // full recompute: HFU = 8N-style / 6N-style
    }

    void fp8ReportsBothPeaks()
    {
        const MfuResult r = computeMfu(1e10, 0, 100000, 8, gpu("b200", 2250, 4500), TrainingPrecision::BF16_FP8);
        QCOMPARE(r.achievedFlopsPerGpu, 1e15);
        QCOMPARE(r.mfu, 1e15 / 2250e12);
        QVERIFY(r.mfuVsFp8Peak.has_value());
        QCOMPARE(*r.mfuVsFp8Peak, 1e15 / 4500e12);
    }

    // FP4 linear layers can outrun the BF16 peak MFU is quoted against: MLPerf v5.1's Llama 3.1 405B on GB300 in NVFP4
    // ran 3,682 TFLOPS per GPU, 147% of the 2,500 BF16 peak. That is no impossible MFU; beyond the FP4 peak it is.
    void fp4CanPassTheBf16Peak()
    {
        HardwareSpec gb300 = gpu("gb300", 2500, 5000);
        gb300.peakDenseFlops[size_t(NumberFormat::FP4)] = 15000e12;
        const MfuResult r = computeMfu(3682e12 / 1e4, 0, 1e4, 512, gb300, TrainingPrecision::BF16_FP4);
        QCOMPARE(r.mfuCeiling, 6.0);
        QVERIFY(r.mfu > 1.4);
        QCOMPARE(*r.fp4PeakFlopsPerGpu, 15000e12);
        QCOMPARE(*r.mfuVsFp4Peak, 3682e12 / 15000e12);
        QVERIFY(!impossibleMfuWarning(r));
        QCOMPARE(formatMeasuredMfu(r.mfu, r.mfuCeiling).find("impossible"), std::string::npos);
        // The same throughput stated as BF16 is impossible.
        const MfuResult bf16 = computeMfu(3682e12 / 1e4, 0, 1e4, 512, gb300, TrainingPrecision::BF16);
        QCOMPARE(bf16.mfuCeiling, 1.0);
        QVERIFY(impossibleMfuWarning(bf16));
        // No figure is printed past the ceiling, only how far past it the inputs go: 3,682 / 2,500 = 1.47x.
        QCOMPARE(formatMeasuredMfu(bf16.mfu), std::string("not shown: 1.47x what the GPU can compute"));
        QVERIFY(impossibleMfu(bf16));
        QCOMPARE(formatMeasuredTflops(bf16), std::string("not shown: 1.47x what the GPU can compute"));
        QVERIFY(!impossibleMfu(r));
        QCOMPARE(formatMeasuredTflops(r), std::string("3,682.0 TFLOPS"));
    }

    // FP8 linear layers can pass the BF16 peak too (MLPerf v5.0's FP8 Llama 3.1 405B on 512 H200 ran at 98% of it):
    // the ceiling is the FP8 peak over the BF16 one, and the warning names it when a throughput passes even that.
    void fp8CanPassTheBf16Peak()
    {
        const HardwareSpec h100 = gpu("h100", 989.5, 1979);
        const MfuResult r = computeMfu(1.1 * 989.5e12 / 1e4, 0, 1e4, 8, h100, TrainingPrecision::BF16_FP8);
        QCOMPARE(r.mfuCeiling, 2.0);
        QVERIFY(r.mfu > 1.09);
        QVERIFY(!impossibleMfuWarning(r));
        QCOMPARE(*r.mfuVsFp8Peak, 0.55);
        const MfuResult beyond = computeMfu(2.1 * 989.5e12 / 1e4, 0, 1e4, 8, h100, TrainingPrecision::BF16_FP8);
        const auto warning = impossibleMfuWarning(beyond);
        QVERIFY(warning);
        QVERIFY2(warning->find("MFU above 200.00% (the BF16+FP8 run's dense FP8 peak over the BF16 one) is impossible")
                != std::string::npos,
            warning->c_str());
    }

    void badInputs()
    {
        const HardwareSpec h = gpu("b200", 2250, 4500);
        QVERIFY_THROWS_EXCEPTION(InputError, computeMfu(0, 0, 1000, 1, h, TrainingPrecision::BF16));
        QVERIFY_THROWS_EXCEPTION(InputError, computeMfu(1e9, 0, -5, 1, h, TrainingPrecision::BF16));
        QVERIFY_THROWS_EXCEPTION(InputError, computeMfu(1e9, 0, 1000, 0, h, TrainingPrecision::BF16));
        QVERIFY_THROWS_EXCEPTION(InputError, computeMfu(1e9, 0, qQNaN(), 1, h, TrainingPrecision::BF16));
        QVERIFY_THROWS_EXCEPTION(InputError, computeMfu(1e9, 0, 1000, 1, HardwareSpec {}, TrainingPrecision::BF16));
        QVERIFY_THROWS_EXCEPTION(InputError, tokensPerStep(0, 2048, 1, 1));
        QVERIFY_THROWS_EXCEPTION(InputError, throughputFromStep(0, 1000));
    }
};

QTEST_GUILESS_MAIN(TestMfu)
#include "tst_mfu.moc"
