// Trace analysis against small synthetic traces whose answers are worked out by hand in the comments.
#include <QtTest>

#include "core/errors.h"
#include "core/trace/analysis.h"
#include "core/trace/analysis_json.h"
#include "core/trace/comparison.h"
#include "trace_test_support.h"

using namespace mfu::trace;
using namespace trace_test;

namespace {

const std::string kGemm = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64";
const std::string kFlash = "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64> >(Flash_fwd_params)";
const std::string kAllReduce = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
const std::string kElementwise = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >()";

KernelRules builtInRules()
{
    return KernelRules::fromFile(MFU_SOURCE_DIR "/presets/kernels/kernel_rules.json");
}

constexpr int64_t us = 1000; // ns per microsecond

// Stream 7: GEMM [0,100), flash [100,150), elementwise [200,205); stream 20: all-reduce [80,180);
// memcpy [300,320). Span 320 us; busy = [0,180) + [200,205) + [300,320) = 205 us; idle 115 us.
// Compute = [0,150) + [200,205) = 155; comm = [80,180) = 100; overlap = [80,150) = 70; exposed 30; fraction 0.7.
std::string overlapTrace()
{
    return traceOf({ kernel(kGemm, "0", "100"), kernel(kFlash, "100", "50"), kernel(kAllReduce, "80", "100", 20),
        kernel(kElementwise, "200", "5"), kernel("Memcpy HtoD (Pinned -> Device)", "300", "20", 7, -1, "gpu_memcpy") });
}

} // namespace

class TestTraceAnalysis : public QObject {
    Q_OBJECT

private slots:
    // Two gaps of 200 us: the first ends with a kernel launched 100 us into it (the GPU waited on the host), the
    // second with one launched before the GPU went idle (queued behind something the trace does not show).
    void idleGapsByWhatTheyWaitedOn()
    {
        Timeline t = read(traceOf({ launch(1, "0"), kernel(kGemm, "5", "95", 7, 1), launch(2, "200"),
            kernel(kGemm, "300", "100", 7, 2), launch(3, "350"), kernel(kGemm, "600", "100", 7, 3) }));
        const RankAnalysis r = analyzeRank(t, builtInRules(), {});
        const Breakdown& b = r.total;
        QCOMPARE(b.idleGapCount, int64_t { 2 });
        QCOMPARE(b.idleGapNs, 400 * us);
        QCOMPARE(b.idleGapHostNs, 200 * us);
        QCOMPARE(b.idleGapQueuedNs, 200 * us);
        const std::string text = idleGapText(idleGapsPerStep(b, r.steps.size()));
        QCOMPARE(text,
            std::string("2 gaps of 0.1 ms or more a step, 0.400 ms: 0.200 ms waiting on a launch from the host, "
                        "0.200 ms with the next work already launched (waiting on another stream, a peer rank or a "
                        "wait the trace does not show)"));
        QCOMPARE(idleGapText({}), std::string("no gap of 0.1 ms or more"));
        QCOMPARE(idleGapText({ 1.5, 2e-3, 2e-3, 0 }),
            std::string("1.5 gaps of 0.1 ms or more a step, 2.000 ms, all waiting on a launch from the host"));
    }

