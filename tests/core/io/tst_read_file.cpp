// Inputs a user names are opened without blocking and read with a cap: a FIFO (which blocked forever), a device
// (/dev/zero grew until memory ran out), a folder and a file above the cap each end in one line naming the file.
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <new>

#include "core/errors.h"
#include "core/io/read_file.h"
#include "input_error_of.h"

using namespace mfu;
using mfu::test::errorOf;

class TestReadFile : public QObject {
    Q_OBJECT
private slots:
    void regularFileIsReadWhole()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("a.json")).toStdString();
        std::ofstream(path) << "{\"x\": 1}";
        QCOMPARE(readWholeFile(path, "a scenario file"), std::string("{\"x\": 1}"));
        QVERIFY(isRegularFile(path));
        std::ifstream in = openInputStream(path, "a training log");
        std::string line;
        QVERIFY(std::getline(in, line));
    }

    void fifoIsRefusedWithoutBlocking()
    {
        QTemporaryDir dir;
        const std::string fifo = dir.filePath(QStringLiteral("scenario.json")).toStdString();
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        const auto start = std::chrono::steady_clock::now();
        const QString expected = QString::fromStdString(fifo)
            + QStringLiteral(": is a FIFO (named pipe), not a scenario file; only regular files are read");
        QCOMPARE(errorOf([&] { readWholeFile(fifo, "a scenario file"); }), expected);
        QCOMPARE(errorOf([&] { requireRegularFile(fifo, "a scenario file"); }), expected);
        QCOMPARE(errorOf([&] { openInputStream(fifo, "a scenario file"); }), expected);
        QVERIFY(!isRegularFile(fifo));
        QVERIFY(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
    }

    void deviceFolderAndMissingFile()
    {
        QCOMPARE(errorOf([] { readWholeFile("/dev/zero", "a scenario file"); }),
            QStringLiteral("/dev/zero: is a character device, not a scenario file; only regular files are read"));
        QTemporaryDir dir;
        QCOMPARE(errorOf([&] { readWholeFile(dir.path().toStdString(), "a kernel rules file"); }),
            dir.path() + QStringLiteral(": is a folder, not a kernel rules file"));
        const std::string missing = dir.filePath(QStringLiteral("missing.json")).toStdString();
        QCOMPARE(errorOf([&] { readWholeFile(missing, "a scenario file"); }),
            QString::fromStdString(missing)
                + QStringLiteral(": cannot be opened for reading (No such file or directory)"));
    }

    void fileAboveTheCapIsRefused()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("huge.json")).toStdString();
        std::ofstream(path) << "{}";
        std::filesystem::resize_file(path, kMaxWholeFileBytes + 1); // sparse: no disk used
        QCOMPARE(errorOf([&] { readWholeFile(path, "a scenario file"); }),
            QString::fromStdString(path)
                + QStringLiteral(": is 257 MiB, larger than the 256 MiB such a file may be; is it the right file?"));
        QVERIFY(errorOf([&] { readWholeFile(path, "a file", 1); }).contains(QStringLiteral("larger than the 1 MiB")));
    }

    void outOfMemoryNamesTheInput()
    {
        QCOMPARE(errorOf([] { readingInput("rank7.json.gz", []() -> int { throw std::bad_alloc(); }); }),
            QStringLiteral(
                "rank7.json.gz: out of memory while reading it (it needs more memory than this machine has free)"));
        QCOMPARE(readingInput("rank7.json.gz", [] { return 3; }), 3);
    }
};

QTEST_GUILESS_MAIN(TestReadFile)
#include "tst_read_file.moc"
