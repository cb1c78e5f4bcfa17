// A rank's matrix work per analysed step and its precisions (core/trace/step_work.h): one computation for the Trace
// panel's figures and the report's "Work from recorded shapes" row (issue 34: each computed it before).
#include <QtTest>

#include "core/trace/step_work.h"

using namespace mfu;
using namespace mfu::trace;

class TestStepWork : public QObject {
    Q_OBJECT
private slots:
    // 3 steps, 9 TFLOP in them: 3 TFLOP per step. FP8 at 0.2% of them is named; 0.05% of unknown precision is
    // below what a sentence names.
    void perStepAndShares()
    {
        RankAnalysis rank;
        rank.steps.resize(3);
        GemmPrecision fp8;
        fp8.format = NumberFormat::FP8;
        addFlops(rank.opFlops.inSteps, GemmPrecision {}, 8.9775e12);
        addFlops(rank.opFlops.inSteps, fp8, 0.018e12); // 0.2%
        addFlops(rank.opFlops.inSteps, std::nullopt, 0.0045e12); // 0.05%: left out of the sentence
        const StepMatrixWork w = stepMatrixWork(rank);
        QCOMPARE(w.flopsPerStep, 9e12 / 3);
        QCOMPARE(w.precisions.size(), size_t(2));
        QCOMPARE(precisionSharesText(w), std::string("BF16 99.75%, FP8 0.20%"));
    }

    // No steps found: the work in them is counted over one step, not divided by zero; no work, no shares.
    void noSteps()
    {
        RankAnalysis rank;
        addFlops(rank.opFlops.inSteps, std::nullopt, 2e12);
        const StepMatrixWork w = stepMatrixWork(rank);
        QCOMPARE(w.flopsPerStep, 2e12);
        QCOMPARE(precisionSharesText(w), std::string("unknown 100.00%"));
        QVERIFY(stepMatrixWork(RankAnalysis {}).precisions.empty());
        QCOMPARE(stepMatrixWork(RankAnalysis {}).flopsPerStep, 0.0);
    }
};

QTEST_APPLESS_MAIN(TestStepWork)
#include "tst_step_work.moc"
