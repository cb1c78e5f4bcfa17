// Cross-rank views (core/trace/cross_rank.h) on hand-built ranks whose answers are worked out below.
#include <QtTest>

#include "core/trace/cross_rank.h"
#include "core/trace/rank_file_labels.h"

using namespace mfu::trace;

namespace {

StepFigures step(int64_t number, int64_t startNs, int64_t durationNs, int64_t busyNs)
{
    StepFigures f;
    f.step.number = number;
    f.step.annotationStartNs = f.step.windowStartNs = startNs;
    f.step.annotationEndNs = f.step.windowEndNs = startNs + durationNs;
    f.breakdown.spanNs = durationNs;
    f.breakdown.busyNs = busyNs;
    return f;
}

RankAnalysis rank(int id, std::vector<StepFigures> steps, std::vector<CollectiveCall> calls)
{
    RankAnalysis r;
    r.rank = id;
    r.steps = std::move(steps);
    double sum = 0;
    for (const auto& s : r.steps)
        sum += static_cast<double>(s.step.annotationDurationNs()) / 1e9;
    r.meanStepSeconds = r.steps.empty() ? 0 : sum / static_cast<double>(r.steps.size());
    r.collectives = std::move(calls);
    return r;
}

KernelStat kernel(const char* name, int64_t count, int64_t ns)
{
    KernelStat k;
    k.name = name;
    k.category = KernelCategory::Gemm;
    k.count = count;
    k.totalNs = ns;
    return k;
}

} // namespace

class TestCrossRank : public QObject {
    Q_OBJECT

private slots:
    // Rank 0: steps 1-3 of 1, 3, 2 s (median 2). Rank 1: steps 2-3 only, 4 s each, half busy.
    void fileLabelsSayWhatTellsRanksApart()
    {
        const std::vector<std::string> hta { "/t/hta__trace_filter__sampled_rank-0.json.gz",
            "/t/hta__trace_filter__sampled_rank-1.json.gz" };
        QCOMPARE(distinctFileLabels(hta), std::vector<std::string>({ "\u2026rank-0.json.gz", "\u2026rank-1.json.gz" }));
        // A short shared prefix, one file, or names that share nothing are kept whole.
        // A run's ranks, in rank order, as the Ranks table and the Rank combo name them.
        RunAnalysis run;
        run.ranks.resize(2);
        run.ranks[0].sourceFile = hta[0];
        run.ranks[1].sourceFile = hta[1];
        QCOMPARE(rankFileLabels(run), distinctFileLabels(hta));
        QCOMPARE(distinctFileLabels({ "a/rank0.json", "a/rank1.json" }),
            std::vector<std::string>({ "rank0.json", "rank1.json" }));
        QCOMPARE(distinctFileLabels({ hta.front() }),
            std::vector<std::string>({ "hta__trace_filter__sampled_rank-0.json.gz" }));
        QCOMPARE(distinctFileLabels({ "x/run_long_name_a.json", "y\\other.json" }),
            std::vector<std::string>({ "run_long_name_a.json", "other.json" }));
    }

