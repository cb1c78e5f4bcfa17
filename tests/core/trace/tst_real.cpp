// The readers and analysis on real public traces (../shared/traces, see its README). Expected counts were taken
// from the files with Python's json module, independently of this reader.
#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>

#include "core/presets/gpu_match.h"
#include "core/presets/presets.h"
#include "core/trace/analysis.h"
#include "core/trace/analysis_json.h"
#include "core/trace/collective_sizes.h"
#include "core/trace/trace_loader.h"

using namespace mfu::trace;

namespace {

// The built-in hardware presets, whose "match" patterns name the GPUs.
GpuPresetContext builtInGpus()
{
    mfu::PresetLibrary library;
    library.loadDirectory(std::filesystem::path(MFU_SOURCE_DIR) / "presets");
    return { library.hardware(), "the user presets folder" };
}

std::string tracePath(const char* name)
{
    return std::string(MFU_SHARED_TRACES_DIR) + "/" + name;
}

KernelRules builtInRules()
{
    return KernelRules::fromFile(MFU_SOURCE_DIR "/presets/kernels/kernel_rules.json");
}

size_t countCategory(const Timeline& t, KernelCategory c)
{
    return static_cast<size_t>(
        std::count_if(t.activities.begin(), t.activities.end(), [c](const GpuActivity& a) { return a.category == c; }));
}

} // namespace

class TestTraceReal : public QObject {
    Q_OBJECT

private slots:
    void init()
    {
        if (!QDir(QStringLiteral(MFU_SHARED_TRACES_DIR)).exists())
            QSKIP("real traces not found at " MFU_SHARED_TRACES_DIR " (shared/traces is absent in this checkout)");
    }

    // HTA's NCCL test data: DDP on A100, rank 0 of 2, fractional us relative to baseTimeNanoseconds.
    void htaNcclData()
    {
        Timeline t = loadTrace(tracePath("hta__nccl_parser_config__nccl_data.json.gz"));
        QCOMPARE(t.gpuName.value_or(""), std::string("NVIDIA A100-PG509-200"));
        QCOMPARE(t.rank.value_or(-1), 0);
        QCOMPARE(t.worldSize.value_or(-1), 2);
        QCOMPARE(t.timeOriginNs, int64_t(1711964646000000000));
        QCOMPARE(t.activities.size(), size_t(2700 + 960 + 114)); // kernels + memcpy + memset
        const RankAnalysis r = analyzeRank(t, builtInRules());
        QCOMPARE(countCategory(t, KernelCategory::CommAllReduce), size_t(15));
        QCOMPARE(countCategory(t, KernelCategory::CommBroadcast), size_t(6));
        QCOMPARE(r.stepSource, StepSource::CpuAnnotation);
        // ProfilerStep#4..#6 each launched 1,258 GPU activities: all complete, all analysed (HTA leaves #6 out of
        // its span: tst_hta_span keeps that figure).
        QVERIFY(!r.droppedLastStep);
        QCOMPARE(r.steps.size(), size_t(3));
        QCOMPARE(r.steps[2].step.activityCount, int64_t(1258));
        QCOMPARE(r.steps[0].step.number, int64_t(4));
        QCOMPARE(r.steps[0].startNsAbsolute, int64_t(1711964646000000000) + int64_t(4458676416788066));
        QCOMPARE(r.steps[0].step.annotationDurationNs(), int64_t(222442191));
        QCOMPARE(r.steps[1].step.number, int64_t(5));
        QVERIFY(r.total.commNs > 0);
        QVERIFY(r.total.overlapNs <= r.total.commNs);
        QVERIFY(r.total.busyNs <= r.total.spanNs);
        // Meta's A100-PG509-200 board: its deviceProperties give totalGlobalMem 42,297,524,224 bytes, the 40 GB part.
        QCOMPARE(mfu::proposeHardwarePresetId(*t.gpuName, builtInGpus().hardware).value_or(""),
            std::string("a100-sxm-40gb"));
        const nlohmann::json j = rankToJson(r, builtInGpus());
        QCOMPARE(j["proposed_gpu_preset"].get<std::string>(), std::string("a100-sxm-40gb"));
        QVERIFY(!j.contains("gpu_preset_hint"));
        // The NCCL kernels' recorded messages: 15 FP32 all-reduces of 8.2-31.5 MB over 2 ranks, their bus bandwidth
        // 5.76 GB/s median, 12.99 GB/s best (31,502,336 bytes in 2,424.4 us; waits for rank 1 included), and 6
        // broadcasts, the smallest 53 int64 values (424 bytes).
        const std::vector<CollectiveSizeStat> sizes = collectiveSizeStats(r.collectives);
        QCOMPARE(sizes.size(), size_t(2));
        QCOMPARE(sizes[0].kind, KernelCategory::CommAllReduce);
        QCOMPARE(sizes[0].groupSize, 2);
        QCOMPARE(sizes[0].calls, int64_t(15));
        QCOMPARE(sizes[0].bytesMin, 8196000.0);
        QCOMPARE(sizes[0].bytesMax, 31502336.0);
        QVERIFY2(std::abs(sizes[0].busBandwidthMedian / 5.7554e9 - 1) < 1e-3,
            std::to_string(sizes[0].busBandwidthMedian).c_str());
        QVERIFY2(std::abs(sizes[0].busBandwidthBest / 12.9938e9 - 1) < 1e-3,
            std::to_string(sizes[0].busBandwidthBest).c_str());
        QCOMPARE(sizes[1].kind, KernelCategory::CommBroadcast);
        QCOMPARE(sizes[1].calls, int64_t(6));
        QCOMPARE(sizes[1].bytesMin, 424.0);
        QCOMPARE(j["collective_sizes"][0]["calls"].get<int>(), 15);
    }

