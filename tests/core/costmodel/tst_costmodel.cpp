// Cost model against the measurements of Lambda's MFU paper (Llama 3.1 on HGX B200 and GB300 NVL72) and the trends its
// levers must show. The acceptance bands are the issue's; the measured figures are quoted beside each case.
#include <QtTest>

#include "core/costmodel/cost_model.h"
#include "core/costmodel/planner.h"
#include "core/errors.h"
#include "costmodel_fixtures.h"

using namespace mfu;
using namespace mfu::test;
using AC = ActivationCheckpointing;

class TestCostModel : public QObject {
    Q_OBJECT
private slots:
    // Lambda's MFU paper: 8B on 8x B200, FSDP without TP, 55.34% at 8k, "up to 60% at 16k-32k".
    void llama8bOnEightB200()
    {
        const StepPrediction at8k = evaluate(scenarioFor(llama31_8b(), "b200", 8, 8192));
        QVERIFY(at8k.fits);
        QVERIFY2(at8k.mfu >= 0.50 && at8k.mfu <= 0.60, qPrintable(QString::number(at8k.mfu)));
        const StepPrediction at16k = evaluate(scenarioFor(llama31_8b(), "b200", 8, 16384));
        const StepPrediction at32k = evaluate(scenarioFor(llama31_8b(), "b200", 8, 32768));
        QVERIFY(at16k.fits && at32k.fits);
        QVERIFY(at16k.mfu > at8k.mfu);
        QVERIFY(at32k.mfu > at16k.mfu);
        QVERIFY(at32k.mfu < 0.70);

        // Prefetching all 32 layers is the most FSDP can gather ahead; 64 counted memory for layers that do not exist
        // (117 GiB, and 1 TB at 1,000).
        Scenario all = scenarioFor(llama31_8b(), "b200", 8, 8192);
        all.flags.fsdpPrefetchLayers = 32;
        QCOMPARE(CostModel(all).invalidReason(all), nullptr);
        all.flags.fsdpPrefetchLayers = 33;
        QVERIFY(CostModel(all).invalidReason(all) != nullptr);
        all.parallelism.pp = 2; // 16 layers a stage
        all.flags.fsdpPrefetchLayers = 17;
        QVERIFY(CostModel(all).invalidReason(all) != nullptr);
    }

    // Lambda's MFU paper: 70B on 16x B200 at 8k. TorchTitan default TP 8 + full AC measured 23.83% (< 30%); TP 1 +
    // selective AC measured 50.20%.
    void llama70bTorchtitanDefaultVersusTuned()
    {
        const StepPrediction tp8full = evaluate(scenarioFor(llama31_70b(), "b200", 16, 8192, 8, AC::Full));
        const StepPrediction tp1sel = evaluate(scenarioFor(llama31_70b(), "b200", 16, 8192, 1, AC::Selective));
        QVERIFY(tp8full.fits && tp1sel.fits);
        QVERIFY2(tp8full.mfu < 0.30, qPrintable(QString::number(tp8full.mfu)));
        QVERIFY2(tp1sel.mfu >= 0.45 && tp1sel.mfu <= 0.56, qPrintable(QString::number(tp1sel.mfu)));
        QVERIFY(tp1sel.mfu > 1.8 * tp8full.mfu); // the paper's "~2x"
        // TP 1 without checkpointing does not fit: the paper needed selective AC.
        QVERIFY(!evaluate(scenarioFor(llama31_70b(), "b200", 16, 8192, 1, AC::None)).fits);

        Scenario s = scenarioFor(llama31_70b(), "b200", 16, 8192);
        const PlanResult plan = planConfigurations(s);
        QVERIFY(!plan.configs.empty());
        QVERIFY(plan.configs.front().prediction.mfu >= tp1sel.mfu);
    }

