// Files that change while being read. A trace is read in chunks, and its progress callback (ReadControl) runs
// between them, so a test can truncate, grow, rewrite or replace the very file the reader has open - the same thing
// a profiler still writing its output, or a user re-exporting it, does. Each case must end in an InputError naming
// the file, or (a file replaced by rename, which leaves the open copy whole) in the same result as an undisturbed
// read. Scenario files are read in one go; a writer thread rewrites one in place while it is read again and again,
// and every read must give one of the two complete versions or an InputError naming the file.
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <thread>

#include "core/errors.h"
#include "core/scenario/scenario_file.h"
#include "core/trace/trace_loader.h"
#include "shipped_presets.h"
#include "trace_test_support.h"

using namespace mfu;
namespace fs = std::filesystem;

namespace {

void writeFile(const fs::path& path, const std::string& bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A Kineto trace of several megabytes that compresses poorly (random kernel names), so that even its gzip form spans
// more than one read chunk (1 MiB) and the progress callback runs while most of the file is still unread.
std::string bigTrace()
{
    std::mt19937_64 random(42);
    std::vector<std::string> events;
    for (int i = 0; i < 60000; ++i) {
        char name[64];
        std::snprintf(name, sizeof name, "k_%016llx%016llx%016llx", static_cast<unsigned long long>(random()),
            static_cast<unsigned long long>(random()), static_cast<unsigned long long>(random()));
        events.push_back(trace_test::kernel(name, std::to_string(10 * i), "5"));
    }
    return trace_test::traceOf(events);
}

enum class Change { Truncate, Append, RewriteSameSize, ReplaceByRename };

void applyChange(Change change, const fs::path& path, const std::string& original)
{
    switch (change) {
    case Change::Truncate:
        fs::resize_file(path, original.size() / 3);
        break;
    case Change::Append: {
        std::ofstream out(path, std::ios::binary | std::ios::app);
        out << std::string(4096, ' ');
        break;
    }
    case Change::RewriteSameSize: { // in place, as `cp new old` does: same size, other bytes
        std::string other = original;
        std::reverse(other.begin() + static_cast<std::ptrdiff_t>(other.size() / 2), other.end());
        writeFile(path, other);
        break;
    }
    case Change::ReplaceByRename: { // atomically, as QSaveFile and most exporters do: the open file stays whole
        const fs::path fresh = path.string() + ".new";
        writeFile(fresh, "not a trace at all");
        fs::rename(fresh, path);
        break;
    }
    }
}

} // namespace

Q_DECLARE_METATYPE(Change)

class TestChangingFiles : public QObject {
    Q_OBJECT

private slots:
    void traceChangedMidRead_data()
    {
        QTest::addColumn<bool>("gzip");
        QTest::addColumn<Change>("change");
        QTest::addColumn<bool>("expectError");
        for (bool gz : { false, true }) {
            const char* kind = gz ? "gzip" : "plain";
            QTest::addRow("%s truncated", kind) << gz << Change::Truncate << true;
            QTest::addRow("%s grows", kind) << gz << Change::Append << true;
            QTest::addRow("%s rewritten in place", kind) << gz << Change::RewriteSameSize << true;
            QTest::addRow("%s replaced by rename", kind) << gz << Change::ReplaceByRename << false;
        }
    }

