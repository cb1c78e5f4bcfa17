// What a trace or training log states, compared with the scenario: which facts differ, whether the GPU is the
// scenario's, and when measured MFU must be withheld (another GPU's peak, or above 100%) with the fact named.
#include <QTest>

#include <algorithm>

#include "core/facts/file_facts.h"
#include "core/logs/training_log.h"
#include "core/presets/presets.h"
#include "core/scenario/scenario_facts.h"
#include "core/trace/analysis.h"
#include "core/trace/attention_implementation.h"
#include "shipped_presets.h"

using namespace mfu;

namespace {

// The window's default: Llama 3.1 8B on one B200, S = 8192, one sequence per step.
Scenario b200Scenario()
{
    Scenario s;
    s.model = *test::shippedPresets().findModel("llama-3.1-8b");
    s.cluster.hardware = *test::shippedPresets().findHardware("b200");
    s.cluster.gpuCount = 1;
    s.workload.seqLen = 8192;
    return s;
}

const std::vector<HardwareSpec>& hardware()
{
    return test::shippedPresets().hardware();
}

} // namespace

class TestFileFacts : public QObject {
    Q_OBJECT
private slots:
    void sameFactsNoDifference()
    {
        FileFacts f;
        f.gpuName = "NVIDIA B200";
        f.gpuCount = 1;
        f.seqLen = 8192;
        f.tokensPerStep = 8192;
        const FactsCheck c = checkFacts(f, b200Scenario(), 8192, hardware());
        QVERIFY(c.empty());
        QVERIFY(c.gpuRecorded);
        QVERIFY(!c.gpuDiffers);
        QCOMPARE(c.hardwarePresetId.value_or(""), std::string("b200"));
        QVERIFY(!measuredMfuWithheld(c, 0.42));
    }

    void seedLogHeaderAgainstOneGpu()
    {
        // The B200 scaling report's header: "Device: NVIDIA B200", "GPUs: 8".
        trace::LogFacts log;
        log.device = "NVIDIA B200";
        log.gpus = 8;
        const FactsCheck c = checkFacts(factsFromLog(log), b200Scenario(), 8192, hardware());
        QCOMPARE(c.differences.size(), size_t(1));
        QCOMPARE(c.differences[0].fact, Fact::GpuCount);
        QCOMPARE(c.differences[0].inFile, std::string("8"));
        QCOMPARE(c.differences[0].inScenario, std::string("1"));
        QVERIFY(!c.gpuDiffers);
        // An MFU within 100% with the right GPU is shown even though the count differs (the banner says so).
        QVERIFY(!measuredMfuWithheld(c, 0.5));
        // Above 100%: withheld, naming the fact that disagrees.
        const auto why = measuredMfuWithheld(c, 8.0);
        QVERIFY(why);
        QVERIFY2(why->find("above 100%") != std::string::npos, why->c_str());
        QVERIFY2(why->find("GPU count 8 in the file vs 1 in the scenario") != std::string::npos, why->c_str());
    }

    void logsModelSizeAgainstTheScenarios()
    {
        // The B200 scaling report ran a 1.29 B model ("N=1.294B"); the scenario's Llama 3.1 8B is not it.
        trace::LogFacts log;
        log.modelParams = 1.294e9;
        const FactsCheck c = checkFacts(factsFromLog(log), b200Scenario(), 8192, hardware());
        QCOMPARE(c.differences.size(), size_t(1));
        QCOMPARE(c.differences[0].fact, Fact::ModelSize);
        log.modelParams = 8.03e9; // within 10% of the scenario's 8.03 B
        QVERIFY(checkFacts(factsFromLog(log), b200Scenario(), 8192, hardware()).empty());
    }

    // A log that names neither its GPU nor its model: its own figures do. TFLOPS / MFU = 253.41 / 11.26% = 2,250
    // TFLOPS, a B200's; TFLOPS / tokens/s = 0.52e12 / 7,318 = 71 MFLOP/token, a model of about 11.8M parameters.
    void logsImpliedGpuAndModel()
    {
        Scenario h100 = b200Scenario();
        h100.cluster.hardware = *test::shippedPresets().findHardware("h100-sxm");
        trace::LogSummary summary;
        summary.medianTflops = 253.41;
        summary.medianMfu = 0.1126;
        summary.medianTokensPerSec = 4376;
        FactsCheck c = checkFacts(factsFromLog(trace::LogFacts {}, summary), h100, 8192, hardware());
        QVERIFY(c.gpuDiffers);
        QCOMPARE(c.hardwarePresetId.value_or(""), std::string("b200"));
        QVERIFY(!c.proposedModelParams); // 57.9 GFLOP/token: the scenario's Llama 3.1 8B
        QVERIFY(measuredMfuWithheld(c, 0.4));
        // On the B200 it agrees.
        QVERIFY(checkFacts(factsFromLog(trace::LogFacts {}, summary), b200Scenario(), 8192, hardware()).empty());

        summary.medianTflops = 0.52;
        summary.medianMfu = 0.52 / 2250.0;
        summary.medianTokensPerSec = 7318;
        c = checkFacts(factsFromLog(trace::LogFacts {}, summary), b200Scenario(), 8192, hardware());
        QCOMPARE(c.differences.size(), size_t(1));
        QCOMPARE(c.differences[0].fact, Fact::ModelSize);
        QVERIFY(c.proposedModelParams);
        QCOMPARE(qRound(*c.proposedModelParams / 1e5), 118); // 71.06 MFLOP / 6
    }