    // Lambda's MFU paper: 405B on 128 GPUs of two GB300 NVL72 racks, 52.69% at 8k (52-56% across GPU counts), HSDP with
    // one replica per rack.
    void llama405bHsdpPerRackBeatsFlatFsdp_data()
    {
        QTest::addColumn<int>("tp");
        QTest::addColumn<int>("ac");
        QTest::newRow("TP1 full AC") << 1 << int(AC::Full);
        QTest::newRow("TP2 selective") << 2 << int(AC::Selective);
        QTest::newRow("TP4 none") << 4 << int(AC::None);
    }
    void llama405bHsdpPerRackBeatsFlatFsdp()
    {
        QFETCH(int, tp);
        QFETCH(int, ac);
        const auto mode = static_cast<AC>(ac);
        const StepPrediction hsdp = evaluate(scenarioFor(llama31_405b(), "gb300", 128, 8192, tp, mode, 2));
        const StepPrediction flat = evaluate(scenarioFor(llama31_405b(), "gb300", 128, 8192, tp, mode, 1));
        QVERIFY(hsdp.fits);
        QVERIFY2(
            hsdp.tokensPerSec > flat.tokensPerSec, qPrintable(QString("hsdp %1 flat %2").arg(hsdp.mfu).arg(flat.mfu)));
        // Flat FSDP's all-gathers cross the racks; HSDP's stay inside.
        QVERIFY(flat.commSeconds[size_t(CommKind::FsdpAllGather)] > hsdp.commSeconds[size_t(CommKind::FsdpAllGather)]);
    }
    void llama405bBestHsdpInPublishedBand()
    {
        PlannerOptions o;
        o.fixedHsdpReplicas = 2;
        const PlanResult plan = planConfigurations(scenarioFor(llama31_405b(), "gb300", 128, 8192), o);
        QVERIFY(!plan.configs.empty());
        const double mfu = plan.configs.front().prediction.mfu;
        QVERIFY2(mfu >= 0.50 && mfu <= 0.565, qPrintable(QString::number(mfu)));
    }

    // Lambda's "industry baseline" of 35-45% and Llama 3's published 38-43% MFU (405B, 16k H100, TP 8, PP 16 with 4
    // virtual stages, 8k sequences, 16M-token batches; selective AC assumed) are plausible outputs.
    void llama3PublishedConfiguration()
    {
        Scenario s = scenarioFor(llama31_405b(), "h100-sxm", 16384, 8192, 8, AC::Selective);
        s.parallelism.pp = 16;
        s.parallelism.virtualStages = 4;
        s.parallelism.schedule = PipelineSchedule::Interleaved1F1B;
        s.workload.globalBatchTokens = 16 * 1024 * 1024;
        const StepPrediction p = evaluate(s);
        QVERIFY(p.fits);
        QVERIFY2(p.mfu >= 0.33 && p.mfu <= 0.50, qPrintable(QString::number(p.mfu)));
    }

    // PaLM 540B on 6,144 TPU v4 (PaLM paper, section 4 and appendix B): 12-way model parallelism, 256-way FSDP in
    // each of 2 pods, 2,048 x 2,048-token batches, rematerialisation; published 46.2% MFU and 57.8% HFU.
    void palmPublishedConfiguration()
    {
        ModelSpec m;
        m.id = "palm-540b";
        m.layers = 118;
        m.hidden = 18432;
        m.heads = 48;
        m.kvHeads = 1; // multi-query attention
        m.headDim = 256;
        m.ffnDim = 4 * 18432;
        m.vocab = 256000;
        m.tiedEmbeddings = true;
        // TPU v4 (Google Cloud documentation): 275 TFLOPS BF16, 32 GiB HBM at 1,228 GB/s, a 3,072-chip ICI pod.
        HardwareSpec h;
        h.id = "tpu-v4";
        h.vendor = "Google";
        h.peakDenseFlops[size_t(NumberFormat::BF16)] = 275e12;
        h.hbmBytes = 32.0 * 1024 * 1024 * 1024;
        h.hbmBandwidthBytesPerSec = 1228e9;
        h.scaleUpDomainGpus = 3072;
        h.scaleUpBandwidthBytesPerSec = 270e9;
        h.scaleOutBandwidthBytesPerSec = 25e9;
        Scenario s;
        s.model = m;
        s.cluster.hardware = h;
        s.cluster.gpuCount = 6144;
        s.workload.seqLen = 2048;
        s.workload.globalBatchTokens = 2048 * 2048;
        s.workload.microBatch = 4;
        s.parallelism.tp = 12;
        s.parallelism.hsdpReplicas = 2;
        s.activationCheckpointing = AC::Full;
        const StepPrediction p = evaluate(s);
        QVERIFY(p.fits);
        QVERIFY2(p.mfu >= 0.38 && p.mfu <= 0.52, qPrintable(QString::number(p.mfu)));
        QVERIFY2(p.hfu >= 0.50 && p.hfu <= 0.65, qPrintable(QString::number(p.hfu)));
    }

