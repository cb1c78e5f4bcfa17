// The Kineto reader across format eras, gzip, documented repairs, and malformed input (each a clear error).
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <fstream>

#include "core/errors.h"
#include "core/trace/json_scanner.h"
#include "core/trace/trace_loader.h"
#include "input_error_of.h"
#include "trace_test_support.h"

using namespace mfu::trace;
using namespace trace_test;

class TestTraceReader : public QObject {
    Q_OBJECT

private slots:
    void timestampEras_data()
    {
        QTest::addColumn<QString>("ts");
        QTest::addColumn<QString>("dur");
        QTest::addColumn<qint64>("startNs");
        QTest::addColumn<qint64>("durationNs");
        // Before 2024: integer microseconds since the epoch.
        QTest::newRow("integer us") << "1682725898082228"
                                    << "10" << qint64(1682725898082228000) << qint64(10000);
        // Integer ts with a float dur (HTA's sampled traces).
        QTest::newRow("float dur") << "1682725898236567"
                                   << "68.0" << qint64(1682725898236567000) << qint64(68000);
        // Fractional microseconds with three decimals, relative to baseTimeNanoseconds.
        QTest::newRow("fractional us") << "4458676983543.183"
                                       << "41.407" << qint64(4458676983543183) << qint64(41407);
        // Absolute fractional microseconds: 1.68e18 ns does not survive a double; int64 keeps every digit.
        QTest::newRow("absolute fractional") << "1682725898082228.123"
                                             << "0.001" << qint64(1682725898082228123) << qint64(1);
        QTest::newRow("exponent") << "1.5e3"
                                  << "2E-3" << qint64(1500000) << qint64(2);
        QTest::newRow("rounding below 1 ns") << "10.0004"
                                             << "0.0006" << qint64(10000) << qint64(1);
    }
    void timestampEras()
    {
        QFETCH(QString, ts);
        QFETCH(QString, dur);
        QFETCH(qint64, startNs);
        QFETCH(qint64, durationNs);
        const Timeline t = read(traceOf({ kernel("k", ts.toStdString(), dur.toStdString()) }));
        QCOMPARE(t.activities.size(), size_t(1));
        QCOMPARE(t.activities[0].startNs, startNs);
        QCOMPARE(t.activities[0].durationNs(), durationNs);
    }

    void baseTimeAfterEventsIsKept()
    {
        const Timeline t = read(traceOf({ kernel("k", "4458676983543.183", "1") })
                                    .insert(1, "\"baseTimeNanoseconds\": 1711964646000000000, "));
        QCOMPARE(t.timeOriginNs, int64_t(1711964646000000000));
        // Also when it comes after traceEvents, as Kineto writes it.
        std::string late = traceOf({ kernel("k", "1", "1") });
        late.insert(late.size() - 1, ", \"baseTimeNanoseconds\": 1751410836000000000");
        QCOMPARE(read(late).timeOriginNs, int64_t(1751410836000000000));
    }

    void legacyCategoriesAndStringIds()
    {
        // Old Kineto: Kernel/Memcpy/Memset, and GPU ids only in pid/tid, tid as "stream 9".
        const std::string events = "{\"traceEvents\": ["
                                   "{\"ph\": \"X\", \"cat\": \"Kernel\", \"name\": \"k\", \"pid\": 1, \"tid\": "
                                   "\"stream 9\", \"ts\": 5, \"dur\": 2},"
                                   "{\"ph\": \"X\", \"cat\": \"Memcpy\", \"name\": \"Memcpy HtoD\", \"pid\": \"1\", "
                                   "\"tid\": \"stream 3\", \"ts\": 1, \"dur\": 1},"
                                   "{\"ph\": \"X\", \"cat\": \"Memset\", \"name\": \"Memset\", \"pid\": 1, \"tid\": 3, "
                                   "\"ts\": 9, \"dur\": 1}]}";
        const Timeline t = read(events);
        QCOMPARE(t.activities.size(), size_t(3));
        QCOMPARE(t.activities[0].kind, ActivityKind::Memcpy); // sorted by start
        QCOMPARE(t.activities[0].stream, 3);
        QCOMPARE(t.activities[0].device, 1);
        QCOMPARE(t.activities[1].kind, ActivityKind::Kernel);
        QCOMPARE(t.activities[1].stream, 9);
        QCOMPARE(t.activities[2].kind, ActivityKind::Memset);
    }

