// One job or several, told from real traces (core/trace/run_consistency.h): the PyTorch 2.11 H200 trace written
// three times as three unrelated single-GPU jobs of the same GPU model, or as the three ranks of one job, and HTA's
// two ranks of a 128-rank job (../shared/traces, see its README).
#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include "core/trace/builtin_kernel_rules.h"
#include "core/trace/run_consistency.h"
#include "core/trace/run_reader.h"
#include "trace_test_support.h"

using namespace mfu::trace;

namespace {

constexpr const char* kCompiled = "pytorch211__h200__qwen3-0.6b-shape_compiled_s4096_mb8.json.gz";
constexpr const char* kBaseTime = "\"baseTimeNanoseconds\": 1790857026000000000";
constexpr int64_t kMinuteNs = 60'000'000'000;

std::string tracePath(const char* name)
{
    return std::string(MFU_SHARED_TRACES_DIR) + "/" + name;
}

std::string gunzipFile(const std::string& path)
{
    gzFile in = gzopen(path.c_str(), "rb");
    if (!in)
        return {};
    std::string text;
    char buffer[1 << 16];
    int n = 0;
    while ((n = gzread(in, buffer, sizeof buffer)) > 0)
        text.append(buffer, static_cast<size_t>(n));
    gzclose(in);
    return text;
}

// The trace with its clock origin moved by `shiftNs` and, when `rank` is given, the distributedInfo a rank of a
// three-rank NCCL job writes; the real file has none (one process, no torch.distributed).
std::string rewritten(const std::string& original, int64_t shiftNs, std::optional<int> rank)
{
    std::string text = original;
    const size_t at = text.find(kBaseTime);
    if (at == std::string::npos)
        return {};
    text.replace(
        at, std::strlen(kBaseTime), "\"baseTimeNanoseconds\": " + std::to_string(1790857026000000000LL + shiftNs));
    if (rank) {
        const size_t schema = text.find("\"schemaVersion\": 1,");
        if (schema == std::string::npos)
            return {};
        text.insert(schema,
            "\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": " + std::to_string(*rank)
                + ", \"world_size\": 3},\n    ");
    }
    return text;
}

std::vector<std::filesystem::path> writeThree(
    const QTemporaryDir& dir, const std::string& original, const std::vector<int64_t>& shifts, bool asRanks)
{
    std::vector<std::filesystem::path> paths;
    const char* names[] = { "a.json.gz", "b.json.gz", "c.json.gz" };
    for (int i = 0; i < 3; ++i) {
        const std::string text
            = rewritten(original, shifts[static_cast<size_t>(i)], asRanks ? std::optional(i) : std::nullopt);
        if (text.empty())
            return {};
        const std::string path = dir.filePath(QString::fromLatin1(names[i])).toStdString();
        std::ofstream(path, std::ios::binary) << trace_test::gzip(text);
        paths.emplace_back(path);
    }
    return paths;
}

bool mentions(const RunConsistency& c, const std::string& text)
{
    return c.sentence().find(text) != std::string::npos;
}

} // namespace

class TestRunConsistencyReal : public QObject {
    Q_OBJECT

    std::string m_compiled;

private slots:
    void initTestCase()
    {
        if (!QDir(QStringLiteral(MFU_SHARED_TRACES_DIR)).exists())
            QSKIP("real traces not found at " MFU_SHARED_TRACES_DIR " (shared/traces is absent in this checkout)");
        m_compiled = gunzipFile(tracePath(kCompiled));
        QVERIFY2(m_compiled.find(kBaseTime) != std::string::npos, "the PyTorch 2.11 trace's clock origin moved");
        QVERIFY(m_compiled.find("distributedInfo") == std::string::npos);
    }

    // Three single-GPU jobs on one GPU model, started 3 and 7 minutes apart: within the ten minutes that let them
    // pass as one 3-GPU run before.
    void unrelatedSingleGpuJobs()
    {
        QTemporaryDir dir;
        const auto paths = writeThree(dir, m_compiled, { 0, 3 * kMinuteNs, 7 * kMinuteNs }, false);
        QCOMPARE(paths.size(), size_t(3));
        const RunAnalysis run = readAndAnalyzeRun(paths, builtInKernelRules());
        QCOMPARE(run.ranks.size(), size_t(3));
        for (const auto& r : run.ranks)
            QCOMPARE(r.gpuName.value_or(""), std::string("NVIDIA H200"));
        const RunConsistency c = checkOneRun(run.ranks);
        QVERIFY(!c.oneRun());
        QVERIFY2(mentions(c, "a.json.gz, b.json.gz and c.json.gz record no process group"), c.sentence().c_str());
        QVERIFY2(mentions(c, "started 7 minutes apart (a.json.gz first, c.json.gz last)"), c.sentence().c_str());
        QVERIFY2(!mentions(c, "different GPUs"), c.sentence().c_str());
    }

    // The same files as the ranks 0-2 of one job: together, they are one run; minutes apart, they are not.
    void ranksOfOneJob()
    {
        QTemporaryDir dir;
        const auto together = writeThree(dir, m_compiled, { 0, 2'000'000, 5'000'000 }, true);
        QCOMPARE(together.size(), size_t(3));
        const RunAnalysis run = readAndAnalyzeRun(together, builtInKernelRules());
        const RunConsistency c = checkOneRun(run.ranks);
        QVERIFY2(c.oneRun(), c.sentence().c_str());

        QTemporaryDir later;
        const auto apart = writeThree(later, m_compiled, { 0, 3 * kMinuteNs, 7 * kMinuteNs }, true);
        const RunConsistency d = checkOneRun(readAndAnalyzeRun(apart, builtInKernelRules()).ranks);
        QCOMPARE(d.problems.size(), size_t(1));
        QVERIFY2(mentions(d, "started 7 minutes apart"), d.sentence().c_str());
    }

    // HTA's sampled ranks 0 and 1 of a 128-rank job, no GPU recorded: one job.
    void htaTwoRanks()
    {
        const RunAnalysis run = readAndAnalyzeRun({ tracePath("hta__trace_filter__sampled_rank-0.json.gz"),
                                                      tracePath("hta__trace_filter__sampled_rank-1.json.gz") },
            builtInKernelRules());
        const RunConsistency c = checkOneRun(run.ranks);
        QVERIFY2(c.oneRun(), c.sentence().c_str());
    }
};

QTEST_GUILESS_MAIN(TestRunConsistencyReal)
#include "tst_run_consistency_real.moc"
