// The run's GPU activities as one table (core/trace/kernel_table.h): a row per activity, each in the step, rank and
// category that trace's figures count it in, on written traces whose every row is known and on the real traces in
// ../shared/traces (skipped when absent), where the rows are checked against the analysis of the same file.
#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

#include "core/errors.h"
#include "core/trace/analysis.h"
#include "core/trace/kernel_table.h"
#include "core/trace/trace_loader.h"
#include "trace_test_support.h"

using namespace mfu::trace;
namespace fs = std::filesystem;

namespace {

KernelRules builtInRules()
{
    return KernelRules::fromFile(MFU_SOURCE_DIR "/presets/kernels/kernel_rules.json");
}

void writeFile(const fs::path& path, const std::string& bytes)
{
    std::ofstream(path, std::ios::binary) << bytes;
}

// Three GPU-annotated steps of 400 us from t = 100 us (all three complete, so all analysed), a memcpy before the
// first, a GEMM and an all-reduce in each; ts relative to a time origin of 1.7e18 ns. `rank` < 0: no
// distributedInfo.
std::string threeSteps(int rank)
{
    std::vector<std::string> events { trace_test::kernel(
        "Memcpy HtoD (Pageable -> Device)", "10", "20", 7, -1, "gpu_memcpy") };
    for (int s = 0; s < 3; ++s) {
        const int t0 = 100 + s * 400;
        events.push_back(
            trace_test::annotation("ProfilerStep#" + std::to_string(s + 4), std::to_string(t0), "400", true));
        events.push_back(
            trace_test::kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", std::to_string(t0 + 10), "100.5", 7));
        events.push_back(
            trace_test::kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(x)", std::to_string(t0 + 50), "100", 20));
    }
    std::string top = "\"baseTimeNanoseconds\": 1700000000000000000";
    if (rank >= 0)
        top += ", \"distributedInfo\": {\"rank\": " + std::to_string(rank) + ", \"world_size\": 2}";
    return trace_test::traceOf(events, top);
}

std::vector<fs::path> realTraces()
{
    std::vector<fs::path> files;
    for (const char* name : { "hta__nccl_parser_config__nccl_data.json.gz", "hta__trace_filter__sampled_rank-0.json.gz",
             "hta__trace_filter__sampled_rank-1.json.gz", "tracelens__h100__qwen1.5-0.5b-chat.json.gz" })
        files.push_back(fs::path(MFU_SHARED_TRACES_DIR) / name);
    return files;
}

} // namespace

class TestKernelTable : public QObject {
    Q_OBJECT

private slots:
    void everyActivityInItsStep()
    {
        QTemporaryDir dir;
        const fs::path file = fs::path(dir.path().toStdString()) / "rank.json";
        writeFile(file, threeSteps(-1));
        const KernelTable t = readKernelTable({ file }, builtInRules());
        QCOMPARE(t.files, std::vector<std::string> { file.string() });
        QCOMPARE(t.rows.size(), size_t(7)); // the memcpy and 3 x (GEMM, all-reduce)
        QCOMPARE(t.names.size(), size_t(3));

        const KernelRow& memcpy = t.rows[0];
        QCOMPARE(t.names[memcpy.name], std::string("Memcpy HtoD (Pageable -> Device)"));
        QCOMPARE(activityKindKey(memcpy.kind), std::string_view("memcpy"));
        QCOMPARE(memcpy.category, KernelCategory::Memcpy);
        QVERIFY(!memcpy.step); // before the first step: in no step's figures
        QCOMPARE(memcpy.startNs, 1700000000000000000 + 10'000);

        const KernelRow& gemm = t.rows[1];
        QCOMPARE(t.names[gemm.name], std::string("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n"));
        QCOMPARE(gemm.category, KernelCategory::Gemm);
        QCOMPARE(gemm.step, std::optional<int64_t>(4)); // ProfilerStep#4
        QCOMPARE(gemm.startNs, 1700000000000000000 + 110'000);
        QCOMPARE(gemm.durationNs, int64_t(100'500)); // fractional microseconds kept exactly
        QCOMPARE(gemm.stream, 7);
        QCOMPARE(gemm.rank, 0); // no distributedInfo: its position in the list

        const KernelRow& allReduce = t.rows[2];
        QCOMPARE(allReduce.category, KernelCategory::CommAllReduce);
        QCOMPARE(allReduce.stream, 20);
        QCOMPARE(t.rows[3].step, std::optional<int64_t>(5));
        QCOMPARE(t.rows[4].step, std::optional<int64_t>(5));
        QCOMPARE(t.rows[5].step, std::optional<int64_t>(6)); // the last launched what the others did: kept
        QCOMPARE(t.rows[6].step, std::optional<int64_t>(6));
    }

    void ranksOrderedAsTheRun()
    {
        QTemporaryDir dir;
        const fs::path a = fs::path(dir.path().toStdString()) / "a.json";
        const fs::path b = fs::path(dir.path().toStdString()) / "b.json.gz";
        writeFile(a, threeSteps(1));
        writeFile(b, trace_test::gzip(threeSteps(0)));
        const KernelTable t = readKernelTable({ a, b }, builtInRules());
        QCOMPARE(t.rows.size(), size_t(14));
        for (size_t i = 0; i < 7; ++i) {
            QCOMPARE(t.rows[i].rank, 0);
            QCOMPARE(t.files[t.rows[i].file], b.string());
            QCOMPARE(t.rows[7 + i].rank, 1);
            QCOMPARE(t.files[t.rows[7 + i].file], a.string());
        }
        QCOMPARE(t.names.size(), size_t(3)); // interned over the run
    }

    void folderAndErrors()
    {
        QTemporaryDir dir;
        writeFile(fs::path(dir.path().toStdString()) / "r0.json", threeSteps(-1));
        writeFile(fs::path(dir.path().toStdString()) / "r1.json", threeSteps(-1));
        const KernelTable t = readKernelTable({ fs::path(dir.path().toStdString()) }, builtInRules());
        QCOMPARE(t.files.size(), size_t(2));
        QCOMPARE(t.rows.back().rank, 1);
        QVERIFY_THROWS_EXCEPTION(mfu::InputError, readKernelTable({ fs::path("/nonexistent.json") }, builtInRules()));
    }

    // On real traces: a row per activity of the file, and per rank the kernels that have a step are the
    // analysis's kernel_count, their summed durations its kernel time.
    void realTracesAgreeWithTheAnalysis()
    {
        if (!QDir(QStringLiteral(MFU_SHARED_TRACES_DIR)).exists())
            QSKIP("real traces not found at " MFU_SHARED_TRACES_DIR " (shared/traces is absent in this checkout)");
        const KernelRules rules = builtInRules();
        for (const fs::path& file : realTraces()) {
            const KernelTable t = readKernelTable({ file }, rules);
            Timeline timeline = loadTrace(file);
            QCOMPARE(t.rows.size(), timeline.activities.size());
            const RankAnalysis r = analyzeRank(timeline, rules);
            int64_t kernels = 0;
            int64_t kernelNs = 0;
            for (const KernelRow& row : t.rows)
                if (row.kind == ActivityKind::Kernel && row.step) {
                    ++kernels;
                    kernelNs += row.durationNs;
                }
            QCOMPARE(kernels, r.total.kernelCount);
            QCOMPARE(kernelNs, r.total.kernelTimeNs);
            QVERIFY(kernels > 0);
        }
    }
};

QTEST_GUILESS_MAIN(TestKernelTable)
#include "tst_kernel_table.moc"