    void metadataPresentAndAbsent()
    {
        const std::string props = "\"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA A100\"}, {\"id\": 1, "
                                  "\"name\": \"NVIDIA H100 80GB HBM3\"}], \"distributedInfo\": {\"backend\": "
                                  "\"nccl\", \"rank\": 3, \"world_size\": 8}";
        const Timeline with = read(traceOf({ kernel("k", "1", "1", 7, -1, "kernel", 1) }, props));
        QCOMPARE(with.gpuName.value_or(""), std::string("NVIDIA H100 80GB HBM3")); // the device the kernels ran on
        QCOMPARE(with.rank.value_or(-1), 3);
        QCOMPARE(with.worldSize.value_or(-1), 8);
        const Timeline without = read(traceOf({ kernel("k", "1", "1") }));
        QVERIFY(!without.gpuName);
        QVERIFY(!without.rank);
    }

    void annotationsAndLaunches()
    {
        const Timeline t = read(traceOf({ annotation("ProfilerStep#4", "100", "50", false),
            annotation("ProfilerStep#4", "120", "40", true), launch(77, "101"), kernel("k", "120", "5", 7, 77) }));
        QCOMPARE(t.annotations.size(), size_t(2));
        QCOMPARE(t.names.name(t.annotations[0].name), std::string("ProfilerStep#4"));
        QVERIFY(!t.annotations[0].onGpu);
        QVERIFY(t.annotations[1].onGpu);
        QCOMPARE(t.launches.size(), size_t(1));
        QCOMPARE(t.launches[0].correlation, int64_t(77));
        QCOMPARE(t.launches[0].startNs, int64_t(101000));
        QCOMPARE(t.activities[0].correlation, int64_t(77));
    }

    // NCCL kernels' message arguments: read where they are numbers and a known dtype, ignored (never an error)
    // where they are not: E notation, a fraction, a negative, beyond 64 bits, a string, an unknown dtype.
    void collectiveMessagesAndHostileOnes()
    {
        const auto nccl = [](long long correlation, const std::string& in, const std::string& dtype) {
            std::string e
                = kernel("ncclKernel_AllReduce_RING_LL_Sum_float", std::to_string(correlation), "5", 7, correlation);
            e.insert(e.rfind('}') - 1,
                ", \"In msg nelems\": " + in + ", \"Out msg nelems\": " + in
                    + ", \"Group size\": 8, \"dtype\": " + dtype);
            return e;
        };
        const Timeline t = read(traceOf({ nccl(1, "1048576", "\"BFloat16\""), nccl(2, "1e400", "\"Float\""),
            nccl(3, "2.5", "\"Float\""), nccl(4, "-5", "\"Float\""), nccl(5, "99999999999999999999", "\"Float\""),
            nccl(6, "\"many\"", "\"Float\""), nccl(7, "64", "\"Quaternion\""), nccl(8, "64", "3") }));
        QCOMPARE(t.activities.size(), size_t(8));
        QCOMPARE(t.collectiveMessages.size(), size_t(1));
        const CollectiveMessage* m = collectiveMessageOf(t, t.activities[0]);
        QVERIFY(m && m->bytes == 2097152.0 && m->groupSize == 8);
        QVERIFY(!collectiveMessageOf(t, t.activities[1]));
    }