    // A log whose TFLOPS / MFU is 306 (torchtitan's 312 TFLOPS fallback within rounding) on a 14.6 GiB device: the
    // A100 80GB has that peak but not that memory, so it is not proposed, and the banner says why (issue 35).
    void deviceMemoryRulesOutAGpuOfThePeak()
    {
        trace::LogFacts facts;
        facts.deviceMemoryBytes = 9.46 / 0.6499 * 1024.0 * 1024 * 1024;
        trace::LogSummary summary;
        summary.medianTflops = 30.6;
        summary.medianMfu = 0.1;
        summary.medianTokensPerSec = 7000;
        const FileFacts file = factsFromLog(facts, summary);
        QCOMPARE(file.deviceMemoryBytes, facts.deviceMemoryBytes);
        const FactsCheck c = checkFacts(file, b200Scenario(), 8192, hardware());
        QVERIFY(!c.gpuDiffers);
        QVERIFY(!c.hardwarePresetId);
        QVERIFY(c.impliedGpuRefused);
        QCOMPARE(QString::fromStdString(*c.impliedGpuRefused),
            QStringLiteral("Its TFLOPS / MFU, 306 TFLOPS, is torchtitan's fallback peak (312 TFLOPS) for a GPU it "
                           "does not know: its device has 14.6 GiB of memory, not the NVIDIA A100 SXM4 80GB's 74.5 "
                           "GiB."));
        // The memory itself is a fact the scenario's B200 contradicts.
        const auto memory = std::find_if(c.differences.begin(), c.differences.end(),
            [](const FactDifference& d) { return d.fact == Fact::DeviceMemory; });
        QVERIFY(memory != c.differences.end());
        QCOMPARE(memory->inFile, std::string("14.6 GiB"));
        QCOMPARE(memory->inScenario, std::string("167.6 GiB (NVIDIA B200 (HGX B200))"));
        QCOMPARE(factLabel(Fact::DeviceMemory), std::string("device memory"));
        // Without the memory, the same peak proposes the A100, as before; on a device of 79 GiB it still does.
        QCOMPARE(checkFacts(factsFromLog(trace::LogFacts {}, summary), b200Scenario(), 8192, hardware())
                     .hardwarePresetId.value_or(""),
            std::string("a100-sxm-80gb"));
        facts.deviceMemoryBytes = 79.1 * 1024.0 * 1024 * 1024;
        const FactsCheck a100 = checkFacts(factsFromLog(facts, summary), b200Scenario(), 8192, hardware());
        QCOMPARE(a100.hardwarePresetId.value_or(""), std::string("a100-sxm-80gb"));
        QVERIFY(!a100.impliedGpuRefused);
        QVERIFY(std::none_of(a100.differences.begin(), a100.differences.end(),
            [](const FactDifference& d) { return d.fact == Fact::DeviceMemory; }));
    }

    void otherGpuWithholdsMfu()
    {
        FileFacts f;
        f.gpuName = "NVIDIA H100 80GB HBM3";
        const FactsCheck c = checkFacts(f, b200Scenario(), 8192, hardware());
        QVERIFY(c.gpuDiffers);
        QCOMPARE(c.hardwarePresetId.value_or(""), std::string("h100-sxm"));
        QCOMPARE(c.differences.size(), size_t(1));
        QCOMPARE(c.differences[0].fact, Fact::Gpu);
        const auto why = measuredMfuWithheld(c, 0.3); // even a plausible figure divides by the wrong peak
        QVERIFY(why);
        QVERIFY2(why->find("NVIDIA H100 80GB HBM3") != std::string::npos, why->c_str());

        Scenario h100 = b200Scenario();
        h100.cluster.hardware = *test::shippedPresets().findHardware("h100-sxm");
        QVERIFY(!checkFacts(f, h100, 8192, hardware()).gpuDiffers);
    }

