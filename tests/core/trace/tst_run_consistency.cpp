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

    // Kineto files without distributedInfo are single-process jobs; Nsight exports say nothing either way.
    void noProcessGroup()
    {
        auto single = [](const char* file, const char* format, int64_t startNs) {
            RankAnalysis r = rank(0, 1, "NVIDIA H200", file, startNs);
            r.rankFromTrace = false;
            r.worldSize.reset();
            r.traceFormat = format;
            return r;
        };
        const int64_t t0 = 1'790'857'026'000'000'000;
        const auto kineto = checkOneRun(
            { single("eager.json", "kineto-json", t0), single("compiled.json", "kineto-json", t0 + 1'000'000'000) });
        QCOMPARE(kineto.problems.size(), size_t(1));
        QCOMPARE(kineto.problems[0],
            std::string("eager.json and compiled.json record no process group (PyTorch writes distributedInfo for "
                        "every process of a torch.distributed job): single-process jobs"));
        QVERIFY(
            checkOneRun({ single("r0.sqlite", "nsys-sqlite", t0), single("r1.sqlite", "nsys-sqlite", t0) }).oneRun());
        QVERIFY(checkOneRun({ single("r0.json", "", t0), single("r1.json", "", t0) }).oneRun()); // from summaries
    }

    // A step every rank recorded is compared: one job runs it together, jobs one after another minutes apart.
    void sameStepMinutesApart()
    {
        auto withSteps = [](int number, const char* file, int64_t firstStartNs) {
            RankAnalysis r = rank(number, 2, "g", file, firstStartNs);
            r.steps.clear();
            for (int64_t n = 1; n <= 3; ++n) {
                StepFigures s;
                s.step.number = n;
                s.step.annotationStartNs = 0;
                s.step.annotationEndNs = 10'000'000'000; // 10 s steps
                s.startNsAbsolute = firstStartNs + (n - 1) * 10'000'000'000;
                r.steps.push_back(s);
            }
            return r;
        };
        const int64_t t0 = 1'700'000'000'000'000'000;
        // Within a minute plus two steps: one job.
        QVERIFY(checkOneRun({ withSteps(0, "r0.json", t0), withSteps(1, "r1.json", t0 + 75'000'000'000) }).oneRun());
        const auto c = checkOneRun({ withSteps(0, "r0.json", t0), withSteps(1, "r1.json", t0 + 180'000'000'000) });
        QCOMPARE(c.problems.size(), size_t(1));
        QCOMPARE(c.problems[0], std::string("their step 1 started 3 minutes apart (r0.json first, r1.json last)"));
        // A rank whose analysed steps begin later still compares step 2 with step 2.
        RankAnalysis late = withSteps(1, "r1.json", t0);
        late.steps.erase(late.steps.begin());
        QVERIFY(checkOneRun({ withSteps(0, "r0.json", t0), late }).oneRun());
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
