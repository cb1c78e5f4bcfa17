// Sweeps along sequence length, GPU count, precision and the network: the current configuration and the planner's best
// per point, with points that do not fit kept and marked.
#include <QtTest>

#include "core/costmodel/cost_model.h"
#include "core/costmodel/sweep.h"
#include "core/errors.h"
#include "core/model/hardware_spec.h"
#include "costmodel_fixtures.h"

using namespace mfu;
using namespace mfu::test;

class TestSweep : public QObject {
    Q_OBJECT
private slots:
    void axisKeys()
    {
        QCOMPARE(sweepAxisFromKey("seq"), std::optional<SweepAxis>(SweepAxis::SeqLen));
        QCOMPARE(sweepAxisFromKey("gpus"), std::optional<SweepAxis>(SweepAxis::GpuCount));
        QCOMPARE(sweepAxisFromKey("precision"), std::optional<SweepAxis>(SweepAxis::Precision));
        QCOMPARE(sweepAxisFromKey("network"), std::optional<SweepAxis>(SweepAxis::Network));
        QCOMPARE(defaultSweepValues(SweepAxis::Network),
            (std::vector<double> { 25, 50, 100, 200, 400, 800, 1600, 3200 })); // a cloud NIC to two 1.6T per GPU
        QVERIFY(!sweepAxisFromKey("batch"));
        QCOMPARE(defaultSweepValues(SweepAxis::SeqLen).front(), 2048.0);
        QCOMPARE(defaultSweepValues(SweepAxis::SeqLen).back(), 131072.0);
        QCOMPARE(defaultSweepValues(SweepAxis::GpuCount).back(), 16384.0);
        // The run's own precision is a point of its precision sweep, on every surface (the CLI's `sweep`, the Predict
        // panel and the report all leave the values to this default).
        QCOMPARE(defaultSweepValues(SweepAxis::Precision), (std::vector<double> { 0, 1 }));
        QCOMPARE(
            defaultSweepValues(SweepAxis::Precision, TrainingPrecision::BF16_FP4), (std::vector<double> { 0, 1, 2 }));
        Scenario fp4 = scenarioFor(llama31_8b(), "b200", 8, 8192);
        fp4.precision = TrainingPrecision::BF16_FP4;
        const SweepResult r = runSweep(fp4, SweepAxis::Precision);
        QCOMPARE(int(r.points.size()), 3);
        QCOMPARE(r.points.back().precision, TrainingPrecision::BF16_FP4);
    }

    // 8B on 8 B200 without checkpointing: MFU rises with sequence length until memory runs out; the points that
    // do not fit stay in the series, and the planner still finds a layout for them.
    void sequenceLengthMarksWhatDoesNotFit()
    {
        const SweepResult r = runSweep(scenarioFor(llama31_8b(), "b200", 8, 8192), SweepAxis::SeqLen);
        QCOMPARE(int(r.points.size()), 7);
        QVERIFY(r.points.front().current.fits);
        QVERIFY(!r.points.back().current.fits); // 128k without AC or sharding of activations
        // Shown where it fits, never where it does not: the headline, `sweep` and the charts ask the same.
        QVERIFY(r.points.front().currentShown() && !r.points.front().currentMisfits());
        QVERIFY(!r.points.back().currentShown() && r.points.back().currentMisfits());
        for (size_t i = 1; i < r.points.size(); ++i) {
            QVERIFY(r.points[i].current.mfu > r.points[i - 1].current.mfu);
            QVERIFY(r.points[i].best.has_value());
            QVERIFY(r.points[i].best->prediction.fits);
            QVERIFY(r.points[i].best->prediction.tokensPerSec
                >= (r.points[i].current.fits ? r.points[i].current.tokensPerSec : 0));
        }
        const std::string csv = sweepToCsv(r);
        QCOMPARE(std::count(csv.begin(), csv.end(), '\n'), 8L);
        QVERIFY(csv.rfind("seq,precision,mfu,", 0) == 0);
        QVERIFY(csv.find(",false,") != std::string::npos);

        // The best at each point does the current configuration's work: planned at the batch the current layout runs
        // there (TP 2: four data-parallel ranks, 4 sequences a step), not at a larger one that runs faster.
        Scenario tp2 = scenarioFor(llama31_8b(), "b200", 8, 8192);
        tp2.parallelism.tp = 2;
        const SweepResult same = runSweep(tp2, SweepAxis::SeqLen);
        for (const SweepPoint& p : same.points) {
            QVERIFY(p.currentValid && p.best.has_value());
            QCOMPARE(p.best->prediction.tokensPerStep, p.current.tokensPerStep);
            QCOMPARE(p.current.tokensPerStep, 4.0 * p.x);
        }
    }

