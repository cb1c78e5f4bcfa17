// writeFileAtomically: a file is written whole or not at all. A new file appears with the bytes; a replaced one
// keeps its permissions; a write that fails part-way (the file-size limit standing in for a full disk) or cannot
// start (a read-only folder) reports the system's reason, leaves the previous file as it was and no temporary file.
#include <QtTest>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/io/atomic_file.h"
#include "file_size_limit.h"

using namespace mfu;
namespace fs = std::filesystem;

namespace {
std::string readAll(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}
size_t entriesIn(const fs::path& folder)
{
    return static_cast<size_t>(std::distance(fs::directory_iterator(folder), {}));
}
} // namespace

class TestAtomicFile : public QObject {
    Q_OBJECT
private slots:
    void writesNewFileAndReplacesOld()
    {
        QTemporaryDir dir;
        const fs::path path = fs::path(dir.path().toStdString()) / "scenario.json";
        std::string reason;
        QVERIFY(writeFileAtomically(path, "first", &reason));
        QCOMPARE(readAll(path), std::string("first"));
        QVERIFY(writeFileAtomically(path, std::string(100000, 'x'), &reason));
        QCOMPARE(readAll(path).size(), size_t(100000));
        QVERIFY(writeFileAtomically(path, "", &reason)); // empty is a valid content
        QCOMPARE(readAll(path), std::string());
        QCOMPARE(entriesIn(path.parent_path()), size_t(1)); // no temporary left behind
    }

    void newFileFollowsUmaskReplacedFileKeepsMode()
    {
        QTemporaryDir dir;
        const fs::path path = fs::path(dir.path().toStdString()) / "a.csv";
        const mode_t previous = ::umask(022);
        QVERIFY(writeFileAtomically(path, "1", nullptr));
        ::umask(previous);
        struct stat st { };
        QCOMPARE(::stat(path.c_str(), &st), 0);
        QCOMPARE(st.st_mode & 0777, mode_t(0644)); // 0666 less umask 022, as any program's new file
        QCOMPARE(::chmod(path.c_str(), 0600), 0);
        QVERIFY(writeFileAtomically(path, "2", nullptr));
        QCOMPARE(::stat(path.c_str(), &st), 0);
        QCOMPARE(st.st_mode & 0777, mode_t(0600));
    }

    void fileSizeLimitKeepsPreviousFileAndSaysWhy()
    {
        QTemporaryDir dir;
        const fs::path path = fs::path(dir.path().toStdString()) / "report.html";
        QVERIFY(writeFileAtomically(path, "previous report", nullptr));
        std::string reason;
        bool ok = true;
        {
            const test::FileSizeLimit limit(4096);
            if (!limit.active())
                QSKIP("cannot lower RLIMIT_FSIZE here");
            ok = writeFileAtomically(path, std::string(100000, 'x'), &reason);
        }
        QVERIFY(!ok);
        QCOMPARE(QString::fromStdString(reason), QStringLiteral("File too large")); // strerror(EFBIG)
        QCOMPARE(readAll(path), std::string("previous report"));
        QCOMPARE(entriesIn(path.parent_path()), size_t(1));
    }

    void readOnlyFolderSaysPermissionDenied()
    {
        if (::geteuid() == 0)
            QSKIP("root writes into a read-only folder; the permission check cannot fail");
        QTemporaryDir dir;
        const fs::path folder = fs::path(dir.path().toStdString()) / "locked";
        fs::create_directory(folder);
        QVERIFY(writeFileAtomically(folder / "x.json", "old", nullptr));
        fs::permissions(folder, fs::perms::owner_read | fs::perms::owner_exec);
        std::string reason;
        const bool ok = writeFileAtomically(folder / "x.json", "new", &reason);
        fs::permissions(folder, fs::perms::owner_all);
        QVERIFY(!ok);
        QCOMPARE(QString::fromStdString(reason), QStringLiteral("Permission denied"));
        QCOMPARE(readAll(folder / "x.json"), std::string("old"));
    }

    // A symbolic link, a FIFO or a device as the target is refused, never replaced by a regular file: rename() would
    // replace the link itself, and as root `--out /dev/null` would replace the device.
    void refusesWhatIsNotARegularFile()
    {
        QTemporaryDir dir;
        const fs::path folder = dir.path().toStdString();
        QVERIFY(writeFileAtomically(folder / "real.json", "kept", nullptr));
        fs::create_symlink(folder / "real.json", folder / "link.json");
        QCOMPARE(::mkfifo((folder / "pipe").c_str(), 0600), 0);
        fs::create_directory(folder / "folder.json");
        std::vector<fs::path> targets { folder / "link.json", folder / "pipe", folder / "folder.json" };
        // A device node of our own (a copy of /dev/null's numbers), when this process may make one: never the real
        // /dev/null, which a broken refusal would replace.
        if (::mknod((folder / "null").c_str(), S_IFCHR | 0666, ::makedev(1, 3)) == 0)
            targets.push_back(folder / "null");
        for (const fs::path& target : targets) {
            std::string reason;
            QVERIFY2(!writeFileAtomically(target, "new", &reason), target.c_str());
            QVERIFY2(QString::fromStdString(reason).startsWith("refusing to replace what is not a regular file"),
                reason.c_str());
        }
        QVERIFY(fs::is_symlink(folder / "link.json"));
        QCOMPARE(readAll(folder / "real.json"), std::string("kept"));
        QVERIFY(fs::is_fifo(folder / "pipe"));
        QVERIFY(fs::is_directory(folder / "folder.json"));
        if (targets.size() == 4)
            QVERIFY(fs::is_character_file(folder / "null"));
        QCOMPARE(entriesIn(folder), targets.size() + 1); // no temporary left
    }