    // HTA's sampled recommendation-model pair: integer us, no deviceProperties, world 128.
    void htaSampledRanksAsOneRun()
    {
        QTemporaryDir dir;
        for (const char* name :
            { "hta__trace_filter__sampled_rank-1.json.gz", "hta__trace_filter__sampled_rank-0.json.gz" })
            std::filesystem::create_symlink(tracePath(name), dir.filePath(name).toStdString());
        std::vector<Timeline> ranks = loadRun({ dir.path().toStdString() });
        QCOMPARE(ranks.size(), size_t(2));
        QCOMPARE(ranks[0].rank.value_or(-1), 0);
        QCOMPARE(ranks[1].rank.value_or(-1), 1);
        QVERIFY(!ranks[0].gpuName);
        QCOMPARE(ranks[0].worldSize.value_or(-1), 128);
        QCOMPARE(ranks[0].activities.size(), size_t(1154 + 40 + 10));
        const RunAnalysis run = analyzeRun(ranks, builtInRules());
        QCOMPARE(countCategory(ranks[0], KernelCategory::CommSendRecv), size_t(10));
        QCOMPARE(run.gpuCount(), 128);
        for (const auto& r : run.ranks) {
            // ProfilerStep#551 and #552 launched the same work (602 activities on rank 0, 577 on rank 1): both kept
            QCOMPARE(r.steps.size(), size_t(2));
            QCOMPARE(r.steps[0].step.number, int64_t(551));
            QCOMPARE(r.steps[1].step.activityCount, r.steps[0].step.activityCount);
        }
        QCOMPARE(run.ranks[0].steps[0].startNsAbsolute, int64_t(1682725898079292000));
        // No deviceProperties: no GPU name, so no preset is proposed and there is nothing to hint about.
        const nlohmann::json j = runToJson(run, builtInGpus());
        for (const auto& rank : j["ranks"]) {
            QVERIFY(rank["gpu_name"].is_null());
            QVERIFY(rank["proposed_gpu_preset"].is_null());
            QVERIFY(!rank.contains("gpu_preset_hint"));
        }
        QVERIFY(run.straggler);
        // Rank 1's elementwise work exceeds the median by more than its own steps' standard deviation: it stands out.
        QVERIFY(run.straggler->standsOut);
        QVERIFY(run.straggler->excessSecondsPerStep > run.straggler->rankSpreadSeconds);
        QVERIFY(run.straggler->rankSpreadSeconds > 0);
        QCOMPARE(j["straggler"]["stands_out"].get<bool>(), true);
    }

    // TraceLens's H100 inference trace: ProfilerStep on the CPU (47.151 ms) and the GPU stream (34.892 ms): the CPU
    // one is the step. Its first 509 GPU activities have no recorded launch and run before any that has one: the
    // tail of work launched before the profiler started, so no step's. The GPU copy then covers exactly the work
    // the step launched (it agrees), and the GPU waited on the host for the rest of the step.
    void traceLensH100()
    {
        Timeline t = loadTrace(tracePath("tracelens__h100__qwen1.5-0.5b-chat.json.gz"));
        QCOMPARE(t.gpuName.value_or(""), std::string("NVIDIA H100 80GB HBM3"));
        QVERIFY(!t.rank);
        QCOMPARE(t.activities.size(), size_t(1465 + 241 + 1));
        const RankAnalysis r = analyzeRank(t, builtInRules());
        QCOMPARE(r.stepSource, StepSource::CpuAnnotation);
        QCOMPARE(r.gpuStepAnnotations, GpuStepAnnotations::Agree);
        QCOMPARE(r.steps.size(), size_t(1));
        QCOMPARE(r.steps[0].step.number, int64_t(6));
        QCOMPARE(r.steps[0].step.annotationDurationNs(), int64_t(47151395));
        QCOMPARE(r.steps[0].step.activityCount, int64_t(1707 - 509));
        QCOMPARE(r.steps[0].step.workDurationNs(), int64_t(34892419)); // the GPU copy: 34,892.421 us
        QVERIFY(stepTimingNote(r).find("waited on the host") != std::string::npos);
        QCOMPARE(countCategory(t, KernelCategory::AttentionFwd), size_t(34)); // flash_fwd kernels
        QVERIFY(countCategory(t, KernelCategory::Gemm) >= 241); // sm90_xmma GEMMs (plus others)
        QCOMPARE(r.total.commNs, int64_t(0)); // one GPU, no collectives
        QCOMPARE(
            mfu::proposeHardwarePresetId(*t.gpuName, builtInGpus().hardware).value_or(""), std::string("h100-sxm"));
        QCOMPARE(rankToJson(r, builtInGpus())["proposed_gpu_preset"].get<std::string>(), std::string("h100-sxm"));
    }
};

QTEST_GUILESS_MAIN(TestTraceReal)
#include "tst_real.moc"
