// Nsight Systems SQLite reader against fixtures built here with SQLite, in two schema eras.
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <random>

#include <sqlite3.h>

#include "core/errors.h"
#include "core/trace/analysis.h"
#include "core/trace/nsys_reader.h"
#include "core/trace/trace_loader.h"

using namespace mfu::trace;

namespace {

void exec(sqlite3* db, const std::string& sql)
{
    char* error = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
        const std::string message = error ? error : "?";
        sqlite3_free(error);
        QFAIL(qPrintable(QString::fromStdString("fixture SQL failed: " + message)));
    }
}

// Current exports: TARGET_INFO_GPU, demangledName, NVTX text inline. Times in ns.
// ProfilerStep#1 [0,1000), #2 [1000,2000) as NVTX push/pop ranges; kernels launched at 10 and 1010.
std::string modernExport(const QTemporaryDir& dir)
{
    const std::string path = dir.filePath("modern.sqlite").toStdString();
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    exec(db,
        "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
        "INSERT INTO StringIds VALUES (1, 'sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n'), (2, 'sm90_gemm_short'),"
        " (3, 'ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)'), (4, 'nccl_short');"
        "CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);"
        "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.11.0');"
        "CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);"
        "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1751410836000000000, '', '');"
        "CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT, chipName TEXT, smCount INTEGER);"
        "INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA H100 80GB HBM3', 'GH100', 132),"
        " (1, 'NVIDIA A100-SXM4-80GB', 'GA100', 108);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,"
        " correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (100, 300, 0, 7, 11, 0, 1, 2), (200, 400, 0, 20, 12, 0, 3, 4),"
        " (1100, 1300, 0, 7, 13, 0, 1, 2);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,"
        " correlationId INTEGER, bytes INTEGER, copyKind INTEGER);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (500, 550, 0, 7, 14, 4096, 1);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,"
        " correlationId INTEGER);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (600, 610, 0, 7, 15);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, globalTid INTEGER,"
        " correlationId INTEGER, nameId INTEGER);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (10, 15, 1, 11, 0), (20, 25, 1, 12, 0), (1010, 1015, 1, 13, 0);"
        "CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, text TEXT, textId INTEGER,"
        " globalTid INTEGER, domainId INTEGER);"
        "INSERT INTO NVTX_EVENTS VALUES (0, 1000, 59, 'ProfilerStep#1', NULL, 1, 0),"
        " (1000, 2000, 59, 'ProfilerStep#2', NULL, 1, 0), (5, NULL, 34, 'a mark', NULL, 1, 0);");
    sqlite3_close(db);
    return path;
}

// Early-2021 exports: TARGET_INFO_CUDA_GPU, no demangledName, NVTX text through textId; no MEMSET/RUNTIME tables.
std::string early2021Export(const QTemporaryDir& dir)
{
    const std::string path = dir.filePath("early.sqlite").toStdString();
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    exec(db,
        "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
        "INSERT INTO StringIds VALUES (5, 'volta_sgemm_128x64_nt'), (6, 'ProfilerStep#9');"
        "CREATE TABLE TARGET_INFO_CUDA_GPU (id INTEGER, name TEXT);"
        "INSERT INTO TARGET_INFO_CUDA_GPU VALUES (0, 'Tesla V100-SXM2-32GB');"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,"
        " correlationId INTEGER, shortName INTEGER);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10, 20, 0, 7, 1, 5), (40, 30, 0, 7, 2, 5);"
        "CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, text TEXT, textId INTEGER);"
        "INSERT INTO NVTX_EVENTS VALUES (0, 100, 60, NULL, 6);");
    sqlite3_close(db);
    return path;
}

KernelRules builtInRules()
{
    return KernelRules::fromFile(MFU_SOURCE_DIR "/presets/kernels/kernel_rules.json");
}

// Three 10 us ProfilerStep#N NVTX ranges, each holding a "forward" range that starts with it, and per step 12 kernels
// (GEMMs and all-reduces on two streams, launched from two threads), a memcpy and a memset. Rows go into the tables
// in time order, or in an order Nsight Systems 2025.6 and later may write them: reversed, or shuffled.
enum class RowOrder { Time, Reversed, Shuffled };

template <typename Rows> void reorder(Rows& rows, RowOrder order, unsigned seed)
{
    if (order == RowOrder::Reversed)
        std::reverse(rows.begin(), rows.end());
    else if (order == RowOrder::Shuffled)
        std::shuffle(rows.begin(), rows.end(), std::mt19937(seed));
}