    // A trace whose operators did far less (or more) matrix work a step than the scenario's model does per GPU is
    // not a run of it: HTA's recommender pair read 34% MFU as Llama 3.1 8B on 128 B200 with 562x less work. Within
    // kSameRunMatrixWorkFactor (recomputation, a causal square, missed operators) the figure stands.
    void otherModelsWorkWithholdsMfu()
    {
        const Scenario s = b200Scenario();
        const double modelled = scenarioFlopsPerToken(s) * 8192; // one GPU, one sequence of 8,192 tokens
        FileFacts f;
        f.gpuName = "NVIDIA B200";
        f.matrixFlopsPerStepPerGpu = modelled / 3.9;
        QVERIFY(!checkFacts(f, s, 8192, hardware()).workMismatch);
        f.matrixFlopsPerStepPerGpu = modelled * 3.9;
        QVERIFY(!checkFacts(f, s, 8192, hardware()).workMismatch);

        f.matrixFlopsPerStepPerGpu = modelled / 4.1;
        const FactsCheck less = checkFacts(f, s, 8192, hardware());
        QVERIFY(less.workMismatch);
        QVERIFY2(less.workMismatch->find("(4.1x more)") != std::string::npos, less.workMismatch->c_str());
        QVERIFY2(less.workMismatch->find("Llama 3.1 8B at 8,192 tokens per step on 1 GPU") != std::string::npos,
            less.workMismatch->c_str());
        QVERIFY(less.empty()); // nothing to adopt: no fact of the file's makes the scenario describe it
        const auto why = measuredMfuWithheld(less, 0.4);
        QVERIFY(why);
        QCOMPARE(*why, *less.workMismatch);

        f.matrixFlopsPerStepPerGpu = modelled * 562;
        const FactsCheck more = checkFacts(f, s, 8192, hardware());
        QVERIFY(more.workMismatch);
        QVERIFY2(more.workMismatch->find("(562x less)") != std::string::npos, more.workMismatch->c_str());

        // A GPU of another peak is named first: it is the fact the figure divides by.
        f.gpuName = "NVIDIA H100 80GB HBM3";
        const auto otherGpu = measuredMfuWithheld(checkFacts(f, s, 8192, hardware()), 0.4);
        QVERIFY(otherGpu && otherGpu->find("NVIDIA H100") != std::string::npos);
    }

    void unknownGpuDiffersUnlessNamed()
    {
        FileFacts f;
        f.gpuName = "Tesla V100-SXM2-32GB"; // the trace: 19,336% against a B200
        const FactsCheck c = checkFacts(f, b200Scenario(), 8192, hardware());
        QVERIFY(c.gpuDiffers);
        FileFacts unknown;
        unknown.gpuName = "Imaginary X9 accelerator"; // matches no preset: differs unless it names the scenario's id
        QVERIFY(checkFacts(unknown, b200Scenario(), 8192, hardware()).gpuDiffers);
        QVERIFY(checkFacts(unknown, b200Scenario(), 8192, {}).gpuDiffers);
        unknown.gpuName = "Some B200 engineering sample";
        QVERIFY(!checkFacts(unknown, b200Scenario(), 8192, {}).gpuDiffers);
        QVERIFY(measuredMfuWithheld(c, 193.36));
    }

    // The one wording of the differences list (issue 34): every difference, or those a filter keeps, in Fact order.
    void differencesText()
    {
        const std::vector<FactDifference> d { { Fact::GpuCount, "8", "1" }, { Fact::Compiled, "eager", "compiled" },
            { Fact::SeqLen, "4,096", "8,192" } };
        QCOMPARE(factDifferencesText(d),
            std::string("GPU count 8 in the file vs 1 in the scenario, eager or compiled eager in the file vs compiled "
                        "in the scenario, sequence length 4,096 in the file vs 8,192 in the scenario"));
        QCOMPARE(factDifferencesText(d, [](Fact f) { return f != Fact::Compiled; }),
            std::string("GPU count 8 in the file vs 1 in the scenario, sequence length 4,096 in the file vs 8,192 in "
                        "the scenario"));
        QCOMPARE(factDifferencesText(d, [](Fact f) { return f == Fact::Gpu; }), std::string());
        QCOMPARE(factDifferencesText({}), std::string());
    }

    void noGpuRecorded()
    {
        const FactsCheck c = checkFacts(FileFacts {}, b200Scenario(), 8192, hardware());
        QVERIFY(!c.gpuRecorded);
        QVERIFY(c.empty());
        const auto why = measuredMfuWithheld(c, 1.5);
        QVERIFY(why);
        QVERIFY2(why->find("model or tokens per step") != std::string::npos, why->c_str());
    }