    void busyIdleOverlapAndCategories()
    {
        Timeline t = read(overlapTrace());
        AnalysisOptions options;
        options.breakdown.idleGapNs = 50 * us;
        const RankAnalysis r = analyzeRank(t, builtInRules(), options);
        QCOMPARE(r.stepSource, StepSource::WholeTrace);
        QCOMPARE(r.steps.size(), size_t(1));
        const Breakdown& b = r.total;
        QCOMPARE(b.spanNs, 320 * us);
        QCOMPARE(b.busyNs, 205 * us);
        QCOMPARE(b.idleNs(), 115 * us);
        QCOMPARE(b.computeNs, 155 * us);
        QCOMPARE(b.commNs, 100 * us);
        QCOMPARE(b.overlapNs, 70 * us);
        QCOMPARE(b.exposedCommNs(), 30 * us);
        QCOMPARE(b.commOverlapFraction(), 0.7);
        auto cat = [&](KernelCategory c) { return b.categoryNs[static_cast<size_t>(c)]; };
        auto excl = [&](KernelCategory c) { return b.exclusiveNs[static_cast<size_t>(c)]; };
        QCOMPARE(cat(KernelCategory::Gemm), 100 * us);
        QCOMPARE(cat(KernelCategory::AttentionFwd), 50 * us);
        QCOMPARE(cat(KernelCategory::CommAllReduce), 100 * us);
        QCOMPARE(cat(KernelCategory::Elementwise), 5 * us);
        QCOMPARE(cat(KernelCategory::Memcpy), 20 * us);
        // Exclusive attribution hides the overlapped 70 us of all-reduce under compute; it sums to busy.
        QCOMPARE(excl(KernelCategory::CommAllReduce), 30 * us);
        int64_t exclusiveSum = 0;
        for (int64_t ns : b.exclusiveNs)
            exclusiveSum += ns;
        QCOMPARE(exclusiveSum, b.busyNs);
        QCOMPARE(b.share(cat(KernelCategory::Gemm)), 100.0 / 320.0);
        QCOMPARE(b.kernelCount, int64_t(4)); // the memcpy is not a kernel
        QCOMPARE(b.tinyKernelCount, int64_t(1)); // the 5 us elementwise kernel (< 10 us)
        QCOMPARE(b.idleGapCount, int64_t(1)); // [205,300) = 95 us >= 50 us; [180,200) is shorter
        QCOMPARE(b.idleGapNs, 95 * us);
        // No launch is recorded: the gap waited on nothing the trace can name.
        QCOMPARE(b.idleGapHostNs + b.idleGapQueuedNs, int64_t { 0 });
        // GEMM and all-reduce tie at 100 us; name order breaks the tie ("nccl..." < "sm90...").
        QCOMPARE(r.topKernels.size(), size_t(5));
        QCOMPARE(r.topKernels[0].name, kAllReduce);
        QCOMPARE(r.topKernels[1].name, kGemm);
        QCOMPARE(r.topKernels[1].shareOfKernelTime, 100.0 / 275.0); // of all activity time, memcpy included
        QCOMPARE(r.meanStepSeconds, 320e-6);
    }

    // CPU ProfilerStep#1 [0,1000), #2 [1000,2000), #3 [2000,2500) (it launched 1 activity against 2 in step 1 and
    // 1 in step 2: a median of 2, so it is incomplete and left out).
    // Kernel 2 is launched at 990 (step 1) but runs at 1100: it belongs to step 1. Windows tile from each step's
    // first kernel: step 1 [50,1250), step 2 [1250,2100).
    void stepsFromCpuAnnotationsFollowLaunches()
    {
        Timeline t = read(traceOf({ annotation("ProfilerStep#1", "0", "1000", false),
            annotation("ProfilerStep#2", "1000", "1000", false), annotation("ProfilerStep#3", "2000", "500", false),
            launch(1, "10"), launch(2, "990"), launch(3, "1010"), launch(4, "2010"), kernel(kGemm, "50", "100", 7, 1),
            kernel(kGemm, "1100", "100", 7, 2), kernel(kElementwise, "1250", "50", 7, 3),
            kernel(kGemm, "2100", "100", 7, 4) }));
        const RankAnalysis r = analyzeRank(t, builtInRules());
        QCOMPARE(r.stepSource, StepSource::CpuAnnotation);
        QVERIFY(r.droppedLastStep);
        QCOMPARE(r.steps.size(), size_t(2));
        QCOMPARE(r.steps[0].step.number, int64_t(1));
        QCOMPARE(r.steps[0].step.windowStartNs, 50 * us);
        QCOMPARE(r.steps[0].step.windowEndNs, 1250 * us);
        QCOMPARE(r.steps[0].breakdown.busyNs, 200 * us);
        QCOMPARE(r.steps[0].breakdown.kernelCount, int64_t(2));
        QCOMPARE(r.steps[1].step.windowEndNs, 2100 * us);
        QCOMPARE(r.steps[1].breakdown.busyNs, 50 * us);
        QCOMPARE(r.steps[1].breakdown.kernelCount, int64_t(1));
        QCOMPARE(r.total.spanNs, 2050 * us);
        QCOMPARE(r.total.idleNs(), 1800 * us);
        QCOMPARE(r.meanStepSeconds, 1e-3); // annotation durations
        QCOMPARE(r.stepSpreadSeconds, 0.0);
    }