std::string insertAll(const std::string& table, const std::vector<std::string>& rows)
{
    std::string sql;
    for (const auto& r : rows)
        sql += "INSERT INTO " + table + " VALUES " + r + ";";
    return sql;
}

std::string exportWithRowOrder(const QTemporaryDir& dir, RowOrder order)
{
    std::vector<std::string> kernels, runtime, copies, sets, nvtx;
    int64_t correlation = 1;
    for (int64_t step = 0; step < 3; ++step) {
        const int64_t t0 = step * 10'000;
        nvtx.push_back("(" + std::to_string(t0) + ", " + std::to_string(t0 + 10'000) + ", 59, 'ProfilerStep#"
            + std::to_string(step + 1) + "', NULL, 100, 0)");
        nvtx.push_back("(" + std::to_string(t0) + ", " + std::to_string(t0 + 4'000) + ", 59, 'forward', NULL, 100, 0)");
        for (int64_t k = 0; k < 12; ++k, ++correlation) {
            const int64_t launch = t0 + 50 + k * 100;
            const int64_t start = t0 + 400 + k * 700;
            const bool comm = k % 4 == 3;
            kernels.push_back("(" + std::to_string(start) + ", " + std::to_string(start + (comm ? 900 : 600)) + ", 0, "
                + (comm ? "20" : "7") + ", " + std::to_string(correlation) + ", 0, " + (comm ? "2" : "1") + ")");
            runtime.push_back("(" + std::to_string(launch) + ", " + std::to_string(launch + 20) + ", "
                + (k % 2 ? "200" : "100") + ", " + std::to_string(correlation) + ", 3)");
        }
        copies.push_back("(" + std::to_string(t0 + 9'000) + ", " + std::to_string(t0 + 9'200) + ", 0, 7, "
            + std::to_string(correlation++) + ", 4096, 1)");
        sets.push_back("(" + std::to_string(t0 + 9'300) + ", " + std::to_string(t0 + 9'350) + ", 0, 7, "
            + std::to_string(correlation++) + ")");
    }
    reorder(kernels, order, 1);
    reorder(runtime, order, 2);
    reorder(copies, order, 3);
    reorder(sets, order, 4);
    reorder(nvtx, order, 5);
    const std::string path = dir.filePath(QStringLiteral("order%1.sqlite").arg(static_cast<int>(order))).toStdString();
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    exec(db,
        "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
        "INSERT INTO StringIds VALUES (1, 'sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n'),"
        " (2, 'ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)'),"
        " (3, 'cudaLaunchKernel');"
        "CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT);"
        "INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA H200');"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,"
        " correlationId INTEGER, globalPid INTEGER, demangledName INTEGER);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,"
        " correlationId INTEGER, bytes INTEGER, copyKind INTEGER);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,"
        " correlationId INTEGER);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, globalTid INTEGER,"
        " correlationId INTEGER, nameId INTEGER);"
        "CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, text TEXT, textId INTEGER,"
        " globalTid INTEGER, domainId INTEGER);"
            + insertAll("CUPTI_ACTIVITY_KIND_KERNEL", kernels) + insertAll("CUPTI_ACTIVITY_KIND_RUNTIME", runtime)
            + insertAll("CUPTI_ACTIVITY_KIND_MEMCPY", copies) + insertAll("CUPTI_ACTIVITY_KIND_MEMSET", sets)
            + insertAll("NVTX_EVENTS", nvtx));
    sqlite3_close(db);
    return path;
}

// A timeline as text, names and threads resolved, so that two reads compare whatever ids they assigned.
std::vector<std::string> described(const Timeline& t)
{
    std::vector<std::string> lines;
    for (const auto& a : t.activities)
        lines.push_back("activity " + std::to_string(a.startNs) + " " + std::to_string(a.endNs) + " "
            + std::to_string(a.device) + " " + std::to_string(a.stream) + " " + std::to_string(a.correlation) + " "
            + std::to_string(static_cast<int>(a.kind)) + " " + t.names.name(a.name));
    for (const auto& a : t.annotations)
        lines.push_back(
            "annotation " + std::to_string(a.startNs) + " " + std::to_string(a.endNs) + " " + t.names.name(a.name));
    for (const auto& l : t.launches)
        lines.push_back("launch " + std::to_string(l.correlation) + " " + std::to_string(l.startNs) + " "
            + std::to_string(l.endNs) + " thread " + std::to_string(l.thread) + " tid "
            + std::to_string(t.threads[static_cast<size_t>(l.thread)]) + " " + t.names.name(l.name));
    return lines;
}

} // namespace

class TestTraceNsys : public QObject {
    Q_OBJECT

private slots:
    void modernSchema()
    {
        QTemporaryDir dir;
        const std::string path = modernExport(dir);
        QVERIFY(isSqliteFile(path));
        Timeline t = loadTrace(path); // detected by its header, not its name
        QCOMPARE(t.format, std::string("nsys-sqlite (schema 3.11.0)"));
        QCOMPARE(t.gpuName.value_or(""), std::string("NVIDIA H100 80GB HBM3")); // device 0 ran the kernels
        QCOMPARE(t.timeOriginNs, int64_t(1751410836000000000));
        QCOMPARE(t.activities.size(), size_t(5));
        QCOMPARE(t.names.name(t.activities[0].name), std::string("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n"));
        QCOMPARE(t.activities[0].startNs, int64_t(100));
        QCOMPARE(t.activities[0].endNs, int64_t(300));
        QCOMPARE(t.activities[1].stream, 20);
        QCOMPARE(t.names.name(t.activities[2].name), std::string("Memcpy HtoD")); // sorted by start
        QCOMPARE(t.activities[3].kind, ActivityKind::Memset);
        QCOMPARE(t.launches.size(), size_t(3));
        QCOMPARE(t.annotations.size(), size_t(2)); // the mark (no end, eventType 34) is not a range

        // Steps from NVTX ProfilerStep ranges, kernels by their launches; step 2 is the last and is dropped.
        const RankAnalysis r = analyzeRank(t, builtInRules());
        QCOMPARE(r.stepSource, StepSource::CpuAnnotation);
        QCOMPARE(r.steps.size(), size_t(1));
        QCOMPARE(r.steps[0].step.number, int64_t(1));
        QCOMPARE(r.total.kernelCount, int64_t(2));
        QCOMPARE(r.total.commNs, int64_t(200)); // all-reduce [200,400)
        QCOMPARE(r.total.overlapNs, int64_t(100)); // under the GEMM [100,300)
    }

    void early2021Schema()
    {
        QTemporaryDir dir;
        Timeline t = readNsysSqlite(early2021Export(dir));
        QCOMPARE(t.format, std::string("nsys-sqlite"));
        QCOMPARE(t.gpuName.value_or(""), std::string("Tesla V100-SXM2-32GB"));
        QCOMPARE(t.activities.size(), size_t(1)); // the kernel ending before it starts is dropped, with a warning
        QCOMPARE(t.warnings.size(), size_t(1));
        QCOMPARE(t.names.name(t.activities[0].name), std::string("volta_sgemm_128x64_nt"));
        QCOMPARE(t.annotations.size(), size_t(1));
        QCOMPARE(t.names.name(t.annotations[0].name), std::string("ProfilerStep#9"));
    }

    // Nsight Systems 2025.6 and later no longer export rows in time order: the reader sorts them, and the same rows
    // in any order give the same timeline and the same figures.
    void rowsOutOfTimeOrder_data()
    {
        QTest::addColumn<int>("order");
        QTest::newRow("reversed") << static_cast<int>(RowOrder::Reversed);
        QTest::newRow("shuffled") << static_cast<int>(RowOrder::Shuffled);
    }

    void rowsOutOfTimeOrder()
    {
        QFETCH(int, order);
        QTemporaryDir dir;
        Timeline inOrder = readNsysSqlite(exportWithRowOrder(dir, RowOrder::Time));
        Timeline outOfOrder = readNsysSqlite(exportWithRowOrder(dir, static_cast<RowOrder>(order)));
        QCOMPARE(outOfOrder.activities.size(), size_t(42));
        QCOMPARE(outOfOrder.launches.size(), size_t(36));
        QCOMPARE(outOfOrder.annotations.size(), size_t(6));
        const auto byStart = [](const auto& a, const auto& b) { return a.startNs < b.startNs; };
        QVERIFY(std::is_sorted(outOfOrder.activities.begin(), outOfOrder.activities.end(), byStart));
        QVERIFY(std::is_sorted(outOfOrder.annotations.begin(), outOfOrder.annotations.end(), byStart));
        QVERIFY(std::is_sorted(outOfOrder.launches.begin(), outOfOrder.launches.end(),
            [](const Launch& a, const Launch& b) { return a.correlation < b.correlation; }));
        // The step encloses the range that starts with it.
        QCOMPARE(outOfOrder.names.name(outOfOrder.annotations[0].name), std::string("ProfilerStep#1"));
        QCOMPARE(outOfOrder.names.name(outOfOrder.annotations[1].name), std::string("forward"));
        QCOMPARE(outOfOrder.threads, (std::vector<int64_t> { 100, 200 }));
        QCOMPARE(described(outOfOrder), described(inOrder));

        const RankAnalysis a = analyzeRank(inOrder, builtInRules());
        const RankAnalysis b = analyzeRank(outOfOrder, builtInRules());
        QCOMPARE(b.stepSource, StepSource::CpuAnnotation);
        QCOMPARE(b.steps.size(), a.steps.size());
        QVERIFY(!b.steps.empty());
        QCOMPARE(b.total.kernelCount, a.total.kernelCount);
        QCOMPARE(b.total.busyNs, a.total.busyNs);
        QCOMPARE(b.total.commNs, a.total.commNs);
        QCOMPARE(b.total.overlapNs, a.total.overlapNs);
        QCOMPARE(b.total.spanNs, a.total.spanNs);
        QCOMPARE(b.meanStepSeconds, a.meanStepSeconds);
        QVERIFY(b.total.commNs > 0);
    }

    void notAnExport()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("other.sqlite").toStdString();
        sqlite3* db = nullptr;
        sqlite3_open(path.c_str(), &db);
        exec(db, "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);");
        sqlite3_close(db);
        try {
            loadTrace(path);
            QFAIL("expected an InputError");
        } catch (const mfu::InputError& e) {
            QVERIFY(QString::fromUtf8(e.what()).contains("not an `nsys export --type sqlite` file"));
            QVERIFY(QString::fromUtf8(e.what()).startsWith(QString::fromStdString(path)));
        }
    }

    // Nanosecond times near int64's end: a kernel whose start is past the clock's range is dropped with the
    // reversed ones, never kept to give a span that wraps negative.
    void timesPastTheClockAreDropped()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("late.sqlite").toStdString();
        sqlite3* db = nullptr;
        sqlite3_open(path.c_str(), &db);
        exec(db,
            "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT); INSERT INTO StringIds VALUES (1, 'k');"
            "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER,"
            " streamId INTEGER, correlationId INTEGER, demangledName INTEGER);"
            "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (-9223372036854775807, 100, 0, 7, 1, 1);"
            "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (9223372036854775000, 9223372036854775807, 0, 7, 2, 1);"
            "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 2000, 0, 7, 3, 1);");
        sqlite3_close(db);
        const Timeline t = readNsysSqlite(path);
        QCOMPARE(t.activities.size(), size_t(1));
        QCOMPARE(t.activities[0].startNs, int64_t(1000));
        QCOMPARE(t.warnings.size(), size_t(1));
        QVERIFY2(QString::fromStdString(t.warnings[0]).contains("dropped 2 event(s)"), t.warnings[0].c_str());
    }

    void cancelStopsTheRead()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("big.sqlite").toStdString();
        sqlite3* db = nullptr;
        sqlite3_open(path.c_str(), &db);
        exec(db,
            "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT); INSERT INTO StringIds VALUES (1, 'k');"
            "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER,"
            " streamId INTEGER, correlationId INTEGER, demangledName INTEGER);"
            "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 70000)"
            " INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT i * 10, i * 10 + 5, 0, 7, i, 1 FROM n;");
        sqlite3_close(db);
        QCOMPARE(readNsysSqlite(path).activities.size(), size_t(70001));
        std::atomic<bool> cancel { true };
        ReadControl control;
        control.cancel = &cancel;
        QVERIFY_THROWS_EXCEPTION(Cancelled, readNsysSqlite(path, control));
    }

    void fileChangedBetweenTables_data()
    {
        QTest::addColumn<bool>("truncate"); // else: overwritten in place with other bytes of the same size
        QTest::newRow("truncated") << true;
        QTest::newRow("overwritten") << false;
    }

    void fileChangedBetweenTables()
    {
        // Progress runs after each table, while the database is open: change the file there, as a re-export does.
        QFETCH(bool, truncate);
        QTemporaryDir dir;
        const std::string path = modernExport(dir);
        const auto size = std::filesystem::file_size(path);
        int calls = 0;
        ReadControl control;
        control.onProgress = [&](uint64_t, uint64_t) {
            if (++calls != 1)
                return;
            if (truncate) {
                std::filesystem::resize_file(path, 0);
            } else {
                std::ofstream out(path, std::ios::binary | std::ios::trunc);
                out << std::string(size, 'x');
            }
        };
        try {
            loadTrace(path, control);
            QFAIL("expected an InputError");
        } catch (const mfu::InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).startsWith(QString::fromStdString(path)), e.what());
        }
        QVERIFY(calls >= 1);
    }
};

QTEST_GUILESS_MAIN(TestTraceNsys)
#include "tst_nsys.moc"