    // Lambda's profile of the 8B step (8k, 8x B200): matmuls 56% -> 68% of the step, elementwise 14% -> 1.5% once
    // torch.compile fuses it, attention ~18%. Compare the shares, not the absolute times.
    void llama8bProfileShares()
    {
        Scenario s = scenarioFor(llama31_8b(), "b200", 8, 8192, 1, AC::None, 1, 2);
        s.flags.compiled = false;
        const StepPrediction eager = evaluate(s);
        s.flags.compiled = true;
        const StepPrediction compiled = evaluate(s);
        const auto share = [](const StepPrediction& p, double part) { return part / p.stepTimeSeconds; };
        QVERIFY(share(eager, eager.time.memoryBound) > 0.10);
        QVERIFY(share(compiled, compiled.time.memoryBound) < 0.06);
        QVERIFY(share(compiled, compiled.time.matmul) > share(eager, eager.time.matmul));
        QVERIFY(share(compiled, compiled.time.matmul) > 0.55 && share(compiled, compiled.time.matmul) < 0.80);
        QVERIFY(share(compiled, compiled.time.attention) > 0.10 && share(compiled, compiled.time.attention) < 0.25);
    }

    void partsAddUpToTheStep()
    {
        Scenario s = scenarioFor(llama31_70b(), "h100-sxm", 64, 8192, 4, AC::Full, 2, 2);
        s.parallelism.pp = 2;
        s.parallelism.cp = 2;
        s.workload.globalBatchTokens = 4 * 1024 * 1024;
        const StepPrediction p = evaluate(s);
        QCOMPARE(p.time.total(), p.stepTimeSeconds);
        QVERIFY(p.time.pipelineBubble > 0 && p.time.recompute > 0 && p.time.comm(CommKind::Tp) > 0);
        QVERIFY(p.commSeconds[size_t(CommKind::Cp)] > 0 && p.commSeconds[size_t(CommKind::DpAllReduce)] > 0);
        QCOMPARE(p.tokensPerStep, double(p.gradAccumSteps) * 4 * 2 * 8192); // 4 DP ranks x micro-batch 2
        QVERIFY(p.tokensPerStep >= 4.0 * 1024 * 1024);
        QVERIFY(p.hfu > p.mfu);
        QCOMPARE(p.tflopsPerGpu * 1e12, p.flopsPerToken * p.tokensPerSecPerGpu);
        QVERIFY(!bottleneckSentence(p).empty());
    }

    void leversMoveMfuTheRightWay()
    {
        const Scenario base = scenarioFor(llama31_8b(), "h100-sxm", 8, 4096);
        const double mfu = evaluate(base).mfu;
        auto with = [&](auto change) {
            Scenario s = base;
            change(s);
            return evaluate(s);
        };
        QVERIFY(with([](Scenario& s) { s.parallelism.tp = 2; }).mfu < mfu);
        QVERIFY(with([](Scenario& s) { s.activationCheckpointing = AC::Selective; }).mfu < mfu);
        QVERIFY(with([](Scenario& s) { s.activationCheckpointing = AC::Full; }).mfu
            < with([](Scenario& s) { s.activationCheckpointing = AC::Selective; }).mfu);
        QVERIFY(with([](Scenario& s) { s.flags.compiled = false; }).mfu < mfu);
        QVERIFY(with([](Scenario& s) { s.flags.fusedOptimizer = false; }).mfu < mfu);
        QVERIFY(with([](Scenario& s) { s.flags.fsdpPrefetchLayers = 2; }).mfu > mfu);
        QVERIFY(with([](Scenario& s) {
            s.parallelism.tp = 2;
            s.parallelism.asyncTp = true;
        }).mfu
            > with([](Scenario& s) { s.parallelism.tp = 2; }).mfu);
        // BF16+FP8: more TFLOPS, MFU against the FP8 peak lower than against BF16.
        const StepPrediction fp8 = with([](Scenario& s) { s.precision = TrainingPrecision::BF16_FP8; });
        QVERIFY(fp8.tflopsPerGpu > evaluate(base).tflopsPerGpu);
        QVERIFY(fp8.mfuVsFp8Peak.has_value() && *fp8.mfuVsFp8Peak < fp8.mfu);
        QVERIFY(with([](Scenario& s) {
            s.precision = TrainingPrecision::BF16_FP8;
            s.flags.fp8ScalesInBackward = true;
        }).mfu
            > fp8.mfu);
    }

