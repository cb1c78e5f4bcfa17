// Hostile inputs to the trace readers, each built here: a kernel name of 100,000 characters (std::regex used to
// recurse once per character and overflow the stack), a FIFO given as a trace or a summary (used to block forever),
// one huge JSON string (kept whole), and Nsight exports whose StringIds is a view that recurses without end (never
// finished, deaf to Cancel) or a table without an index (quadratic).
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include "core/errors.h"
#include "core/trace/analysis.h"
#include "core/trace/builtin_kernel_rules.h"
#include "core/trace/byte_source.h"
#include "core/trace/json_scanner.h"
#include "core/trace/kernel_rules.h"
#include "core/trace/nsys_reader.h"
#include "core/trace/rank_summary.h"
#include "core/trace/trace_loader.h"
#include "input_error_of.h"
#include "trace_test_support.h"

using namespace mfu;
using mfu::test::errorOf;
using namespace mfu::trace;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

void writeFile(const std::string& path, const std::string& bytes)
{
    std::ofstream(path, std::ios::binary) << bytes;
}

void exec(sqlite3* db, const std::string& sql)
{
    char* error = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
        const std::string message = error ? error : "?";
        sqlite3_free(error);
        throw std::runtime_error("fixture SQL failed: " + message);
    }
}

// A minimal Nsight export with one kernel (StringIds id 1) and the given StringIds definition.
std::string nsysExport(const QTemporaryDir& dir, const std::string& name, const std::string& stringIdsSql)
{
    const std::string path = dir.filePath(QString::fromStdString(name)).toStdString();
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    exec(db,
        stringIdsSql
            + "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,"
              " correlationId INTEGER, demangledName INTEGER);"
              "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (100, 300, 0, 7, 11, 1);");
    sqlite3_close(db);
    return path;
}

} // namespace

