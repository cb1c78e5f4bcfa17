// The parallel multi-rank reader (core/trace/run_reader.h) and the per-rank summaries (core/trace/rank_summary.h):
// both must give exactly what the sequential loadRun() + analyzeRun() gives, on generated ranks and on the real
// traces in ../shared/traces (skipped when absent).
#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>

#include "core/errors.h"
#include "core/trace/analysis_json.h"
#include "core/trace/cross_rank.h"
#include "core/trace/rank_summary.h"
#include "core/trace/run_reader.h"
#include "core/trace/trace_loader.h"
#include "trace_test_support.h"

using namespace mfu::trace;
namespace fs = std::filesystem;

namespace {

KernelRules builtInRules()
{
    return KernelRules::fromFile(MFU_SOURCE_DIR "/presets/kernels/kernel_rules.json");
}

// Rank r: three GPU-annotated steps; its GEMM lasts 100 + 10 r us, the all-reduce overlaps it by 50 us.
// withRank: distributedInfo names rank `rank`; else the file carries no rank.
std::string rankTrace(int rank, bool withRank)
{
    std::vector<std::string> events;
    for (int s = 0; s < 3; ++s) {
        const int t0 = s * 400;
        events.push_back(trace_test::kernel(
            "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", std::to_string(t0), std::to_string(100 + 10 * rank), 7));
        events.push_back(
            trace_test::kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(x)", std::to_string(t0 + 50), "100", 20));
        events.push_back(trace_test::kernel("triton_poi_fused_add_0", std::to_string(t0 + 200), "5", 7));
        events.push_back(
            trace_test::annotation("ProfilerStep#" + std::to_string(s + 1), std::to_string(t0), "400", true));
    }
    const std::string info = withRank ? "\"distributedInfo\": {\"rank\": " + std::to_string(rank)
            + ", \"world_size\": 8}, \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\"}]"
                                      : "";
    return trace_test::traceOf(events, info);
}

void writeFile(const fs::path& path, const std::string& bytes)
{
    std::ofstream(path, std::ios::binary) << bytes;
}

// Files in an order that is not the rank order; two carry no rank (they get their position, as in loadRun).
std::vector<fs::path> writeRanks(const QTemporaryDir& dir)
{
    std::vector<fs::path> files;
    const int ranks[] = { 5, 2, -1, 7, 0, -1, 3, 1 };
    for (size_t i = 0; i < std::size(ranks); ++i) {
        const fs::path p = fs::path(dir.path().toStdString()) / ("r" + std::to_string(i) + ".json.gz");
        const std::string text = rankTrace(ranks[i] < 0 ? static_cast<int>(i) : ranks[i], ranks[i] >= 0);
        writeFile(p, i % 2 ? trace_test::gzip(text) : text);
        files.push_back(p);
    }
    return files;
}

// The run's JSON and its cross-rank views (which read the per-rank collectives and step breakdowns).
nlohmann::json fullJson(const RunAnalysis& run)
{
    nlohmann::json j = runToJson(run, GpuPresetContext {});
    j["cross_rank"] = crossRankToJson(run);
    return j;
}

nlohmann::json sequential(const std::vector<fs::path>& files, const KernelRules& rules)
{
    std::vector<Timeline> timelines = loadRun(files);
    return fullJson(analyzeRun(timelines, rules));
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

class TestRunReader : public QObject {
    Q_OBJECT

private slots:
    void parallelEqualsSequential()
    {
        QTemporaryDir dir;
        const auto files = writeRanks(dir);
        const KernelRules rules = builtInRules();
        const nlohmann::json expected = sequential(files, rules);
        QCOMPARE(expected["ranks"].size(), size_t(8));
        QVERIFY(expected.contains("straggler"));
        QCOMPARE(expected["straggler"]["rank"].get<int>(), 7); // the longest GEMM
        // every rank launches its all-reduces at the same times: 3 analysed steps (each complete) x 1 call, nobody
        // waits
        QCOMPARE(expected["cross_rank"]["collective_wait"]["collectives"].size(), size_t(3));
        QCOMPARE(expected["cross_rank"]["collective_wait"]["ranks"][0]["wait_s"].get<double>(), 0.0);
        for (unsigned threads : { 1u, 2u, 3u, 8u, 0u }) {
            RunReadControl control;
            control.threads = threads;
            const nlohmann::json got = fullJson(readAndAnalyzeRun(files, rules, {}, control));
            QCOMPARE(got.dump(), expected.dump());
        }
    }

    void loadRunParallelEqualsLoadRun()
    {
        QTemporaryDir dir;
        const auto files = writeRanks(dir);
        const KernelRules rules = builtInRules();
        RunReadControl control;
        control.threads = 3;
        std::vector<Timeline> timelines = loadRunParallel(files, control);
        QCOMPARE(timelines.size(), files.size());
        QCOMPARE(fullJson(analyzeRun(timelines, rules)).dump(), sequential(files, rules).dump());
    }

    void progressAndDonePerFile()
    {
        QTemporaryDir dir;
        const auto files = writeRanks(dir);
        std::mutex m;
        std::set<size_t> done;
        std::set<size_t> progressed;
        RunReadControl control;
        control.threads = 3;
        control.onFileProgress = [&](size_t file, uint64_t, uint64_t) {
            std::lock_guard lock(m);
            progressed.insert(file);
        };
        control.onFileDone = [&](size_t file) {
            std::lock_guard lock(m);
            QVERIFY(done.insert(file).second);
        };
        (void)readAndAnalyzeRun(files, builtInRules(), {}, control);
        QCOMPARE(done.size(), files.size());
        QCOMPARE(progressed.size(), files.size());
    }

    void cancelThrowsCancelled()
    {
        QTemporaryDir dir;
        const auto files = writeRanks(dir);
        std::atomic<bool> cancel { true };
        RunReadControl control;
        control.cancel = &cancel;
        QVERIFY_THROWS_EXCEPTION(Cancelled, readAndAnalyzeRun(files, builtInRules(), {}, control));
    }

    void firstBadFileIsReported()
    {
        QTemporaryDir dir;
        auto files = writeRanks(dir);
        const fs::path bad = fs::path(dir.path().toStdString()) / "bad.json";
        writeFile(bad, "{\"traceEvents\": [ {\"ph\": \"X\", \"cat\": \"kernel\", \"ts\": \"oops\"");
        files.insert(files.begin() + 3, bad);
        for (unsigned threads : { 1u, 2u, 4u }) {
            RunReadControl control;
            control.threads = threads;
            try {
                (void)readAndAnalyzeRun(files, builtInRules(), {}, control);
                QFAIL("a malformed file must fail the run");
            } catch (const mfu::InputError& e) {
                QVERIFY2(std::string(e.what()).find("bad.json") != std::string::npos, e.what());
            }
        }
    }

    void summariesMergeToTheSameRun()
    {
        QTemporaryDir dir;
        const auto files = writeRanks(dir);
        const KernelRules rules = builtInRules();
        const nlohmann::json expected = sequential(files, rules);
        QTemporaryDir out;
        std::vector<fs::path> summaries;
        for (size_t i = 0; i < files.size(); ++i) {
            // the map step sees one file: analysed alone, exactly as `trace FILE --summary-out` does
            const RunAnalysis one = readAndAnalyzeRun({ files[i] }, rules);
            const fs::path s = fs::path(out.path().toStdString()) / ("r" + std::to_string(i) + ".summary.json");
            writeRankSummary(s, one.ranks.at(0), {});
            summaries.push_back(s);
        }
        QCOMPARE(fullJson(mergeRankSummaries(summaries)).dump(), expected.dump());
        // a folder of summaries is read in name order, the order the files were given above
        QCOMPARE(fullJson(mergeRankSummaries({ fs::path(out.path().toStdString()) })).dump(), expected.dump());

        // The window's folder of ranks: summaries alone, traces alone, and a folder of both is refused.
        QCOMPARE(rankFolderKind(out.path().toStdString()), RankFolderKind::Summaries);
        QCOMPARE(rankFolderKind(dir.path().toStdString()), RankFolderKind::Traces);
        fs::copy_file(summaries[0], fs::path(dir.path().toStdString()) / "r0.summary.json");
        try {
            (void)rankFolderKind(dir.path().toStdString());
            QFAIL("a folder of traces and summaries must be refused");
        } catch (const mfu::InputError& e) {
            QVERIFY2(std::string(e.what()).find("both") != std::string::npos, e.what());
        }
        QTemporaryDir empty;
        QVERIFY_THROWS_EXCEPTION(mfu::InputError, (void)rankFolderKind(empty.path().toStdString()));

        // Progress per summary, in order, and cancel before the next one.
        std::vector<size_t> done;
        RunReadControl control;
        control.onFileDone = [&done](size_t file) { done.push_back(file); };
        (void)mergeRankSummaries(summaries, nullptr, control);
        QCOMPARE(done.size(), summaries.size());
        for (size_t i = 0; i < done.size(); ++i)
            QCOMPARE(done[i], i);
        std::atomic<bool> cancel { true };
        control.cancel = &cancel;
        QVERIFY_THROWS_EXCEPTION(Cancelled, (void)mergeRankSummaries(summaries, nullptr, control));
    }

    void summaryErrorsNameFileAndKey()
    {
        const RankAnalysis r;
        nlohmann::json j = rankSummaryToJson(r, {});
        AnalysisOptions o;
        (void)rankSummaryFromJson(j, "x.summary.json", o); // round trip of an empty rank
        auto expectError = [](const nlohmann::json& bad, const char* needle) {
            AnalysisOptions options;
            try {
                (void)rankSummaryFromJson(bad, "x.summary.json", options);
                QFAIL("expected an error");
            } catch (const mfu::InputError& e) {
                const std::string what = e.what();
                QVERIFY2(what.find("x.summary.json") != std::string::npos && what.find(needle) != std::string::npos,
                    e.what());
            }
        };
        nlohmann::json v = j;
        v["version"] = 99;
        expectError(v, "version");
        nlohmann::json f = j;
        f["format"] = "something-else";
        expectError(f, "format");
        nlohmann::json k = j;
        k["total"].erase("busy_ns");
        expectError(k, "busy_ns");
        nlohmann::json t = j;
        t["mean_step_s"] = "slow";
        expectError(t, "mean_step_s");
        // The FP32 matrices cast a step (autocast's evidence) survive the summary, and an impossible count is refused.
        RankAnalysis casting;
        casting.fp32MatrixCasts = Fp32MatrixCasts { 197, 6, 1024, 1024, 3 };
        const nlohmann::json c = rankSummaryToJson(casting, {});
        const RankAnalysis back = rankSummaryFromJson(c, "x.summary.json", o);
        QVERIFY(back.fp32MatrixCasts && back.fp32MatrixCasts->perStep == 197 && back.fp32MatrixCasts->shapes == 6);
        nlohmann::json negative = c;
        negative["fp32_matrix_casts"]["per_step"] = -1;
        expectError(negative, "fp32_matrix_casts");
        // Before version 5 a summary's attention FLOPs held the Q·Kᵀ its backward kernels recompute: still read, with
        // a warning that its trace MFU reads high; the recomputation itself survives a version 5 round trip.
        RankAnalysis training;
        training.opFlops.recordsShapes = true;
        training.opFlops.backward = true;
        training.opFlops.attentionFlops = 3e12;
        training.opFlops.attentionRecomputedFlops = 0.5e12;
        const nlohmann::json current = rankSummaryToJson(training, {});
        const RankAnalysis read = rankSummaryFromJson(current, "x.summary.json", o);
        QCOMPARE(read.opFlops.attentionRecomputedFlops, 0.5e12);
        QVERIFY(read.warnings.empty());
        nlohmann::json older = current;
        older["version"] = 4;
        older["work"]["op_flops"].erase("attention_recomputed_flops");
        const RankAnalysis old = rankSummaryFromJson(older, "x.summary.json", o);
        QCOMPARE(old.opFlops.attentionRecomputedFlops, 0.0);
        QCOMPARE(old.warnings.size(), size_t { 1 });
        QVERIFY2(old.warnings[0].find("version 4") != std::string::npos
                && old.warnings[0].find("trace MFU reads high") != std::string::npos,
            old.warnings[0].c_str());
        nlohmann::json w = j; // an int's low 32 bits of 2^32 + 8 are 8 ranks: refused, not wrapped
        w["world_size"] = 4294967304LL;
        expectError(w, "world_size: out of range: 4294967304");
        w["world_size"] = 18446744073709551615ULL;
        expectError(w, "world_size: out of range");
    }

    void realTracesParallelAndMerged()
    {
        if (!QDir(QStringLiteral(MFU_SHARED_TRACES_DIR)).exists())
            QSKIP("real traces not found at " MFU_SHARED_TRACES_DIR " (shared/traces is absent in this checkout)");
        const auto files = realTraces();
        const KernelRules rules = builtInRules();
        const nlohmann::json expected = sequential(files, rules);
        RunReadControl control;
        control.threads = 2;
        QCOMPARE(fullJson(readAndAnalyzeRun(files, rules, {}, control)).dump(), expected.dump());
        QTemporaryDir out;
        std::vector<fs::path> summaries;
        for (size_t i = 0; i < files.size(); ++i) {
            const fs::path s = fs::path(out.path().toStdString()) / ("r" + std::to_string(i) + ".summary.json");
            writeRankSummary(s, readAndAnalyzeRun({ files[i] }, rules).ranks.at(0), {});
            summaries.push_back(s);
        }
        QCOMPARE(fullJson(mergeRankSummaries(summaries)).dump(), expected.dump());
    }
};

QTEST_GUILESS_MAIN(TestRunReader)
#include "tst_run_reader.moc"
