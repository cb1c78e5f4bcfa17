// Nsight Systems SQLite reader against fixtures built here with SQLite, in two schema eras.
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

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