class TestHostileReaders : public QObject {
    Q_OBJECT
private slots:
    void longKernelNameInGzippedTrace()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("long.json.gz")).toStdString();
        const std::string longName = "cutlass_" + std::string(100000, 'a');
        writeFile(path, trace_test::gzip(trace_test::traceOf({ trace_test::kernel(longName, "0", "10") })));
        Timeline t = loadTrace(path);
        classifyActivities(t, builtInKernelRules()); // crashed (stack overflow) before names were bounded
        QCOMPARE(t.activities.size(), size_t(1));
        QCOMPARE(t.names.name(t.activities[0].name).size(), longName.size()); // the name itself is kept whole
        QCOMPARE(t.activities[0].category, KernelCategory::Other);
        // What makes it a GEMM is at its start, as in every real name: still seen.
        QCOMPARE(builtInKernelRules().classify("cutlass_tensorop_" + std::string(100000, 'a')), KernelCategory::Gemm);
    }

    void longKernelNameThroughUserRegex()
    {
        const std::string head = "{\"format\":\"mfu-explorer-kernel-rules\",\"version\":1,\"rules\":[{\"category\":"
                                 "\"gemm\",\"regex\":[\"";
        const KernelRules rules = KernelRules::fromJsonText(head + "^(a|b)*c\"]}]}", "rules.json");
        QCOMPARE(rules.classify(std::string(200000, 'a') + "c"), KernelCategory::Other); // c is beyond what is seen
        QCOMPARE(rules.classify(std::string(100, 'b') + "c"), KernelCategory::Gemm);
        // The end of what is seen is not the end of the name: `$` does not match there.
        const KernelRules anchored = KernelRules::fromJsonText(head + "gemm$\"]}]}", "anchored.json");
        QCOMPARE(anchored.classify(std::string(kClassifiedNameLength - 4, 'x') + "gemm"), KernelCategory::Gemm);
        QCOMPARE(anchored.classify(std::string(kClassifiedNameLength - 4, 'x') + "gemm_more"), KernelCategory::Other);
        const std::string tooLong = head + std::string(100000, 'a') + "\"]}]}";
        const QString error = errorOf([&] { KernelRules::fromJsonText(tooLong, "long.json"); });
        QVERIFY2(error.contains(QStringLiteral("long.json: rules[0].regex[0]: longer than 2000 characters")),
            qPrintable(error));
    }

    // A summary whose figures cannot hold together (made elsewhere, or edited) is refused with the figure named: a
    // merge printed 292 years of busy time inside a 1.2 s step and a negative step window.
    void impossibleSummaryFiguresAreRefused()
    {
        Timeline t = trace_test::read(trace_test::traceOf({ trace_test::annotation("ProfilerStep#1", "0", "100", false),
            trace_test::kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", "10", "50") }));
        AnalysisOptions options;
        const nlohmann::json good = rankSummaryToJson(analyzeRank(t, builtInKernelRules(), options), options);
        AnalysisOptions read;
        QCOMPARE(rankSummaryFromJson(good, "good.json", read).steps.size(), size_t(1));
        const auto refusal = [&](const std::function<void(nlohmann::json&)>& edit) {
            nlohmann::json bad = good;
            edit(bad);
            return errorOf([&] { rankSummaryFromJson(bad, "bad.json", read); });
        };
        QVERIFY(refusal([](nlohmann::json& j) { j["total"]["busy_ns"] = INT64_MAX; }).contains("busy_ns"));
        QVERIFY(refusal([](nlohmann::json& j) { j["mean_step_s"] = -1.2; }).contains("mean_step_s"));
        QVERIFY(refusal([](nlohmann::json& j) { j["mean_step_s"] = 1e308; }).contains("1e+308"));
        QVERIFY(refusal([](nlohmann::json& j) { j["kernels"][0]["share"] = 1e308; }).contains("kernels[]"));
        QVERIFY(refusal([](nlohmann::json& j) {
            j["steps"][0]["window_start_ns"] = -INT64_MAX;
            j["steps"][0]["window_end_ns"] = INT64_MAX;
        }).contains("beyond any trace's clock"));
        QVERIFY(refusal([](nlohmann::json& j) { j["steps"][0]["window_end_ns"] = -5; }).contains("steps[]"));
        // The idle gaps' parts are no more than the gaps: a part beyond them, or negative, is refused.
        QVERIFY(refusal([](nlohmann::json& j) {
            j["total"]["idle_gap_queued_ns"] = INT64_MAX;
        }).contains("idle_gap_queued_ns"));
        QVERIFY(refusal([](nlohmann::json& j) { j["total"]["idle_gap_host_ns"] = -1; }).contains("idle_gap_host_ns"));
        QVERIFY(refusal([](nlohmann::json& j) {
            j["work"]["critical_path"]["host_lead"]["median_launch_lead_ns"] = INT64_MIN;
        }).contains("host_lead"));
    }

    // A rule of many alternatives recursed deeper per character than the name window allows on an 8 MiB stack: a
    // 60-byte rule over a 5,000-character name crashed the CLI and Python (found by a second hostile sweep).
    // Classification runs on a large stack (core/large_stack.h).
    void manyAlternativesOverALongName()
    {
        const std::string head = "{\"format\":\"mfu-explorer-kernel-rules\",\"version\":1,\"rules\":[{\"category\":"
                                 "\"gemm\",\"regex\":[\"";
        const KernelRules rules = KernelRules::fromJsonText(
            head + "^(?:a|b|c|d|e|f|g|h|i|j|k|l|m|n|o|p|q|r|s|t|u|v|w|x|y|z|_|[0-9])*$\"]}]}", "rules.json");
        Timeline t = trace_test::read(trace_test::traceOf({ trace_test::kernel(std::string(5000, 'x'), "0", "10") }));
        classifyActivities(t, rules);
        QCOMPARE(t.activities.front().category, KernelCategory::Other); // `$` is not the name's end: not matched
        Timeline within
            = trace_test::read(trace_test::traceOf({ trace_test::kernel(std::string(4000, 'x'), "0", "10") }));
        classifyActivities(within, rules);
        QCOMPARE(within.activities.front().category, KernelCategory::Gemm);
    }

    void fifoAsTraceOrSummaryIsRefused()
    {
        QTemporaryDir dir;
        const std::string fifo = dir.filePath(QStringLiteral("rank0.json")).toStdString();
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        const auto start = Clock::now();
        for (const QString& error : { errorOf([&] { loadTrace(fifo); }), errorOf([&] { mergeRankSummaries({ fifo }); }),
                 errorOf([&] { KernelRules::fromFile(fifo); }) }) {
            QVERIFY2(error.contains(QString::fromStdString(fifo)), qPrintable(error));
            QVERIFY2(error.contains(QStringLiteral("FIFO")), qPrintable(error));
        }
        QVERIFY(secondsSince(start) < 5); // blocked forever before
        const QString device = errorOf([] { loadTrace("/dev/zero"); });
        QVERIFY2(device.contains(QStringLiteral("/dev/zero: is a character device")), qPrintable(device));
    }

    // A Hugging Face Trainer's log given as a trace: "byte 0: not a JSON trace" said what it is not; it now also
    // says how a log of another format is read.
    void textThatIsNoTraceSaysHowLogsAreRead()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("hf.log")).toStdString();
        writeFile(path, "***** Running training *****\n  Num examples = 10,000\n");
        const QString error = errorOf([&] { loadTrace(path); });
        QVERIFY2(error.contains(QStringLiteral("not a JSON trace")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("--log-pattern")), qPrintable(error));
        writeFile(path, std::string("\x01\x02binary"));
        QVERIFY(!errorOf([&] { loadTrace(path); }).contains(QStringLiteral("--log-pattern")));
    }

    void hugeStringKeptIsRefusedAndSkippedIsNotKept()
    {
        // 20 MiB of 'x' compresses to some 20 KB: a small file that inflates to a string beyond the scanner's cap.
        const std::string huge(JsonScanner::kMaxStringBytes + (4 << 20), 'x');
        const std::string asName = trace_test::gzip(trace_test::traceOf({ trace_test::kernel(huge, "0", "10") }));
        const QString error = errorOf([&] { trace_test::read(asName, "name.json.gz"); });
        QVERIFY2(error.contains(QStringLiteral("name.json.gz: byte")) && error.contains(QStringLiteral("16 MiB")),
            qPrintable(error));
        // The same string in a field no reader keeps is validated and passed over: the trace reads.
        const std::string unused = trace_test::gzip(
            trace_test::traceOf({ trace_test::kernel("sm90_gemm", "0", "10") }, "\"unused\": \"" + huge + "\""));
        QCOMPARE(trace_test::read(unused, "unused.json.gz").activities.size(), size_t(1));
    }

    void nsysLongKernelName()
    {
        QTemporaryDir dir;
        const std::string longName = "sm90_xmma_gemm_" + std::string(100000, 'b');
        const std::string path = nsysExport(dir, "long.sqlite",
            "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
            "INSERT INTO StringIds VALUES (1, '"
                + longName + "');");
        Timeline t = loadTrace(path);
        classifyActivities(t, builtInKernelRules());
        QCOMPARE(t.activities.size(), size_t(1));
        QCOMPARE(t.names.name(t.activities[0].name), longName);
        QCOMPARE(t.activities[0].category, KernelCategory::Gemm);
    }

    void nsysRecursiveViewEndsWithError()
    {
        QTemporaryDir dir;
        // Rows without end, none of them id 1.
        const std::string path = nsysExport(dir, "recursive.sqlite",
            "CREATE VIEW StringIds AS WITH RECURSIVE n(id) AS (SELECT 2 UNION ALL SELECT id + 1 FROM n)"
            " SELECT id, 'x' AS value FROM n;");
        ReadControl control;
        control.stallLimitSeconds = 1;
        auto start = Clock::now();
        const QString error = errorOf([&] { readNsysSqlite(path, control); });
        QVERIFY2(error.contains(QString::fromStdString(path)) && error.contains(QStringLiteral("gave no row in 1 s")),
            qPrintable(error));
        QVERIFY(secondsSince(start) < 10);

        // Cancel is heard inside the query, not only between rows.
        std::atomic<bool> cancel { false };
        control.stallLimitSeconds = 1e9;
        control.cancel = &cancel;
        start = Clock::now();
        std::thread canceller([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            cancel = true;
        });
        bool cancelled = false;
        try {
            readNsysSqlite(path, control);
        } catch (const Cancelled&) {
            cancelled = true;
        }
        canceller.join();
        QVERIFY(cancelled);
        QVERIFY(secondsSince(start) < 10);
    }

    void nsysStringIdsWithoutIndexIsLinear()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("noindex.sqlite")).toStdString();
        sqlite3* db = nullptr;
        sqlite3_open(path.c_str(), &db);
        constexpr int kNames = 40000;
        exec(db,
            "CREATE TABLE StringIds (id INTEGER, value TEXT);" // no PRIMARY KEY: no index on id
            "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER,"
            " streamId INTEGER, correlationId INTEGER, demangledName INTEGER);"
            "BEGIN;");
        for (int i = 1; i <= kNames; ++i)
            exec(db,
                "INSERT INTO StringIds VALUES (" + std::to_string(i) + ", 'kernel_" + std::to_string(i)
                    + "'); INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (" + std::to_string(i * 10) + ", "
                    + std::to_string(i * 10 + 5) + ", 0, 7, " + std::to_string(i) + ", " + std::to_string(i) + ");");
        exec(db, "COMMIT;");
        sqlite3_close(db);
        const auto start = Clock::now();
        const Timeline t = readNsysSqlite(path);
        const double seconds = secondsSince(start);
        QCOMPARE(t.activities.size(), size_t(kNames));
        QCOMPARE(t.names.name(t.activities.back().name), "kernel_" + std::to_string(kNames));
        QVERIFY2(seconds < 10, qPrintable(QString::number(seconds))); // 41 s when each name was a table scan
    }
};

QTEST_GUILESS_MAIN(TestHostileReaders)
#include "tst_hostile_readers.moc"