    // A page and its images: a failure part-way (the file-size limit as a full disk) replaces none of them.
    void fileSetIsAllOrNothing()
    {
        QTemporaryDir dir;
        const fs::path folder = dir.path().toStdString();
        std::vector<FileToWrite> old { { folder / "a.png", "old a" }, { folder / "b.png", "old b" },
            { folder / "page.html", "old page" } };
        QVERIFY(writeFilesAtomically(old, nullptr, nullptr));
        std::vector<FileToWrite> next { { folder / "a.png", "new a" }, { folder / "b.png", std::string(100000, 'b') },
            { folder / "page.html", "new page" } };
        std::string reason;
        std::string failed;
        bool ok = true;
        {
            const test::FileSizeLimit limit(4096);
            if (!limit.active())
                QSKIP("cannot lower RLIMIT_FSIZE here");
            ok = writeFilesAtomically(next, &reason, &failed);
        }
        QVERIFY(!ok);
        QCOMPARE(QString::fromStdString(reason), QStringLiteral("File too large"));
        QCOMPARE(failed, (folder / "b.png").string());
        QCOMPARE(readAll(folder / "a.png"), std::string("old a")); // written before b, yet not renamed
        QCOMPARE(readAll(folder / "page.html"), std::string("old page"));
        QCOMPARE(entriesIn(folder), size_t(3));
        next[1].bytes = "new b";
        QVERIFY(writeFilesAtomically(next, nullptr, nullptr));
        QCOMPARE(readAll(folder / "b.png"), std::string("new b"));
        // One target that is a link: refused before any file is replaced.
        fs::remove(folder / "b.png");
        fs::create_symlink(folder / "a.png", folder / "b.png");
        QVERIFY(!writeFilesAtomically(old, &reason, &failed));
        QCOMPARE(readAll(folder / "page.html"), std::string("new page"));
        QCOMPARE(failed, (folder / "b.png").string());
    }

    // Asked before the work that produces a file (a report's seconds of planning): the same refusals as the write,
    // and a folder that is missing or is a file, each in words; a writable target is not refused.
    void whyCannotBeWrittenBeforeAnyWork()
    {
        QTemporaryDir dir;
        const fs::path folder = dir.path().toStdString();
        QCOMPARE(whyFileCannotBeWritten(folder / "new.pdf"), std::string());
        QVERIFY(writeFileAtomically(folder / "old.pdf", "old", nullptr));
        QCOMPARE(whyFileCannotBeWritten(folder / "old.pdf"), std::string());
        QCOMPARE(whyFileCannotBeWritten(folder / "no" / "such.pdf"),
            "the folder " + (folder / "no").string() + " does not exist");
        QCOMPARE(whyFileCannotBeWritten(folder / "old.pdf" / "inside.pdf"),
            (folder / "old.pdf").string() + " is not a folder");
        fs::create_symlink(folder / "old.pdf", folder / "link.pdf");
        QCOMPARE(whyFileCannotBeWritten(folder / "link.pdf"),
            std::string("refusing to replace what is not a regular file (a symbolic link)"));
        QVERIFY(whyFileCannotBeWritten("relative-name.pdf").empty() || ::access(".", W_OK) != 0); // the working folder
        if (::geteuid() != 0) {
            fs::create_directory(folder / "locked");
            fs::permissions(folder / "locked", fs::perms::owner_read | fs::perms::owner_exec);
            const std::string why = whyFileCannotBeWritten(folder / "locked" / "x.pdf");
            fs::permissions(folder / "locked", fs::perms::owner_all);
            QCOMPARE(why, std::string("Permission denied"));
        }
    }

    void missingFolderSaysSo()
    {
        QTemporaryDir dir;
        std::string reason;
        QVERIFY(!writeFileAtomically(fs::path(dir.path().toStdString()) / "no" / "such.json", "x", &reason));
        QCOMPARE(QString::fromStdString(reason), QStringLiteral("No such file or directory"));
    }
};

QTEST_GUILESS_MAIN(TestAtomicFile)
#include "tst_atomic_file.moc"