    // GPU count 1..16,384 for 70B with FSDP: too few GPUs cannot hold it; the current layout (TP 8) cannot be laid
    // out on fewer than 8 GPUs, which is marked rather than dropped.
    void gpuCountKeepsInvalidPoints()
    {
        SweepOptions o;
        o.values = { 1, 4, 8, 64, 1024, 16384 };
        const SweepResult r = runSweep(
            scenarioFor(llama31_70b(), "h100-sxm", 64, 8192, 8, ActivationCheckpointing::Full), SweepAxis::GpuCount, o);
        QCOMPARE(int(r.points.size()), 6);
        QVERIFY(!r.points[0].currentValid && !r.points[0].currentProblem.empty());
        QVERIFY(!r.points[0].best.has_value()); // 70B on one 80 GB GPU: nothing fits
        QVERIFY(r.points[2].currentValid);
        QVERIFY(r.points[5].best.has_value());
        QVERIFY(r.evaluated > 1000);
    }

    // The network per GPU: Llama 3.1 8B with FSDP over 8 H100 nodes waits on the fabric at 25 Gb/s and not at
    // 3,200; each point is the prediction of the scenario with that network stated (one fact, one function), a
    // faster network never slows the step, and a run inside one NVLink domain reads the same at every point.
    void networkStatesEachPointsFabric()
    {
        const Scenario across = scenarioFor(llama31_8b(), "h100-sxm", 64, 8192);
        SweepOptions o;
        o.values = { 12.5, 25, 100, 400, 3200 };
        const SweepResult r = runSweep(across, SweepAxis::Network, o);
        QCOMPARE(int(r.points.size()), 5);
        for (size_t i = 0; i < r.points.size(); ++i) {
            const SweepPoint& p = r.points[i];
            QVERIFY2(p.currentValid, p.currentProblem.c_str());
            Scenario stated = across;
            setStatedScaleOut(stated.cluster.hardware, p.x);
            QCOMPARE(p.current.mfu, evaluate(stated).mfu);
            QVERIFY(p.best && p.best->prediction.tokensPerSec >= p.current.tokensPerSec * (1 - 1e-12));
            if (i > 0)
                QVERIFY(p.current.stepTimeSeconds <= r.points[i - 1].current.stepTimeSeconds * (1 + 1e-12));
        }
        QVERIFY(r.points.front().current.mfu < 0.9 * r.points.back().current.mfu);
        // The scenario's own preset network is not what the points read.
        QCOMPARE(scaleOutGbitPerSec(across.cluster.hardware), 400.0);
        QVERIFY(!scaleOutStated(across.cluster.hardware));
        QVERIFY(sweepToCsv(r).find("\n12.5,bf16,") != std::string::npos);

        const SweepResult inside = runSweep(scenarioFor(llama31_8b(), "h100-sxm", 8, 8192), SweepAxis::Network, o);
        for (const SweepPoint& p : inside.points)
            QCOMPARE(p.current.mfu, inside.points.front().current.mfu);
        // Which the surfaces say in words, for that run alone.
        const Scenario node = scenarioFor(llama31_8b(), "h100-sxm", 8, 8192);
        QVERIFY(!crossesScaleUpDomains(node));
        const std::string note = networkSweepNote(node);
        QVERIFY2(note.rfind("All 8 GPUs share one scale-up domain (NVLink 4", 0) == 0, note.c_str());
        const std::string one = networkSweepNote(scenarioFor(llama31_8b(), "h100-sxm", 1, 8192));
        QVERIFY2(one.rfind("The run is on one GPU:", 0) == 0, one.c_str());
        QVERIFY(crossesScaleUpDomains(across) && networkSweepNote(across).empty());
        // A point outside what setStatedScaleOut takes is refused, not drawn.
        o.values = { 0.5 };
        QVERIFY_THROWS_EXCEPTION(InputError, runSweep(across, SweepAxis::Network, o));
    }