    void memoryShrinksWithEveryMemoryLever()
    {
        const Scenario base = scenarioFor(llama31_70b(), "h100-sxm", 64, 8192);
        const double mem = evaluate(base).memory.total();
        auto memWith = [&](auto change) {
            Scenario s = base;
            change(s);
            return evaluate(s).memory;
        };
        QVERIFY(memWith([](Scenario& s) { s.activationCheckpointing = AC::Selective; }).total() < mem);
        QVERIFY(memWith([](Scenario& s) { s.activationCheckpointing = AC::Full; }).activations
            < memWith([](Scenario& s) { s.activationCheckpointing = AC::Selective; }).activations);
        QVERIFY(memWith([](Scenario& s) { s.parallelism.tp = 4; }).total() < mem);
        QVERIFY(memWith([](Scenario& s) { s.parallelism.cp = 4; }).activations < evaluate(base).memory.activations);
        QVERIFY(memWith([](Scenario& s) { s.flags.optimizerInBackward = true; }).gradients == 0);
        QVERIFY(memWith([](Scenario& s) { s.parallelism.hsdpReplicas = 8; }).optimizerState
            > evaluate(base).memory.optimizerState);
        // Sharded states: 16 bytes per parameter over 64 GPUs.
        const MemoryBreakdown m = evaluate(base).memory;
        QCOMPARE(m.parameters + m.gradients + m.optimizerState, 16.0 * modelShapeOf(llama31_70b()).totalParams / 64.0);
    }

    void badScenariosAreNamed_data()
    {
        QTest::addColumn<int>("tp");
        QTest::addColumn<int>("gpus");
        QTest::addColumn<QString>("expected");
        QTest::newRow("tp does not divide gpus") << 3 << 8 << "divide the GPU count";
        QTest::newRow("tp does not divide heads") << 5 << 10 << "attention heads";
    }
    void badScenariosAreNamed()
    {
        QFETCH(int, tp);
        QFETCH(int, gpus);
        QFETCH(QString, expected);
        try {
            evaluate(scenarioFor(llama31_8b(), "h100-sxm", gpus, 8192, tp));
            QFAIL("no error");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains(expected), e.what());
        }
    }
    void bareModelAndMissingFp8PeakAreErrors()
    {
        QVERIFY_THROWS_EXCEPTION(InputError, evaluate(scenarioFor(bareModel(7'000'000'000), "h100-sxm", 8, 4096)));
        Scenario s = scenarioFor(llama31_8b(), "a100-sxm-80gb", 8, 4096);
        s.precision = TrainingPrecision::BF16_FP8;
        QVERIFY_THROWS_EXCEPTION(InputError, evaluate(s));
    }

    void constantsComeFromTheHardware()
    {
        Scenario s = scenarioFor(llama31_8b(), "b200", 8, 8192);
        const double before = evaluate(s).mfu;
        CostModelConstants c = costModelConstantsFor(s);
        QCOMPARE(c.gemmEfficiency, defaultCostModelConstants(s.cluster.hardware).gemmEfficiency);
        c.gemmEfficiency *= 0.5;
        s.costModel = c;
        QVERIFY(evaluate(s).mfu < before);
        QCOMPARE(defaultCostModelConstants(presetHardware("gb300")).gpusPerNode, 4);
        QCOMPARE(defaultCostModelConstants(presetHardware("h100-sxm")).gpusPerNode, 8);
        QVERIFY(defaultCostModelConstants(presetHardware("a100-sxm-80gb")).basis.find("Ampere") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestCostModel)
#include "tst_costmodel.moc"
