// The waterfall from peak to achieved MFU: a worked example with round numbers, and the identity
// 100 - sum(losses) = 100 x MFU on real predictions (BF16, FP8 above the BF16 peak, communication-heavy layouts).
#include <QtTest>

#include <numeric>

#include "core/costmodel/cost_model.h"
#include "core/costmodel/mfu_waterfall.h"
#include "costmodel_fixtures.h"

using namespace mfu;
using namespace mfu::test;

// Declared before the first QFETCH/addColumn uses it (Release builds reject a later declaration).
Q_DECLARE_METATYPE(mfu::Scenario)

namespace {
double lossOf(const MfuWaterfall& w, const std::string& key)
{
    for (const MfuLoss& l : w.losses)
        if (l.key == key)
            return l.points;
    return -1;
}
double sumOfLosses(const MfuWaterfall& w)
{
    return std::accumulate(
        w.losses.begin(), w.losses.end(), 0.0, [](double s, const MfuLoss& l) { return s + l.points; });
}
} // namespace

class TestMfuWaterfall : public QObject {
    Q_OBJECT
private slots:
    // Step of 1 s: matmul 0.5, attention 0.1, memory-bound 0.1, recompute 0.1, exposed TP 0.1, bubble 0.05,
    // overhead 0.05, MFU 45%. Compute kernels below peak: 60 - 45 = 15 points; the others their time share.
    void workedExample()
    {
        StepPrediction p;
        p.stepTimeSeconds = 1.0;
        p.time.matmul = 0.5;
        p.time.attention = 0.1;
        p.time.memoryBound = 0.1;
        p.time.recompute = 0.1;
        p.time.comm(CommKind::Tp) = 0.1;
        p.time.pipelineBubble = 0.05;
        p.time.overhead = 0.05;
        p.mfu = 0.45;
        const MfuWaterfall w = mfuWaterfall(p);
        QCOMPARE(w.achievedPoints, 45.0);
        QCOMPARE(w.losses.front().key, std::string("compute"));
        QVERIFY(qFuzzyCompare(lossOf(w, "compute"), 15.0));
        QVERIFY(qFuzzyCompare(lossOf(w, "memory_bound"), 10.0));
        QVERIFY(qFuzzyCompare(lossOf(w, "recompute"), 10.0));
        QVERIFY(qFuzzyCompare(lossOf(w, "comm_tp"), 10.0));
        QVERIFY(qFuzzyCompare(lossOf(w, "pipeline_bubble"), 5.0));
        QVERIFY(qFuzzyCompare(lossOf(w, "overhead"), 5.0));
        QCOMPARE(lossOf(w, "comm_fsdp_allgather"), -1.0); // no time, no bar
        QCOMPARE(int(w.losses.size()), 6);
        QVERIFY(qFuzzyCompare(100.0 - sumOfLosses(w), 45.0));
    }

    void emptyStepHasNoLosses()
    {
        const MfuWaterfall w = mfuWaterfall(StepPrediction {});
        QVERIFY(w.losses.empty());
        QCOMPARE(w.achievedPoints, 0.0);
    }

    void lossesAddUpToAchievedMfu_data()
    {
        QTest::addColumn<Scenario>("scenario");
        QTest::newRow("8B on 8 B200, BF16") << scenarioFor(llama31_8b(), "b200", 8, 8192);
        Scenario fp8 = scenarioFor(llama31_8b(), "b200", 8, 8192);
        fp8.precision = TrainingPrecision::BF16_FP8;
        QTest::newRow("8B on 8 B200, BF16+FP8") << fp8;
        QTest::newRow("70B TP 8 full AC on 16 B200")
            << scenarioFor(llama31_70b(), "b200", 16, 8192, 8, ActivationCheckpointing::Full);
    }
    void lossesAddUpToAchievedMfu()
    {
        QFETCH(Scenario, scenario);
        const StepPrediction p = evaluate(scenario);
        const MfuWaterfall w = mfuWaterfall(p);
        QVERIFY(std::abs(100.0 - sumOfLosses(w) - 100.0 * p.mfu) < 1e-9);
        for (const MfuLoss& l : w.losses)
            if (l.key != "compute")
                QVERIFY2(l.points > 0, l.key.c_str());
    }
};

QTEST_GUILESS_MAIN(TestMfuWaterfall)
#include "tst_mfu_waterfall.moc"