    void traceChangedMidRead()
    {
        QFETCH(bool, gzip);
        QFETCH(Change, change);
        QFETCH(bool, expectError);
        static const std::string plain = bigTrace();
        static const std::string packed = trace_test::gzip(plain);
        const std::string& bytes = gzip ? packed : plain;
        QVERIFY2(bytes.size() > (1u << 20) + (1u << 18), "fixture must span more than one read chunk");

        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const fs::path path = dir.filePath(gzip ? "live.json.gz" : "live.json").toStdString();
        writeFile(path, bytes);
        // Written "earlier": an in-place rewrite must show in the modification time even on a coarse clock.
        fs::last_write_time(path, fs::file_time_type::clock::now() - std::chrono::hours(1));
        const trace::Timeline undisturbed = trace::loadTrace(path);
        QCOMPARE(undisturbed.activities.size(), size_t(60000));

        bool changed = false;
        trace::ReadControl control;
        control.onProgress = [&](uint64_t done, uint64_t total) {
            if (!changed && done < total) {
                changed = true;
                applyChange(change, path, bytes);
            }
        };
        QString outcome;
        size_t activities = 0;
        try {
            activities = trace::loadTrace(path, control).activities.size();
            outcome = QStringLiteral("<no error>");
        } catch (const InputError& e) {
            outcome = QString::fromUtf8(e.what());
        }
        QVERIFY2(changed, "the progress callback never ran mid-read, so nothing was changed");
        if (expectError) {
            QVERIFY2(outcome.startsWith(QString::fromStdString(path.string())), qPrintable(outcome));
            QVERIFY2(outcome.contains(QLatin1String("changed while being read")), qPrintable(outcome));
        } else {
            QCOMPARE(outcome, QStringLiteral("<no error>"));
            QCOMPARE(activities, undisturbed.activities.size());
        }
    }

    void unchangedFileReadsAfterProgress()
    {
        // The check must not fire on a file that is merely read to its end (the last progress call is at EOF).
        QTemporaryDir dir;
        const fs::path path = dir.filePath("still.json").toStdString();
        writeFile(path, bigTrace());
        int calls = 0;
        trace::ReadControl control;
        control.onProgress = [&](uint64_t, uint64_t) { ++calls; };
        QCOMPARE(trace::loadTrace(path, control).activities.size(), size_t(60000));
        QVERIFY(calls > 1);
    }

    void scenarioRewrittenWhileRead()
    {
        // Two complete versions that differ in GPU count and length; a writer rewrites the file in place (truncate,
        // then write: a reader can see it empty, half written, or whole) as fast as it can.
        ScenarioDocument small;
        small.scenario.model = *test::shippedPresets().findModel("llama-3.1-8b");
        small.scenario.cluster.hardware = *test::shippedPresets().findHardware("h100-sxm");
        small.scenario.cluster.gpuCount = 8;
        ScenarioDocument large = small;
        large.scenario.cluster.gpuCount = 1024;
        for (int i = 0; i < 200; ++i)
            large.scenario.measuredPoints.push_back(
                { "point " + std::to_string(i), 4096, 8 * (i + 1), TrainingPrecision::BF16, 0.3 + 0.001 * i });
        const std::string texts[2] = { scenarioFileText(small), scenarioFileText(large) };

        QTemporaryDir dir;
        const fs::path path = dir.filePath("scenario.mfu.json").toStdString();
        writeFile(path, texts[0]);
        std::atomic<bool> stop = false;
        std::thread writer([&] {
            for (unsigned i = 0; !stop.load(); ++i)
                writeFile(path, texts[i % 2]);
        });
        int whole = 0, refused = 0;
        QStringList wrong;
        for (int i = 0; i < 400; ++i) {
            try {
                const int gpus = readScenarioFile(path).scenario.cluster.gpuCount;
                if (gpus != 8 && gpus != 1024)
                    wrong << QStringLiteral("read a GPU count of %1").arg(gpus);
                ++whole;
            } catch (const InputError& e) {
                const QString message = QString::fromUtf8(e.what());
                if (!message.startsWith(QString::fromStdString(path.string())))
                    wrong << message;
                ++refused;
            }
        }
        stop = true;
        writer.join();
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong.join(QLatin1Char('\n'))));
        QCOMPARE(whole + refused, 400);
        qInfo("%d whole reads, %d refused with an error naming the file", whole, refused);
    }
};

QTEST_GUILESS_MAIN(TestChangingFiles)
#include "tst_changing_files.moc"
