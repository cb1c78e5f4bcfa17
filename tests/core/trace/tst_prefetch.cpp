// gzip inflated on a second thread (core/trace/prefetch_source.h): the reader must see exactly what the one-thread
// source gives, errors at the same place, progress on its own thread, and cancel must still stop the read.
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <fstream>
#include <thread>

#include "core/errors.h"
#include "core/trace/prefetch_source.h"
#include "core/trace/trace_loader.h"

#include "trace_test_support.h"

using namespace mfu::trace;
using namespace trace_test;

namespace {

// About 6 MB of JSON: several 1 MiB chunks, so both slots are filled and reused many times.
std::string bigTrace()
{
    std::vector<std::string> events;
    for (int i = 0; i < 50000; ++i)
        events.push_back(
            kernel("kernel_number_" + std::to_string(i % 97), std::to_string(i * 10) + ".125", "5.5", 7 + i % 3, i));
    return traceOf(events);
}

std::string readAll(ByteSource& source, size_t chunk)
{
    std::string out;
    std::vector<char> buffer(chunk);
    while (const size_t n = source.read(buffer.data(), buffer.size()))
        out.append(buffer.data(), n);
    return out;
}

void write(const std::string& path, const std::string& bytes)
{
    std::ofstream(path, std::ios::binary) << bytes;
}

} // namespace

class TestTracePrefetch : public QObject {
    Q_OBJECT

private slots:
    // Same bytes as the one-thread source, whatever the reader's chunk size (smaller, equal to, larger than a slot).
    void sameBytesAsOneThread_data()
    {
        QTest::addColumn<int>("chunk");
        QTest::newRow("4 KiB") << 4096;
        QTest::newRow("1 MiB") << (1 << 20);
        QTest::newRow("3 MiB") << (3 << 20);
    }
    void sameBytesAsOneThread()
    {
        QFETCH(int, chunk);
        QTemporaryDir dir;
        const std::string plain = bigTrace();
        const std::string path = dir.filePath("t.json.gz").toStdString();
        write(path, gzip(plain) + gzip("\n")); // two gzip members, as `cat a.gz b.gz` makes
        auto threaded = openTraceFilePrefetched(path);
        QVERIFY(threaded->compressed());
        QCOMPARE(threaded->name(), path);
        const std::string got = readAll(*threaded, static_cast<size_t>(chunk));
        QCOMPARE(got.size(), plain.size() + 1);
        QVERIFY(got == plain + "\n");
        QCOMPARE(threaded->read(nullptr, 0), size_t(0)); // stays at the end
    }

    // Through the loader (which uses it): the same timeline as from the plain file.
    void loaderGivesTheSameTimeline()
    {
        QTemporaryDir dir;
        const std::string plain = bigTrace();
        const std::string plainPath = dir.filePath("t.json").toStdString();
        const std::string gzPath = dir.filePath("t.json.gz").toStdString();
        write(plainPath, plain);
        write(gzPath, gzip(plain));
        const Timeline a = loadTrace(plainPath);
        const Timeline b = loadTrace(gzPath);
        QCOMPARE(b.activities.size(), size_t(50000));
        QCOMPARE(a.activities.size(), b.activities.size());
        for (size_t i = 0; i < a.activities.size(); ++i) {
            QCOMPARE(b.activities[i].startNs, a.activities[i].startNs);
            QCOMPARE(b.activities[i].correlation, a.activities[i].correlation);
            QCOMPARE(b.names.name(b.activities[i].name), a.names.name(a.activities[i].name));
        }
    }

    // A corrupt or truncated stream fails with the one-thread source's message, after the data before it.
    void errorsReachTheReader()
    {
        QTemporaryDir dir;
        const std::string plain = bigTrace();
        const std::string packed = gzip(plain);
        const std::string path = dir.filePath("cut.json.gz").toStdString();
        write(path, packed.substr(0, packed.size() / 2));
        auto threaded = openTraceFilePrefetched(path);
        std::string got;
        std::vector<char> buffer(1 << 16);
        try {
            while (const size_t n = threaded->read(buffer.data(), buffer.size()))
                got.append(buffer.data(), n);
            QFAIL("expected an InputError");
        } catch (const mfu::InputError& e) {
            QVERIFY2(std::string(e.what()).find("truncated gzip stream") != std::string::npos, e.what());
        }
        QVERIFY(got.size() > plain.size() / 4); // the data before the cut arrived first
        QVERIFY(plain.compare(0, got.size(), got) == 0);
        try { // and the loader names the file
            loadTrace(path);
            QFAIL("expected an InputError");
        } catch (const mfu::InputError& e) {
            QVERIFY2(std::string(e.what()).find(path) != std::string::npos, e.what());
        }
    }

    // Progress arrives on the reading thread, in order, and ends at the file size; cancel throws Cancelled.
    void progressOnReadingThreadAndCancel()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("t.json.gz").toStdString();
        write(path, gzip(bigTrace()));
        const auto reader = std::this_thread::get_id();
        uint64_t lastDone = 0;
        uint64_t lastTotal = 0;
        int calls = 0;
        bool otherThread = false;
        ReadControl control;
        control.onProgress = [&](uint64_t done, uint64_t total) {
            otherThread = otherThread || std::this_thread::get_id() != reader;
            QVERIFY(done >= lastDone);
            lastDone = done;
            lastTotal = total;
            ++calls;
        };
        QCOMPARE(loadTrace(path, control).activities.size(), size_t(50000));
        QVERIFY(!otherThread);
        QVERIFY(calls > 0);
        QCOMPARE(lastTotal, uint64_t(std::filesystem::file_size(path)));
        QCOMPARE(lastDone, lastTotal);

        std::atomic<bool> cancel { true };
        ReadControl cancelling;
        cancelling.cancel = &cancel;
        QVERIFY_THROWS_EXCEPTION(Cancelled, loadTrace(path, cancelling));
    }

    // Plain files are read directly, with progress as before.
    void plainFilesAreReadDirectly()
    {
        QTemporaryDir dir;
        const std::string plain = bigTrace();
        const std::string path = dir.filePath("t.json").toStdString();
        write(path, plain);
        uint64_t lastDone = 0;
        ReadControl control;
        control.onProgress = [&](uint64_t done, uint64_t) { lastDone = done; };
        auto source = openTraceFilePrefetched(path, control);
        QVERIFY(!source->compressed());
        QVERIFY(readAll(*source, 1 << 20) == plain);
        QCOMPARE(lastDone, uint64_t(plain.size()));
    }

    // Destroying the source early (a reader that stopped at an error) joins the worker without reading on.
    void earlyDestructionStopsTheWorker()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("t.json.gz").toStdString();
        write(path, gzip(bigTrace()));
        for (int i = 0; i < 20; ++i) {
            auto source = openTraceFilePrefetched(path);
            std::vector<char> buffer(100);
            QCOMPARE(source->read(buffer.data(), buffer.size()), size_t(100));
        }
    }
};

QTEST_GUILESS_MAIN(TestTracePrefetch)
#include "tst_prefetch.moc"
