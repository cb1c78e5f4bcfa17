// Ranks from different jobs are told from the ranks of one run (core/trace/run_consistency.h).
#include <QtTest>

#include "core/trace/run_consistency.h"

using namespace mfu::trace;

namespace {

RankAnalysis rank(int number, int world, const char* gpu, const char* file, int64_t startNs = 1'700'000'000'000'000'000)
{
    RankAnalysis r;
    r.rank = number;
    r.rankFromTrace = true;
    r.worldSize = world;
    r.gpuName = gpu;
    r.sourceFile = std::string("/runs/") + file;
    StepFigures s;
    s.startNsAbsolute = startNs;
    r.steps.push_back(s);
    return r;
}

} // namespace

class TestRunConsistency : public QObject {
    Q_OBJECT

private slots:
    void ranksOfOneRun()
    {
        const auto c = checkOneRun({ rank(0, 2, "NVIDIA H100 80GB HBM3", "r0.json"),
            rank(1, 2, "NVIDIA H100 80GB HBM3", "r1.json", 1'700'000'000'000'000'000 + 2'000'000'000) });
        QVERIFY(c.oneRun());
        QVERIFY(c.sentence().empty());
        QVERIFY(checkOneRun({ rank(0, 1, "x", "only.json") }).oneRun());
    }

    // The folder of four samples the issue opened as one run: A100 world 16, V100 world 1, V100 world 2, A100 world 8.
    void fourJobs()
    {
        const auto c = checkOneRun({ rank(0, 16, "NVIDIA A100-SXM4-80GB", "a.json"),
            rank(0, 1, "Tesla V100-SXM2-32GB", "b.json", 1'600'000'000'000'000'000),
            rank(0, 2, "Tesla V100-SXM2-32GB", "c.json"), rank(3, 8, "NVIDIA A100-SXM4-80GB", "d.json") });
        QVERIFY(!c.oneRun());
        const std::string s = c.sentence();
        QVERIFY2(
            s.find("their world sizes differ: a.json (16), b.json (1), c.json (2), d.json (8)") != std::string::npos,
            s.c_str());
        QVERIFY2(s.find("they ran on different GPUs") != std::string::npos, s.c_str());
        QVERIFY2(s.find("rank 0 appears 3 times (a.json, b.json, c.json)") != std::string::npos, s.c_str());
        QVERIFY2(s.find("recorded 27777 hours apart (b.json first") != std::string::npos, s.c_str());
    }

    void moreRanksThanTheWorld()
    {
        const auto c
            = checkOneRun({ rank(0, 2, "g", "r0.json"), rank(1, 2, "g", "r1.json"), rank(2, 2, "g", "r2.json") });
        QCOMPARE(c.problems.size(), size_t(1));
        QCOMPARE(c.problems[0], std::string("3 ranks for a world size of 2"));
    }
};

QTEST_APPLESS_MAIN(TestRunConsistency)
#include "tst_run_consistency.moc"