    // CPU annotations win over GPU ones (PyTorch 2.11 writes both; the GPU copy covers part of the step): the one
    // CPU step holds both kernels, and the GPU copies are said to be partial (#5 covers 250 of the 350 us of work).
    void cpuAnnotationsWinOverGpuOnes()
    {
        Timeline t = read(
            traceOf({ annotation("ProfilerStep#5", "0", "900", false), annotation("ProfilerStep#5", "100", "300", true),
                        annotation("ProfilerStep#6", "400", "300", true), kernel(kGemm, "150", "100"),
                        kernel(kGemm, "450", "50") },
                "\"baseTimeNanoseconds\": 1751410836000000000"));
        const RankAnalysis r = analyzeRank(t, builtInRules());
        QCOMPARE(r.stepSource, StepSource::CpuAnnotation);
        QCOMPARE(r.gpuStepAnnotations, GpuStepAnnotations::Partial);
        QCOMPARE(r.steps.size(), size_t(1));
        QCOMPARE(r.steps[0].step.number, int64_t(5));
        QCOMPARE(r.steps[0].startNsAbsolute, int64_t(1751410836000000000));
        QCOMPARE(r.steps[0].step.activityCount, int64_t(2));
        QCOMPARE(r.steps[0].step.workStartNs, 150 * us);
        QCOMPARE(r.steps[0].step.workEndNs, 500 * us);
        QCOMPARE(r.total.spanNs, 350 * us);
        QCOMPARE(r.total.busyNs, 150 * us);
        QCOMPARE(r.total.kernelCount, int64_t(2));
        QCOMPARE(r.meanStepSeconds, 900e-6);
        QCOMPARE(r.meanGpuWorkSeconds, 350e-6);
        // The GPU worked 350 us of the loop's 900 us step: it waited on the host for the rest.
        QVERIFY(stepTimingNote(r).find("waited on the host") != std::string::npos);
    }

    // Without CPU annotations the GPU ones are the steps; both launched one kernel, so neither is incomplete.
    void stepsFromGpuAnnotationsWithoutCpuOnes()
    {
        Timeline t = read(traceOf(
            { annotation("ProfilerStep#5", "100", "300", true), annotation("ProfilerStep#6", "400", "300", true),
                kernel(kGemm, "150", "100"), kernel(kGemm, "450", "50") },
            "\"baseTimeNanoseconds\": 1751410836000000000"));
        const RankAnalysis r = analyzeRank(t, builtInRules());
        QCOMPARE(r.stepSource, StepSource::GpuAnnotation);
        QVERIFY(!r.droppedLastStep);
        QCOMPARE(r.steps.size(), size_t(2));
        QCOMPARE(r.steps[0].step.number, int64_t(5));
        QCOMPARE(r.steps[0].startNsAbsolute, int64_t(1751410836000000000) + 100 * us);
        QCOMPARE(r.steps[0].step.windowDurationNs(), 300 * us);
        QCOMPARE(r.steps[0].breakdown.busyNs, 100 * us);
        QCOMPARE(r.steps[1].breakdown.busyNs, 50 * us);
        QCOMPARE(r.total.kernelCount, int64_t(2));
        QVERIFY(stepTimingNote(r).empty()); // only CPU steps are the loop's
    }

    void comparisonOfTwoRuns()
    {
        Timeline baseline = read(overlapTrace());
        Timeline optimised = read(traceOf({ kernel(kGemm, "0", "100") }));
        std::vector<Timeline> b { std::move(baseline) };
        std::vector<Timeline> o { std::move(optimised) };
        const RunComparison c = compareRuns(analyzeRun(b, builtInRules()), analyzeRun(o, builtInRules()));
        QCOMPARE(c.baselineStepSeconds, 320e-6);
        QCOMPARE(c.optimisedStepSeconds, 100e-6);
        QCOMPARE(c.speedup, 3.2);
        const auto gemm
            = std::find_if(c.categories.begin(), c.categories.end(), [](auto& row) { return row.key == "gemm"; });
        QCOMPARE(gemm->baselineShare, 100.0 / 320.0);
        QCOMPARE(gemm->optimisedShare, 1.0);
        QCOMPARE(gemm->deltaShare(), 1.0 - 100.0 / 320.0);
        QCOMPARE(c.categories.back().key, std::string("idle"));
        QCOMPARE(c.categories.back().baselineShare, 115.0 / 320.0);
        QCOMPARE(c.categories.back().deltaSecondsPerStep(), -115e-6);
    }

