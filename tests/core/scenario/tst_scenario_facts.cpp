// The facts every surface derives from a scenario (core/scenario/scenario_facts.h), against hand derivations.
#include <QtTest>

#include "core/diagnosis/diagnosis.h"
#include "core/diagnosis/scenario_run.h"
#include "core/errors.h"
#include "core/scenario/scenario_facts.h"
#include "costmodel_fixtures.h"
#include "model_fixtures.h"

using namespace mfu;

class TestScenarioFacts : public QObject {
    Q_OBJECT
private slots:
    void flopsPerTokenUsesTheScenarioFormula()
    {
        Scenario s = test::scenarioFor(test::llama31_8b(), "b200", 1, 8192);
        s.mfuFormula = FlopFormula::PaLM;
        QCOMPARE(scenarioFlopFormula(s), FlopFormula::PaLM);
        QCOMPARE(scenarioFlopsPerToken(s), 57'914'449'920.0); // 6 x 7,504,924,672 + 12 x 32 x 32 x 128 x 8192
    }

    void bareModelFallsBackToSixN()
    {
        // A bare 7e9 count asked for PaLM: only 6N answers, 42e9 FLOP/token.
        Scenario s = test::scenarioFor(bareModel(7'000'000'000), "h100-sxm", 8, 4096);
        s.mfuFormula = FlopFormula::PaLM;
        QCOMPARE(scenarioFlopFormula(s), FlopFormula::SixN);
        QCOMPARE(scenarioFlopsPerToken(s), 42e9);
        s.activationCheckpointing = ActivationCheckpointing::Full;
        QCOMPARE(scenarioRecomputeFlopsPerToken(s), 14e9);
    }

    void dataParallelRanksOfAValidLayout()
    {
        // 64 GPUs, TP 4, PP 2, CP 2, 2 HSDP replicas: 64 / (4 x 2 x 2) = 4 DP ranks (2 replicas x 2 FSDP shards).
        Scenario s = test::scenarioFor(test::llama31_70b(), "h100-sxm", 64, 8192, 4);
        s.parallelism.pp = 2;
        s.parallelism.cp = 2;
        s.parallelism.hsdpReplicas = 2;
        s.workload.microBatch = 2;
        QVERIFY(!parallelLayoutError(s));
        QCOMPARE(dataParallelRanks(s), 4);
        QCOMPARE(tokensPerMicroStep(s), int64_t(2 * 8192 * 4));
        s.workload.globalBatchTokens = 4 * 65536;
        QCOMPARE(scenarioMicroSteps(s), int64_t(4));
        QCOMPARE(processedTokensPerStep(s), int64_t(4 * 65536));
        s.workload.globalBatchTokens = 65536 + 1000; // whole micro-steps, rounded up as the cost model runs them
        QCOMPARE(scenarioMicroSteps(s), int64_t(2));
        QCOMPARE(processedTokensPerStep(s), int64_t(2 * 65536));
        s.workload.globalBatchTokens = 1; // at least one
        QCOMPARE(scenarioMicroSteps(s), int64_t(1));
        s.workload.globalBatchTokens = 0; // none stated: one micro-step per data-parallel rank
        QCOMPARE(processedTokensPerStep(s), int64_t(65536));
        s.parallelism.tp = 3; // no layout: no micro-step
        QCOMPARE(scenarioMicroSteps(s), int64_t(0));
        QCOMPARE(processedTokensPerStep(s), int64_t(0));
    }

    void invalidLayoutIsAnErrorNotRounded()
    {
        // 12 GPUs with TP 8: the editor used to round 12 / 8 down to one DP rank; it is an error.
        Scenario s = test::scenarioFor(test::llama31_70b(), "h100-sxm", 12, 8192, 8);
        const auto error = parallelLayoutError(s);
        QVERIFY(error);
        QVERIFY2(error->find("12 GPUs do not divide") != std::string::npos, error->c_str());
        QVERIFY_THROWS_EXCEPTION(InputError, dataParallelRanks(s));
        QVERIFY_THROWS_EXCEPTION(InputError, tokensPerMicroStep(s));
        // HSDP replicas count in the product as well: 8 GPUs, TP 2, 3 replicas.
        Scenario hsdp = test::scenarioFor(test::llama31_8b(), "h100-sxm", 8, 8192, 2, ActivationCheckpointing::None, 3);
        QVERIFY(parallelLayoutError(hsdp));
    }

    void measuredMfuOfTheWorkedExample()
    {
        // Llama 3.1 8B on one B200, 21,111 tokens/s per GPU: MFU 54.34% against 2,250 TFLOPS.
        Scenario s = test::scenarioFor(test::llama31_8b(), "b200", 1, 8192);
        QVERIFY(!scenarioMeasuredMfu(s));
        s.measuredThroughput = Throughput { 21111, ThroughputScope::PerGpu };
        const auto m = scenarioMeasuredMfu(s);
        QVERIFY(m);
        QCOMPARE(qRound(m->mfu * 10000), 5434);
        QCOMPARE(m->hfu, m->mfu);
        s.activationCheckpointing = ActivationCheckpointing::Selective;
        // HFU adds half the linear forward, 6,979,321,856 FLOP/token (tests/core/model/tst_flops.cpp).
        QCOMPARE(scenarioMeasuredMfu(s)->hardwareFlopsPerToken, 57'914'449'920.0 + 6'979'321'856.0);
    }

    // The Calculator's formula table (issue 34: computed in the panel before): each formula's MFU at the measured
    // throughput, the scenario's own formula giving the scenario's figure; none for a formula a bare count cannot
    // answer, none without a measurement.
    void measuredMfuUnderEachFormula()
    {
        Scenario s = test::scenarioFor(test::llama31_8b(), "b200", 1, 8192);
        QVERIFY(!scenarioMeasuredMfuUnder(s, FlopFormula::PaLM));
        s.measuredThroughput = Throughput { 21111, ThroughputScope::PerGpu };
        s.activationCheckpointing = ActivationCheckpointing::Selective;
        const auto own = scenarioMeasuredMfuUnder(s, scenarioFlopFormula(s));
        QVERIFY(own);
        QCOMPARE(own->mfu, scenarioMeasuredMfu(s)->mfu);
        QCOMPARE(own->hfu, scenarioMeasuredMfu(s)->hfu);
        const auto palm = scenarioMeasuredMfuUnder(s, FlopFormula::PaLM);
        QVERIFY(palm);
        QCOMPARE(qRound(palm->mfu * 10000), 5434); // Lambda's 54.34% (PaLM)
        const auto sixN = scenarioMeasuredMfuUnder(s, FlopFormula::SixN);
        QVERIFY(sixN && sixN->mfu < palm->mfu); // 6N leaves attention out
        QVERIFY(!scenarioMeasuredMfuOverPackingLength(s)); // nothing packed

        Scenario bare = s;
        bare.model = bareModel(8'000'000'000);
        QVERIFY(!scenarioMeasuredMfuUnder(bare, FlopFormula::PaLM));
        QVERIFY(scenarioMeasuredMfuUnder(bare, FlopFormula::SixN));
    }

    // Documents packed and masked apart: PaLM over the packing length counts more FLOP/token, so it claims more MFU
    // than the per-document count, with its recompute at the unpacked sequence.
    void measuredMfuOverThePackingLength()
    {
        Scenario s = test::scenarioFor(test::llama31_8b(), "b200", 8, 8192);
        s.workload.packing.documents = { { 1024, 6 }, { 2048, 1 } };
        s.measuredThroughput = Throughput { 20000, ThroughputScope::PerGpu };
        const auto naive = scenarioMeasuredMfuOverPackingLength(s);
        QVERIFY(naive);
        QVERIFY(naive->mfu > scenarioMeasuredMfuUnder(s, FlopFormula::PaLM)->mfu);
        QCOMPARE(naive->flopsPerToken, *scenarioFlopCounts(s).palmOverPackingLength);
    }

    void reportedRunKeepsABareModel()
    {
        // The 7B tutorial example: 8 H100, batch 8 x 4096, 1.2 s per step, 6N. The diagnosis gets the bare model and
        // reads the throughput: 32,768 tokens / 1.2 s = 27,307 tokens/s, MFU = 42e9 x 27,307 / 8 / 989e12 = 14.5%.
        Scenario s = test::scenarioFor(bareModel(7'000'000'000), "h100-sxm", 8, 4096);
        s.workload.globalBatchTokens = 8 * 4096;
        s.measuredThroughput = throughputFromStep(1.2, 8.0 * 4096);
        const ReportedRun run = reportedRunFromScenario(s, 1.2);
        QVERIFY(run.model && run.model->isBare());
        QCOMPARE(run.gpus, 8);
        QCOMPARE(run.tokensPerStep.value(), 32768.0);
        QCOMPARE(run.gradAccum.value(), int64_t(1));
        QCOMPARE(run.stepTimeSeconds.value(), 1.2);
        const Diagnosis d = diagnose({ run }, { s.cluster.hardware });
        QCOMPARE(d.runs.size(), size_t(1));
        QCOMPARE(qRound(d.mfu * 1000), 145);
    }

    void reportedRunOfAnInvalidLayoutHasNoBatch()
    {
        Scenario s = test::scenarioFor(test::llama31_70b(), "h100-sxm", 12, 8192, 8);
        s.measuredThroughput = Throughput { 1000, ThroughputScope::PerGpu };
        const ReportedRun run = reportedRunFromScenario(s);
        QVERIFY(!run.tokensPerStep && !run.gradAccum);
        QCOMPARE(run.tokensPerSec.value(), 1000.0);
        QCOMPARE(int(run.tokensPerSecScope), int(StatedScope::PerGpu));
    }
    void traceStepTimeMfuCountsUsefulTokensAndRecompute()
    {
        // The Trace panel's, the report's and `trace --json`'s measured MFU. Llama 3.1 8B on 8 B200: 8 x 8,192
        // tokens per step in 0.388 s is 21,111 tokens/s per GPU, 54.34%.
        Scenario s = test::scenarioFor(test::llama31_8b(), "b200", 8, 8192);
        const double tokens = 8.0 * 8192;
        const double step = tokens / 8 / 21111.0;
        const MfuResult m = scenarioMfuAtStepTime(s, tokens, step);
        QCOMPARE(qRound(m.tokensPerSecPerGpu), 21111);
        QCOMPARE(qRound(m.mfu * 10000), 5434);
        // Padding kept in the batch trains nothing: MFU counts the useful 75%, HFU all the processed tokens.
        s.workload.packing.paddingFraction = 0.25;
        const MfuResult padded = scenarioMfuAtStepTime(s, tokens, step);
        QCOMPARE(padded.mfu, 0.75 * m.mfu);
        QCOMPARE(padded.hfu, m.hfu);
        // Recompute is in HFU as everywhere else.
        s.workload.packing.paddingFraction = 0;
        s.activationCheckpointing = ActivationCheckpointing::Full;
        QCOMPARE(scenarioMfuAtStepTime(s, tokens, step).hfu, m.mfu * 4.0 / 3.0);
        QVERIFY_THROWS_EXCEPTION(InputError, scenarioMfuAtStepTime(s, tokens, 0.0));
    }

    void odd4MTokenBatchRunsWholeMicroSteps()
    {
        // 4,000,000 tokens on 8 B200 at 8,192: 65,536 tokens per micro-step, so 62 micro-steps (4,063,232 tokens),
        // as the cost model runs it; the window and the command line both count this.
        Scenario s = test::scenarioFor(test::llama31_8b(), "b200", 8, 8192);
        s.workload.globalBatchTokens = 4'000'000;
        QCOMPARE(scenarioMicroSteps(s), int64_t(62));
        QCOMPARE(processedTokensPerStep(s), int64_t(62 * 65536));
        QVERIFY(globalBatchRoundingNote(s));
        const ReportedRun run = reportedRunFromScenario(s);
        QCOMPARE(run.gradAccum.value(), int64_t(62));
        QCOMPARE(run.tokensPerStep.value(), 62.0 * 65536);
    }
};

QTEST_GUILESS_MAIN(TestScenarioFacts)
#include "tst_scenario_facts.moc"