    // The collective PyTorch names beside the kernel decides its kind (an all-to-all runs as NCCL send/receive
    // kernels); messages that share a correlation id (a CUDA graph's replayed kernels) say nothing; "args" before
    // "cat" still reads.
    void collectiveNamesAndSharedCorrelations()
    {
        const auto sendRecv = [](long long correlation, const std::string& extra) {
            std::string e = kernel("ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)",
                std::to_string(correlation), "5", 7, correlation);
            e.insert(e.rfind('}') - 1,
                ", \"In msg nelems\": 1024, \"Out msg nelems\": 1024, \"Group size\": 4, "
                "\"dtype\": \"BFloat16\""
                    + extra);
            return e;
        };
        const std::string argsFirst = "{\"args\": {\"correlation\": 9, \"In msg nelems\": 8, \"dtype\": \"Float\"}, "
                                      "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclKernel_AllGather\", "
                                      "\"pid\": 0, \"tid\": 7, \"ts\": 9, \"dur\": 1}";
        const Timeline t = read(traceOf({ sendRecv(1, ", \"Collective name\": \"all_to_all\""),
            sendRecv(2, ", \"Collective name\": \"send\""), sendRecv(3, ""), sendRecv(3, ""), argsFirst }));
        QCOMPARE(t.collectiveMessages.size(), size_t(3)); // the two sharing correlation 3 are dropped
        QCOMPARE(collectiveMessageOf(t, t.activities[0])->kind, KernelCategory::CommAllToAll);
        QCOMPARE(collectiveMessageOf(t, t.activities[1])->kind, KernelCategory::CommSendRecv);
        QVERIFY(!collectiveMessageOf(t, t.activities[2]));
        QCOMPARE(collectiveMessageOf(t, t.activities[4])->bytes, 32.0);
    }

    void namesAreInternedAndUnescaped()
    {
        const Timeline t = read(traceOf({ kernel("void f<\\\"x\\\">(\\u00e9)", "1", "1"),
            kernel("void f<\\\"x\\\">(\\u00e9)", "2", "1"), kernel("lone \\ud800", "3", "1") }));
        QCOMPARE(t.names.size(), size_t(2));
        QCOMPARE(t.activities[0].name, t.activities[1].name);
        QCOMPARE(t.names.name(t.activities[0].name), std::string("void f<\"x\">(\xc3\xa9)"));
        QCOMPARE(t.names.name(t.activities[2].name), std::string("lone \xef\xbf\xbd")); // U+FFFD repair
    }

    void bareArrayWithoutClosingBracket()
    {
        // Chrome's JSON Array Format; a writer that died leaves no ']'.
        QCOMPARE(
            read("[" + kernel("a", "1", "1") + ",\n" + kernel("b", "3", "1") + ",\n").activities.size(), size_t(2));
        QCOMPARE(read("[" + kernel("a", "1", "1") + "]").activities.size(), size_t(1));
    }

    void negativeDurationIsDroppedWithAWarning()
    {
        const Timeline t = read(traceOf({ kernel("bad", "10", "-5"), kernel("good", "20", "5") }));
        QCOMPARE(t.activities.size(), size_t(1));
        QCOMPARE(t.warnings.size(), size_t(1));
        QVERIFY(QString::fromStdString(t.warnings[0]).contains("negative duration"));
    }

    // Times near int64's end: ts + dur would wrap into a negative span. The event is dropped with a warning; the
    // others are kept; no time in the timeline lies past core/trace/trace_time.h's range.
    void timesPastTheClockAreDroppedNotWrapped()
    {
        // 3.9e18 ns is within the range; + 0.2e18 ns of duration is past it (and 9.2e18 + 1e18 past int64).
        const Timeline t = read(traceOf({ kernel("late", "3900000000000000", "200000000000000"),
            kernel("twice the clock", "3999999999999999", "3999999999999999"), kernel("good", "20", "5") }));
        QCOMPARE(t.activities.size(), size_t(1));
        QCOMPARE(t.names.name(t.activities[0].name), std::string("good"));
        QCOMPARE(t.warnings.size(), size_t(1));
        QVERIFY2(
            QString::fromStdString(t.warnings[0]).contains("dropped 2 event(s) whose ts + dur"), t.warnings[0].c_str());
    }

    void gzipIsDetectedByMagicBytes()
    {
        const std::string plain = traceOf({ kernel("k", "4458676983543.183", "41.407") });
        const Timeline t = read(gzip(plain), "no-gz-suffix.json");
        QCOMPARE(t.activities.size(), size_t(1));
        QCOMPARE(t.activities[0].startNs, int64_t(4458676983543183));
        // Two concatenated gzip members read as one stream.
        const std::string half = plain.substr(0, plain.size() / 2);
        QCOMPARE(read(gzip(half) + gzip(plain.substr(half.size()))).activities.size(), size_t(1));
    }