    // Rank 1 computes 150 us per step against rank 0's 100 us: the others wait for it.
    void stragglerAndItsCause()
    {
        std::vector<Timeline> ranks;
        ranks.push_back(read(traceOf({ kernel(kGemm, "0", "100"), kernel(kAllReduce, "100", "100", 20) },
            "\"distributedInfo\": {\"rank\": 0, \"world_size\": 2}")));
        ranks.push_back(read(traceOf({ kernel(kGemm, "0", "150"), kernel(kAllReduce, "150", "50", 20) },
            "\"distributedInfo\": {\"rank\": 1, \"world_size\": 2}")));
        const RunAnalysis run = analyzeRun(ranks, builtInRules());
        QCOMPARE(run.gpuCount(), 2);
        QVERIFY(run.straggler);
        QCOMPARE(run.straggler->rank, 1);
        QCOMPARE(run.straggler->cause, std::string("gemm"));
        QCOMPARE(run.straggler->excessSecondsPerStep, 25e-6); // 150 us against the median 125 us
        // One step each: no spread, so the 25 us stand out.
        QCOMPARE(run.straggler->rankSpreadSeconds, 0.0);
        QVERIFY(run.straggler->standsOut);
    }

    // Steps of 1 and 3 ms (standard deviation 1 ms) on both ranks, rank 1's GEMM 10 us longer a step: 5 us over
    // the median is no straggler.
    void noRankStandsOutWithinTheSpread()
    {
        std::vector<Timeline> ranks;
        for (const char* gemm : { "100", "110" }) {
            const std::string rank = ranks.empty() ? "0" : "1";
            ranks.push_back(read(
                traceOf({ annotation("ProfilerStep#1", "0", "1000", false),
                            annotation("ProfilerStep#2", "1000", "3000", false), launch(1, "10"), launch(2, "1010"),
                            kernel(kGemm, "50", gemm, 7, 1), kernel(kGemm, "1050", gemm, 7, 2) },
                    "\"distributedInfo\": {\"rank\": " + rank + ", \"world_size\": 2}")));
        }
        const RunAnalysis run = analyzeRun(ranks, builtInRules());
        QVERIFY(run.straggler);
        QCOMPARE(run.straggler->rank, 1);
        QCOMPARE(run.straggler->rankSpreadSeconds, 1e-3);
        QVERIFY(run.straggler->excessSecondsPerStep < 1e-5);
        QVERIFY(!run.straggler->standsOut);
    }

    // The overlap trace's GEMM ran 100 us in its one step. 2e9 matmul FLOP/token x 1e4 tokens on 2 GPUs =
    // 1e13 FLOP per GPU per step in 1e-4 s of GEMM time = 1e17 FLOP/s, against a 1e18 peak: 10%.
    void gemmEfficiency()
    {
        Timeline t = read(overlapTrace());
        const RankAnalysis r = analyzeRank(t, builtInRules());
        QCOMPARE(measuredGemmEfficiency(2e9, 1e4, 2, r, 1e18).value_or(-1), 0.1);
        Timeline none = read(traceOf({ kernel(kElementwise, "0", "5") }));
        QVERIFY(!measuredGemmEfficiency(2e9, 1e4, 2, analyzeRank(none, builtInRules()), 1e18));
    }

    void jsonCarriesTheFixedKeys()
    {
        Timeline t = read(overlapTrace(), "rank.json");
        std::vector<Timeline> ts { std::move(t) };
        const nlohmann::json j = runToJson(analyzeRun(ts, builtInRules()), GpuPresetContext {});
        QCOMPARE(j["ranks"].size(), size_t(1));
        const auto& r = j["ranks"][0];
        for (const char* key : { "rank", "gpu_name", "kernel_count", "steps", "busy_s", "idle_s", "categories",
                 "comm_s", "comm_overlap_fraction", "exposed_comm_s" })
            QVERIFY2(r.contains(key), key);
        QVERIFY(!r.contains("measured_mfu")); // only with a model and tokens per step
        for (const char* key : { "step", "start_ns", "duration_s" })
            QVERIFY2(r["steps"][0].contains(key), key);
        QCOMPARE(r["categories"].size(), size_t(kKernelCategoryCount));
        QCOMPARE(r["categories"]["gemm"]["seconds"].get<double>(), 100e-6);
        QCOMPARE(r["categories"]["gemm"]["share"].get<double>(), 100.0 / 320.0);
        QCOMPARE(r["exposed_comm_s"].get<double>(), 30e-6);
        QCOMPARE(r["steps"][0]["start_ns"].get<int64_t>(), int64_t(0));
    }
};

QTEST_GUILESS_MAIN(TestTraceAnalysis)
#include "tst_analysis.moc"