    void stepTimesAndBusyShare()
    {
        RunAnalysis run;
        run.ranks.push_back(rank(0,
            { step(1, 0, 1'000'000'000, 250'000'000), step(2, 1'000'000'000, 3'000'000'000, 3'000'000'000),
                step(3, 4'000'000'000, 2'000'000'000, 1'000'000'000) },
            {}));
        run.ranks.push_back(rank(
            1, { step(2, 0, 4'000'000'000, 2'000'000'000), step(3, 4'000'000'000, 4'000'000'000, 2'000'000'000) }, {}));
        const auto times = stepTimesPerRank(run);
        QCOMPARE(times.size(), size_t(2));
        QCOMPARE(times[0].minSeconds, 1.0);
        QCOMPARE(times[0].medianSeconds, 2.0);
        QCOMPARE(times[0].maxSeconds, 3.0);
        QCOMPARE(times[0].meanSeconds, 2.0);
        QCOMPARE(times[1].medianSeconds, 4.0); // even count: mean of the middle two
        // Type 7 quartiles of 1, 2, 3 s: h = 2 x 0.25 = 0.5 -> 1 + 0.5 x (2 - 1); h = 1.5 -> 2 + 0.5 x (3 - 2).
        QCOMPARE(times[0].lowerQuartileSeconds, 1.5);
        QCOMPARE(times[0].upperQuartileSeconds, 2.5);
        QCOMPARE(times[0].stepSeconds, (std::vector<double> { 1.0, 3.0, 2.0 })); // in step order
        QCOMPARE(times[1].lowerQuartileSeconds, 4.0);
        QCOMPARE(times[1].upperQuartileSeconds, 4.0);
        const BusyShareMatrix m = busyShareMatrix(run);
        QCOMPARE(m.steps, (std::vector<int64_t> { 1, 2, 3 }));
        QCOMPARE(m.ranks, (std::vector<int> { 0, 1 }));
        QCOMPARE(*m.share[0][0], 0.25);
        QCOMPARE(*m.share[0][1], 1.0);
        QCOMPARE(*m.share[0][2], 0.5);
        QVERIFY(!m.share[1][0].has_value()); // rank 1 did not analyse step 1
        QCOMPARE(*m.share[1][1], 0.5);
        const auto j = crossRankToJson(run);
        QVERIFY(j["busy_share"]["share"][1][0].is_null());
        QCOMPARE(j["step_times"][0]["lower_quartile_s"].get<double>(), 1.5);
        QCOMPARE(j["step_times"][0]["upper_quartile_s"].get<double>(), 2.5);
        QVERIFY(j.contains("collective_wait"));
    }

    // Three ranks, two all-reduces then a broadcast on ranks 0-1 but an all-gather on rank 2 (schedules diverge).
    // Call 0 starts at 10, 30, 20 us: rank 1 is last; waits 20, 0, 10 us. Call 1 at 100, 100, 160: rank 2; waits
    // 60, 60, 0.
    void collectiveWait()
    {
        auto call = [](KernelCategory c, int64_t us) { return CollectiveCall { c, us * 1000, 5000 }; };
        const auto ar = KernelCategory::CommAllReduce;
        RunAnalysis run;
        run.ranks.push_back(rank(0, {}, { call(ar, 10), call(ar, 100), call(KernelCategory::CommBroadcast, 200) }));
        run.ranks.push_back(rank(1, {}, { call(ar, 30), call(ar, 100), call(KernelCategory::CommBroadcast, 200) }));
        run.ranks.push_back(rank(2, {}, { call(ar, 20), call(ar, 160), call(KernelCategory::CommAllGather, 200) }));
        const CollectiveWaits w = collectiveWaits(run);
        QCOMPARE(w.collectives.size(), size_t(2));
        QCOMPARE(w.collectives[0].slowestRank, 1);
        QVERIFY(qAbs(w.collectives[0].maxWaitSeconds - 20e-6) < 1e-15);
        QVERIFY(qAbs(w.collectives[0].meanWaitSeconds - 10e-6) < 1e-15);
        QCOMPARE(w.collectives[1].slowestRank, 2);
        QVERIFY(qAbs(w.ranks[0].waitSeconds - 80e-6) < 1e-15);
        QVERIFY(qAbs(w.ranks[1].waitSeconds - 60e-6) < 1e-15);
        QVERIFY(qAbs(w.ranks[2].waitSeconds - 10e-6) < 1e-15);
        QCOMPARE(w.ranks[1].timesSlowest, size_t(1));
        QCOMPARE(w.ranks[2].timesSlowest, size_t(1));
        QCOMPARE(w.unmatched, size_t(3));
    }

    // Baseline: gemm_a 10 x 5 ms + flash 4 x 1 ms; optimised: gemm_a 10 x 3 ms, new fused kernel 2 x 1 ms.
    // Deltas: gemm_a -20 ms, flash -4 ms, fused +2 ms: sorted by |delta|.
    void kernelDiffSortedByDelta()
    {
        RunAnalysis base;
        base.ranks.push_back(RankAnalysis {});
        base.ranks[0].kernels = { kernel("gemm_a", 10, 50'000'000), kernel("flash", 4, 4'000'000) };
        RunAnalysis opt;
        opt.ranks.push_back(RankAnalysis {});
        opt.ranks[0].kernels = { kernel("gemm_a", 10, 30'000'000), kernel("fused", 2, 2'000'000) };
        const auto rows = kernelDiff(base, opt);
        QCOMPARE(rows.size(), size_t(3));
        QCOMPARE(rows[0].name, std::string("gemm_a"));
        QCOMPARE(rows[0].deltaNs(), int64_t(-20'000'000));
        QCOMPARE(rows[1].name, std::string("flash"));
        QCOMPARE(rows[1].optimisedCount, int64_t(0));
        QCOMPARE(rows[2].name, std::string("fused"));
        QCOMPARE(rows[2].baselineCount, int64_t(0));
        QCOMPARE(kernelDiffToJson(rows)[0]["delta_s"].get<double>(), -0.02);
    }

    // A baseline profiled over one step against a run of three: the same 84 ms attention backward a step is no change
    // (the sums differed 3x: "+168 ms"), and a kernel 10 ms a step faster leads the table. Per step per rank, summed
    // over the ranks: two ranks of 2 steps each give 2 x 20 / 2 ms.
    void kernelDiffIsPerStep()
    {
        RunAnalysis base;
        base.ranks.push_back(RankAnalysis {});
        base.ranks[0].steps.resize(1);
        base.ranks[0].kernels = { kernel("attention_bwd", 1, 84'000'000), kernel("gemm", 1, 50'000'000) };
        RunAnalysis opt;
        opt.ranks.push_back(RankAnalysis {});
        opt.ranks[0].steps.resize(3);
        opt.ranks[0].kernels = { kernel("attention_bwd", 3, 252'000'000), kernel("gemm", 3, 120'000'000) };
        const auto rows = kernelDiff(base, opt);
        QCOMPARE(rows.size(), size_t(2));
        QCOMPARE(rows[0].name, std::string("gemm"));
        QCOMPARE(rows[0].deltaNsPerStep(), -10'000'000.0);
        QCOMPARE(rows[1].deltaNsPerStep(), 0.0);
        QCOMPARE(rows[1].deltaNs(), int64_t(168'000'000)); // the sums, still in the JSON
        const auto j = kernelDiffToJson(rows);
        QCOMPARE(j[0]["delta_s_per_step"].get<double>(), -0.01);
        QCOMPARE(j[0]["baseline_s_per_step"].get<double>(), 0.05);
        RunAnalysis two;
        for (int r = 0; r < 2; ++r) {
            two.ranks.push_back(RankAnalysis {});
            two.ranks[r].steps.resize(2);
            two.ranks[r].kernels = { kernel("gemm", 2, 20'000'000) };
        }
        QCOMPARE(kernelDiff(two, two)[0].baselineNsPerStep, 20'000'000.0);
    }

    // A kernel under another name in the baseline is one row, not a +163 ms and a -105 ms row: the same function
    // with other template arguments, or the one all-reduce of each run under two NCCL versions' naming.
    void renamedKernelsArePaired()
    {
        auto comm = [](const char* name, int64_t ns) {
            KernelStat k = kernel(name, 1, ns);
            k.category = KernelCategory::CommAllReduce;
            return k;
        };
        RunAnalysis base;
        base.ranks.push_back(RankAnalysis {});
        base.ranks[0].kernels = { comm("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", 105'000'000),
            kernel("void at::native::vectorized_kernel<4, float>(int)", 1, 2'000'000) };
        RunAnalysis opt;
        opt.ranks.push_back(RankAnalysis {});
        opt.ranks[0].kernels
            = { comm("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 163'000'000),
                  kernel("void at::native::vectorized_kernel<8, float>(int)", 1, 1'000'000) };
        const auto rows = kernelDiff(base, opt);
        QCOMPARE(rows.size(), size_t(2));
        QCOMPARE(
            rows[0].name, std::string("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"));
        QCOMPARE(rows[0].baselineName, std::string("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"));
        QCOMPARE(rows[0].deltaNs(), int64_t(58'000'000));
        QCOMPARE(rows[1].baselineName, std::string("void at::native::vectorized_kernel<4, float>(int)"));
        QCOMPARE(rows[1].deltaNs(), int64_t(-1'000'000));
        QCOMPARE(kernelDiffToJson(rows)[0]["baseline_name"].get<std::string>(), rows[0].baselineName);
        QCOMPARE(kernelFunctionName("void at::native::vectorized_kernel<4, float>(int)"),
            std::string("at::native::vectorized_kernel"));
        // Two unpaired all-reduces on a side: which is which cannot be told, so neither is paired.
        opt.ranks[0].kernels.push_back(comm("ncclDevKernel_AllReduce_Sum_bf16_TREE_LL(x)", 1'000'000));
        QCOMPARE(kernelDiff(base, opt).size(), size_t(4));
    }
};

QTEST_GUILESS_MAIN(TestCrossRank)
#include "tst_cross_rank.moc"