    void errors_data()
    {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<QString>("message");
        const std::string ok = traceOf({ kernel("k", "1", "1") });
        QTest::newRow("empty") << QByteArray("") << "empty file";
        QTest::newRow("not json") << QByteArray("hello") << "not a JSON trace";
        QTest::newRow("truncated") << QByteArray::fromStdString(ok.substr(0, ok.size() / 2)) << "unexpected end";
        QTest::newRow("non-UTF-8") << QByteArray::fromStdString(traceOf({ kernel("bad\xff", "1", "1") }))
                                   << "invalid UTF-8";
        QTest::newRow("overlong UTF-8") << QByteArray::fromStdString(traceOf({ kernel("bad\xc0\xaf", "1", "1") }))
                                        << "invalid UTF-8";
        QTest::newRow("control char") << QByteArray::fromStdString(traceOf({ kernel("a\tb", "1", "1") }))
                                      << "control character";
        QTest::newRow("deeply nested") << QByteArray::fromStdString(
            "{\"traceEvents\": [], \"x\": " + std::string(5000, '[') + std::string(5000, ']') + "}")
                                       << "nesting deeper than 256";
        QTest::newRow("huge ts") << QByteArray::fromStdString(traceOf({ kernel("k", "99999999999999999999", "1") }))
                                 << "ts out of range";
        QTest::newRow("huge exponent") << QByteArray::fromStdString(traceOf({ kernel("k", "1", "1e400") }))
                                       << "dur out of range";
        QTest::newRow("ts past the clock") << QByteArray::fromStdString(traceOf({ kernel("k", "9e15", "1") }))
                                           << "ts 9000000000000000000 ns is beyond any trace's clock";
        QTest::newRow("exponent without digits")
            << QByteArray::fromStdString(traceOf({ kernel("k", "1", "1e") })) << "malformed number";
        QTest::newRow("world_size past int") << QByteArray("{\"distributedInfo\": {\"rank\": 0, \"world_size\": "
                                                           "4294967304}, \"traceEvents\": []}")
                                             << "distributedInfo.world_size 4294967304 is beyond any cluster";
        QTest::newRow("baseTime past the clock")
            << QByteArray("{\"baseTimeNanoseconds\": 9000000000000000000, \"traceEvents\": []}")
            << "baseTimeNanoseconds 9000000000000000000 ns is beyond any trace's clock";
        QTest::newRow("malformed number")
            << QByteArray::fromStdString(traceOf({ kernel("k", "01", "1") })) << "malformed number";
        QTest::newRow("ts as string") << QByteArray::fromStdString(traceOf({ kernel("k", "\"abc\"", "1") }))
                                      << "ts must be a number";
        QTest::newRow("pid as array") << QByteArray("{\"traceEvents\": [{\"pid\": [1]}]}")
                                      << "pid must be an integer or a string";
        QTest::newRow("events not array") << QByteArray("{\"traceEvents\": 5}") << "expected an array";
        QTest::newRow("event not object") << QByteArray("{\"traceEvents\": [5]}") << "trace event must be an object";
        QTest::newRow("no traceEvents") << QByteArray("{\"a\": 1}") << "no traceEvents";
        QTest::newRow("trailing garbage") << QByteArray("{\"traceEvents\": []} x") << "unexpected content";
        QTest::newRow("trailing comma") << QByteArray("{\"traceEvents\": [],}") << "trailing comma";
        QTest::newRow("kernel without dur")
            << QByteArray("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1}]}")
            << "has no dur";
        QTest::newRow("truncated gzip") << QByteArray::fromStdString(gzip(ok).substr(0, 30)) << "truncated gzip";
    }
    void errors()
    {
        QFETCH(QByteArray, input);
        QFETCH(QString, message);
        try {
            read(input.toStdString(), "bad.json");
            QFAIL("expected an InputError");
        } catch (const mfu::InputError& e) {
            const QString what = QString::fromUtf8(e.what());
            QVERIFY2(what.startsWith("bad.json"), qPrintable(what));
            QVERIFY2(what.contains(message), qPrintable(what));
        }
    }

    void errorNamesTheBytePosition()
    {
        try {
            read("{\"traceEvents\": [x]}", "pos.json");
            QFAIL("expected an InputError");
        } catch (const mfu::InputError& e) {
            QCOMPARE(QString::fromUtf8(e.what()), QString("pos.json: byte 17: trace event must be an object"));
        }
    }