    void tolerances()
    {
        FileFacts f;
        f.tokensPerStep = 8192 * 1.004; // within 0.5%
        QVERIFY(checkFacts(f, b200Scenario(), 8192, hardware()).empty());
        f.tokensPerStep = 8192 * 1.006;
        QCOMPARE(checkFacts(f, b200Scenario(), 8192, hardware()).differences.at(0).fact, Fact::TokensPerStep);

        FileFacts size;
        const double params = 8030261248.0; // Llama 3.1 8B (Meta's model card: 8.03 B)
        size.modelParams = params * 1.05;
        QVERIFY(checkFacts(size, b200Scenario(), 8192, hardware()).empty());
        size.modelParams = 1.36e9; // the B200 scaling report's 1.36B
        QCOMPARE(checkFacts(size, b200Scenario(), 8192, hardware()).differences.at(0).fact, Fact::ModelSize);

        FileFacts precision;
        precision.precision = TrainingPrecision::BF16_FP8;
        QCOMPARE(checkFacts(precision, b200Scenario(), 8192, hardware()).differences.at(0).fact, Fact::Precision);
        FileFacts seq;
        seq.seqLen = 4096;
        QCOMPARE(checkFacts(seq, b200Scenario(), 8192, hardware()).differences.at(0).inFile, std::string("4,096"));
    }

    void megatronTokensFromBatch()
    {
        trace::LogFacts log;
        log.globalBatchSamples = 512;
        log.seqLen = 4096;
        QCOMPARE(factsFromLog(log).tokensPerStep.value_or(0), 512.0 * 4096);
        log.tokensPerStep = 1000;
        QCOMPARE(factsFromLog(log).tokensPerStep.value_or(0), 1000.0); // stated wins over derived
    }

    void traceGpuCount()
    {
        trace::RunAnalysis run;
        run.ranks.resize(1);
        run.ranks[0].gpuName = "NVIDIA A100-SXM4-80GB";
        // One process in no process group (no distributedInfo) ran on one GPU: a scenario of 1,024 GPUs differs from
        // it, rather than comparing its one GPU's tokens per step with their global batch.
        QCOMPARE(factsFromTrace(run).gpuCount.value_or(0), 1);
        QCOMPARE(factsFromTrace(run).gpuName.value_or(""), std::string("NVIDIA A100-SXM4-80GB"));
        run.ranks[0].worldSize = 8;
        QCOMPARE(factsFromTrace(run).gpuCount.value_or(0), 8);
        run.ranks[0].worldSize.reset();
        run.ranks.resize(2);
        QCOMPARE(factsFromTrace(run).gpuCount.value_or(0), 2);
    }

    // A trace that ran cuDNN's SDPA on an H200 (PyTorch 2.11's choice): the scenario's `auto` means FlashAttention 3
    // on Hopper, so the kernel differs and the banner offers cuDNN; set to cuDNN, nothing differs. Memory-efficient
    // attention has no cost-model kernel: nothing to offer.
    void attentionKernelTheTraceRan()
    {
        trace::RunAnalysis run;
        run.ranks.resize(1);
        run.ranks[0].gpuName = "NVIDIA H200";
        run.ranks[0].attention = trace::DetectedAttention { trace::AttentionImplementation::Cudnn, 1.0 };
        const FileFacts f = factsFromTrace(run);
        QCOMPARE(f.attentionKernel.value_or(AttentionKernel::Auto), AttentionKernel::Cudnn);
        QCOMPARE(f.attentionRan.value_or(""), std::string("cuDNN SDPA"));
        Scenario s = b200Scenario();
        s.cluster.hardware = *test::shippedPresets().findHardware("h200");
        const FactsCheck c = checkFacts(f, s, 8192, hardware());
        QCOMPARE(c.differences.size(), size_t(1));
        QCOMPARE(c.differences[0].fact, Fact::AttentionKernel);
        QCOMPARE(c.differences[0].inFile, std::string("cuDNN SDPA"));
        QCOMPARE(c.differences[0].inScenario, std::string("FlashAttention 3"));
        QVERIFY(!measuredMfuWithheld(c, 0.42)); // the kernel does not change what MFU measures
        s.flags.attentionKernel = AttentionKernel::Cudnn;
        QVERIFY(checkFacts(f, s, 8192, hardware()).empty());

        // Against the window's B200 (where `auto` is cuDNN) the kernel is judged on the trace's H200, which the same
        // click adopts: both are offered at once.
        const FactsCheck onB200 = checkFacts(f, b200Scenario(), 8192, hardware());
        QCOMPARE(onB200.differences.size(), size_t(2));
        QCOMPARE(onB200.differences[1].fact, Fact::AttentionKernel);

        run.ranks[0].attention = trace::DetectedAttention { trace::AttentionImplementation::Efficient, 1.0 };
        QVERIFY(!factsFromTrace(run).attentionKernel);
        QVERIFY(checkFacts(factsFromTrace(run), s, 8192, hardware()).empty());
    }
};

QTEST_GUILESS_MAIN(TestFileFacts)
#include "tst_file_facts.moc"