    // Precision: BF16+FP8 raises TFLOPS per GPU and per node; MFU against the FP8 peak is labelled apart.
    void precisionComparesTflops()
    {
        const SweepResult r = runSweep(scenarioFor(llama31_8b(), "b200", 8, 8192), SweepAxis::Precision);
        // A B200 trains in NVFP4 too: the 2026 recipe is a point beside FP8 on every GPU that has it; an H100 has
        // no FP4 tensor cores, and an MI355X none for NVFP4 (its MXFP4 recipe brings the point back).
        QCOMPARE(int(r.points.size()), 3);
        QCOMPARE(r.points[2].precision, TrainingPrecision::BF16_FP4);
        QVERIFY(r.points[2].current.tflopsPerGpu > r.points[1].current.tflopsPerGpu);
        QCOMPARE(
            runSweep(scenarioFor(llama31_8b(), "h100-sxm", 8, 8192), SweepAxis::Precision).points.size(), size_t(2));
        Scenario mi355x = scenarioFor(llama31_8b(), "mi355x", 8, 8192);
        QCOMPARE(runSweep(mi355x, SweepAxis::Precision).points.size(), size_t(2));
        mi355x.flags.fp4Recipe = Fp4Recipe::Mxfp4;
        QCOMPARE(runSweep(mi355x, SweepAxis::Precision).points.size(), size_t(3));
        const auto& bf16 = r.points[0].current;
        const auto& fp8 = r.points[1].current;
        QCOMPARE(r.points[1].precision, TrainingPrecision::BF16_FP8);
        QVERIFY(fp8.tflopsPerGpu > bf16.tflopsPerGpu);
        QCOMPARE(fp8.tflopsPerNode, 8 * fp8.tflopsPerGpu);
        // The node's GPU count is the prediction's, not re-derived by the chart from the ratio (issue 34).
        QCOMPARE(fp8.gpusPerNode, 8);
        QCOMPARE(
            runSweep(scenarioFor(llama31_8b(), "b200", 2, 8192), SweepAxis::Precision).points[0].current.gpusPerNode,
            2);
        QVERIFY(!bf16.mfuVsFp8Peak && fp8.mfuVsFp8Peak);
        QVERIFY(*fp8.mfuVsFp8Peak < fp8.mfu);
    }

    // Every point carries the error band of its prediction when the sweep is given validation residuals: the same
    // band predict prints (errorBandFor), around the current configuration and around the planner's best. Blackwell
    // dense residuals -10%, 0%, +20%, +20%: the 10th percentile is -10% + 0.3 x 10% = -7%, the 90th +20%, so the
    // measurement likely lies between prediction / 1.20 and prediction / 0.93.
    void everyPointCarriesItsErrorBand()
    {
        ErrorBandModel bands;
        for (double e : { -0.10, 0.0, 0.20, 0.20 })
            bands.residuals.push_back({ "Blackwell", false, e });
        SweepOptions o;
        o.values = { 8192, 32768 };
        o.errorBands = &bands;
        const SweepResult r = runSweep(scenarioFor(llama31_8b(), "b200", 8, 8192), SweepAxis::SeqLen, o);
        QCOMPARE(int(r.points.size()), 2);
        for (const SweepPoint& p : r.points) {
            QVERIFY(p.currentBand && p.bestBand);
            QCOMPARE(p.currentBand->similarRuns, 4);
            QVERIFY(std::abs(p.currentBand->mfuLow - p.current.mfu / 1.20) < 1e-12);
            QVERIFY(std::abs(p.currentBand->mfuHigh - p.current.mfu / 0.93) < 1e-12);
            QVERIFY(std::abs(p.currentBand->tokensPerSecPerGpuLow - p.current.tokensPerSecPerGpu / 1.20) < 1e-9);
            QVERIFY(std::abs(p.currentBand->tokensPerSecPerGpuHigh - p.current.tokensPerSecPerGpu / 0.93) < 1e-9);
            QVERIFY(std::abs(p.bestBand->mfuLow - p.best->prediction.mfu / 1.20) < 1e-12);
            QVERIFY(std::abs(p.bestBand->tokensPerSecPerGpuHigh - p.best->prediction.tokensPerSecPerGpu / 0.93) < 1e-9);
        }
        // Without residuals the points carry no band (nothing is invented).
        o.errorBands = nullptr;
        const SweepResult plain = runSweep(scenarioFor(llama31_8b(), "b200", 8, 8192), SweepAxis::SeqLen, o);
        QVERIFY(!plain.points.front().currentBand && !plain.points.front().bestBand);
    }

    void cancelStopsTheSweep()
    {
        std::atomic<bool> cancel { false };
        const SweepResult r = runSweep(
            scenarioFor(llama31_8b(), "b200", 8, 8192), SweepAxis::SeqLen, {}, [&](double f) { cancel = f > 0.2; },
            &cancel);
        QVERIFY(r.cancelled);
        QVERIFY(r.points.size() < 7);
    }
};

QTEST_GUILESS_MAIN(TestSweep)
#include "tst_sweep.moc"