    // A whole JSON object without traceEvents is not a trace, and not a cut-off one: the message says so without
    // the truncation guess, and names a Hugging Face config.json for what it is.
    void completeJsonWithoutEventsIsNotCalledTruncated()
    {
        const auto messageOf = [](const char* json) {
            try {
                read(json, "config.json");
            } catch (const mfu::InputError& e) {
                return QString::fromUtf8(e.what());
            }
            return QString();
        };
        const QString config = messageOf(R"({"model_type": "llama", "hidden_size": 4096})");
        QCOMPARE(config,
            QStringLiteral("config.json: no traceEvents array: not a Chrome/Kineto trace but a Hugging Face "
                           "config.json (a model: --model, or open it in the window)"));
        const QString other = messageOf(R"({"a": 1})");
        QCOMPARE(other, QStringLiteral("config.json: no traceEvents array: not a Chrome/Kineto trace"));
        // A cut-off object still says where the file ends.
        QVERIFY(messageOf(R"({"a": )").contains(QStringLiteral("probably truncated")));
    }

    void progressAndCancel()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("t.json").toStdString();
        std::vector<std::string> events;
        for (int i = 0; i < 20000; ++i)
            events.push_back(kernel("kernel_number_" + std::to_string(i % 50), std::to_string(i * 10), "5"));
        std::ofstream(path) << traceOf(events);
        uint64_t lastDone = 0;
        uint64_t lastTotal = 0;
        ReadControl control;
        control.onProgress = [&](uint64_t done, uint64_t total) {
            QVERIFY(done >= lastDone);
            lastDone = done;
            lastTotal = total;
        };
        const Timeline t = loadTrace(path, control);
        QCOMPARE(t.activities.size(), size_t(20000));
        QVERIFY(lastTotal > 0);
        QCOMPARE(lastDone, lastTotal);

        std::atomic<bool> cancel { true };
        ReadControl cancelling;
        cancelling.cancel = &cancel;
        QVERIFY_THROWS_EXCEPTION(Cancelled, loadTrace(path, cancelling));
    }

    // A trace of about a megabyte gzipped (PyTorch 2.11's H200 trace: 0.99 MB, tens of MB inflated) reports its
    // progress as it goes: read a megabyte at a time, it went from nothing to all in one report, and the window's
    // bar sat at 0% for the whole import.
    void smallGzipTraceReportsProgressAsItGoes()
    {
        const QString trace
            = QStringLiteral(MFU_SHARED_TRACES_DIR "/pytorch211__h200__qwen3-0.6b-shape_compiled_s4096_mb8.json.gz");
        if (!QFile::exists(trace))
            QSKIP("the PyTorch 2.11 trace is not in shared/traces in this checkout");
        int reports = 0;
        uint64_t lastDone = 0, lastTotal = 0;
        ReadControl control;
        control.onProgress = [&](uint64_t done, uint64_t total) {
            ++reports;
            lastDone = done;
            lastTotal = total;
        };
        (void)loadTrace(trace.toStdString(), control);
        QCOMPARE(lastDone, lastTotal);
        QVERIFY2(reports >= 10, qPrintable(QString::number(reports)));
    }

    void emptyFolderNamesEveryFormatRead()
    {
        // A folder opens as a multi-rank run of *.json, *.json.gz and Nsight *.sqlite files; the error must name all
        // three (it used to name only the JSON ones).
        QTemporaryDir dir;
        std::ofstream(dir.filePath("notes.txt").toStdString()) << "not a trace";
        try {
            (void)expandTracePaths({ dir.path().toStdString() });
            QFAIL("expected an InputError");
        } catch (const mfu::InputError& e) {
            const QString message = QString::fromUtf8(e.what());
            QVERIFY2(message.endsWith(QStringLiteral(": no trace files (*.json, *.json.gz, *.sqlite) in this folder")),
                qPrintable(message));
        }
        QVERIFY_THROWS_EXCEPTION(mfu::InputError, loadRun({ dir.path().toStdString() }));
        // A .sqlite file in the folder is one of its traces.
        std::ofstream(dir.filePath("rank0.sqlite").toStdString()) << "x";
        QCOMPARE(expandTracePaths({ dir.path().toStdString() }).size(), size_t(1));
    }

    // A run's folder often holds the model's config.json, a scenario or notes beside the ranks: they are not traces
    // and are left out (the folder used to fail on the config.json); JSON cut short may be a broken trace and is kept,
    // so the reader says what is wrong with it. A folder of only such files is refused with what each one is.
    void otherJsonInARunsFolderIsLeftOut()
    {
        QTemporaryDir dir;
        const auto write = [&dir](const char* name, const char* text) {
            std::ofstream(dir.filePath(QString::fromLatin1(name)).toStdString()) << text;
        };
        write("config.json", R"({"model_type": "llama", "architectures": ["LlamaForCausalLM"]})");
        write("notes.json", R"({"comment": "second try"})");
        write("run.mfu.json", R"({"format": "mfu-explorer-scenario", "version": 1})");
        try {
            (void)expandTracePaths({ dir.path().toStdString() });
            QFAIL("expected an InputError");
        } catch (const mfu::InputError& e) {
            const QString message = QString::fromUtf8(e.what());
            QVERIFY2(message.contains(QStringLiteral("no trace files"))
                    && message.contains(QStringLiteral("; config.json is a Hugging Face config.json"))
                    && message.contains(QStringLiteral("; notes.json is JSON without trace events"))
                    && message.contains(QStringLiteral("; run.mfu.json is an MFU Explorer scenario file")),
                qPrintable(message));
        }
        write("rank0.json", R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7,
            "ts": 0, "dur": 5, "args": {}}]})");
        write("rank1.json", R"([{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 0, "dur": 5}])");
        write("rank2.json", R"({"schemaVersion": 1, "deviceProperties": [)");
        std::vector<OtherFileInFolder> others;
        const auto files = traceFilesInFolder(dir.path().toStdString(), &others);
        QCOMPARE(files.size(), size_t(3));
        QCOMPARE(QString::fromStdString(files[2].filename().string()), QStringLiteral("rank2.json"));
        QCOMPARE(others.size(), size_t(3));
        QCOMPARE(QString::fromStdString(others[0].path.filename().string()), QStringLiteral("config.json"));
        QCOMPARE(expandTracePaths({ dir.path().toStdString() }).size(), size_t(3));
        // One file twice (by name, through "..", or in its folder and by name) is refused naming both: it read as two
        // ranks of one run.
        const std::string one = files.front().string();
        const std::string viaParent
            = (files.front().parent_path() / ".." / files.front().parent_path().filename() / files.front().filename())
                  .string();
        for (const auto& twice :
            { std::vector<std::filesystem::path> { one, one }, std::vector<std::filesystem::path> { one, viaParent },
                std::vector<std::filesystem::path> { dir.path().toStdString(), one } }) {
            const QString error = mfu::test::errorOf([&] { (void)expandTracePaths(twice); });
            QVERIFY2(error.contains(QStringLiteral(", given twice: give each rank's trace once")), qPrintable(error));
        }
    }

    void missingFileIsAnInputError()
    {
        QVERIFY_THROWS_EXCEPTION(mfu::InputError, loadTrace("/nonexistent/trace.json"));
    }

    void scaledDecimalEdgeCases_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("fits");
        QTest::addColumn<qint64>("ns");
        QTest::newRow("zero") << "0" << true << qint64(0);
        QTest::newRow("negative") << "-2.5" << true << qint64(-2500);
        QTest::newRow("many digits") << "1.2345678901234567890123" << true << qint64(1235);
        QTest::newRow("int64 edge") << "9223372036854775.807" << true << qint64(9223372036854775807LL);
        QTest::newRow("just over") << "9223372036854775.808" << false << qint64(0);
        QTest::newRow("tiny exponent") << "5e-500" << true << qint64(0);
    }
    void scaledDecimalEdgeCases()
    {
        QFETCH(QString, text);
        QFETCH(bool, fits);
        QFETCH(qint64, ns);
        int64_t out = 0;
        QCOMPARE(scaledDecimal(text.toStdString(), 3, out), fits);
        if (fits)
            QCOMPARE(out, ns);
    }
};

QTEST_GUILESS_MAIN(TestTraceReader)
#include "tst_reader.moc"
