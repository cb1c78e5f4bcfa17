// Saving scenario files through QSaveFile: a save reopens identical, a save that cannot be written reports why and
// leaves the previous file untouched.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <csignal>
#include <cstring>

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app/preset_store.h"
#include "app/scenario_io.h"
#include "core/errors.h"

using namespace mfu;

namespace {

ScenarioDocument sampleDocument(int gpus)
{
    ScenarioDocument d;
    d.scenario.model = *app::presetLibrary().findModel("llama-3.1-8b");
    d.scenario.cluster.hardware = *app::presetLibrary().findHardware("h100-sxm");
    d.scenario.cluster.gpuCount = gpus;
    d.scenario.cost.targetMfu = 0.6;
    d.tracePaths = { "rank0.json" };
    return d;
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Makes a folder unwritable; as root permissions do not stop writes, so the immutable attribute is tried too.
// Returns false when neither works (then the test cannot be made to fail a save and is skipped).
bool makeReadOnly(const QString& folder)
{
    QFile::setPermissions(folder, QFileDevice::ReadOwner | QFileDevice::ExeOwner);
    if (geteuid() == 0)
        QProcess::execute(QStringLiteral("chattr"), { QStringLiteral("+i"), folder });
    QFile probe(folder + QStringLiteral("/probe"));
    if (probe.open(QIODevice::WriteOnly)) {
        probe.close();
        probe.remove();
        return false;
    }
    return true;
}

void makeWritable(const QString& folder)
{
    if (geteuid() == 0)
        QProcess::execute(QStringLiteral("chattr"), { QStringLiteral("-i"), folder });
    QFile::setPermissions(folder, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
}

// A document whose file text is large (hundreds of kilobytes): many measured points.
ScenarioDocument largeDocument()
{
    ScenarioDocument d = sampleDocument(4096);
    for (int i = 0; i < 3000; ++i)
        d.scenario.measuredPoints.push_back(
            { "measured point " + std::to_string(i), 8192, 8 * (i + 1), TrainingPrecision::BF16, 0.25 + 1e-5 * i });
    return d;
}

// A tiny tmpfs mounted over a folder for the lifetime of this object (root only); unmounted even when a test fails.
class TinyFilesystem {
public:
    explicit TinyFilesystem(const QString& folder)
        : m_folder(folder.toLocal8Bit())
    {
        m_mounted = ::mount("tmpfs", m_folder.constData(), "tmpfs", 0, "size=64k") == 0;
        if (!m_mounted)
            m_why = QString::fromLocal8Bit(std::strerror(errno));
    }
    ~TinyFilesystem()
    {
        if (m_mounted)
            ::umount2(m_folder.constData(), MNT_DETACH);
    }
    TinyFilesystem(const TinyFilesystem&) = delete;
    TinyFilesystem& operator=(const TinyFilesystem&) = delete;
    bool mounted() const { return m_mounted; }
    QString why() const { return m_why; }

private:
    QByteArray m_folder;
    bool m_mounted = false;
    QString m_why;
};

// Writes a filler file until the file system refuses another byte; returns the errno of that refusal.
int fillUp(const QString& path)
{
    const int fd = ::open(path.toLocal8Bit().constData(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return errno;
    const std::string block(4096, 'f');
    int error = 0;
    for (size_t size = block.size(); size > 0 && error == 0;) {
        if (::write(fd, block.data(), size) < 0) {
            if (errno != ENOSPC)
                error = errno;
            else if (size == 1)
                error = ENOSPC;
            else
                size /= 2; // the last page may take less than a block
        }
    }
    ::close(fd);
    return error;
}

} // namespace

class TestScenarioIo : public QObject {
    Q_OBJECT
private slots:
    void saveAndOpen()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("run.mfu.json"));
        QString error;
        QVERIFY2(app::saveScenarioFile(path, sampleDocument(64), &error), qPrintable(error));
        QVERIFY(error.isEmpty());
        const ScenarioDocument reopened = app::openScenarioFile(path);
        QCOMPARE(reopened.scenario.cluster.gpuCount, 64);
        QCOMPARE(*reopened.scenario.cost.targetMfu, 0.6);
        QCOMPARE(QString::fromStdString(scenarioFileText(reopened)), QString::fromUtf8(readAll(path)));
        // Saving over an existing file replaces it.
        QVERIFY2(app::saveScenarioFile(path, sampleDocument(128), &error), qPrintable(error));
        QCOMPARE(app::openScenarioFile(path).scenario.cluster.gpuCount, 128);
    }

    void readOnlyFolderKeepsPreviousFile()
    {
        QTemporaryDir dir;
        const QString folder = dir.filePath(QStringLiteral("locked"));
        QVERIFY(QDir().mkpath(folder));
        const QString path = folder + QStringLiteral("/run.mfu.json");
        QString error;
        QVERIFY2(app::saveScenarioFile(path, sampleDocument(64), &error), qPrintable(error));
        const QByteArray before = readAll(path);
        if (!makeReadOnly(folder)) {
            makeWritable(folder);
            QSKIP("cannot make a folder unwritable here (root without chattr support)");
        }
        const bool saved = app::saveScenarioFile(path, sampleDocument(4096), &error);
        makeWritable(folder);
        QVERIFY(!saved);
        QVERIFY2(error.startsWith(QStringLiteral("Could not save ") + path + QStringLiteral(": ")), qPrintable(error));
        QVERIFY(error.size() > QString(QStringLiteral("Could not save ") + path + QStringLiteral(": ")).size());
        QCOMPARE(readAll(path), before);
        QCOMPARE(app::openScenarioFile(path).scenario.cluster.gpuCount, 64);
        QCOMPARE(QDir(folder).entryList(QDir::Files), QStringList { QStringLiteral("run.mfu.json") }); // no leftovers
    }

    void diskFullKeepsPreviousFile()
    {
        // A real full disk: a 64 KiB tmpfs, a previous save on it, the rest filled, then a save of ~400 KB.
        if (geteuid() != 0)
            QSKIP("needs root to mount a tiny tmpfs that can be filled (run the tests as root to cover a full disk)");
        QTemporaryDir dir;
        const QString folder = dir.filePath(QStringLiteral("tiny"));
        QVERIFY(QDir().mkpath(folder));
        const TinyFilesystem tiny(folder);
        if (!tiny.mounted())
            QSKIP(qPrintable(QStringLiteral("cannot mount a tmpfs here: ") + tiny.why()));
        const QString path = folder + QStringLiteral("/run.mfu.json");
        QString error;
        QVERIFY2(app::saveScenarioFile(path, sampleDocument(64), &error), qPrintable(error));
        const QByteArray before = readAll(path);
        QCOMPARE(fillUp(folder + QStringLiteral("/filler")), ENOSPC);

        const ScenarioDocument large = largeDocument();
        QVERIFY(scenarioFileText(large).size() > 256 * 1024);
        QVERIFY(!app::saveScenarioFile(path, large, &error));
        const QString prefix = QStringLiteral("Could not save ") + path + QStringLiteral(": ");
        QVERIFY2(error.startsWith(prefix) && error.size() > prefix.size(), qPrintable(error));
        qInfo("%s", qPrintable(error));
        QCOMPARE(readAll(path), before);
        QCOMPARE(app::openScenarioFile(path).scenario.cluster.gpuCount, 64);
        QCOMPARE(QDir(folder).entryList(QDir::Files),
            (QStringList { QStringLiteral("filler"), QStringLiteral("run.mfu.json") })); // no temporary left
    }

    void fileSizeLimitKeepsPreviousFile()
    {
        // The same failure without root: a child process whose file size limit (RLIMIT_FSIZE) is below the new
        // file's size, with SIGXFSZ ignored, so the kernel refuses the write (EFBIG) as it does on a full disk.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("run.mfu.json"));
        QString error;
        QVERIFY2(app::saveScenarioFile(path, sampleDocument(64), &error), qPrintable(error));
        const QByteArray before = readAll(path);
        const ScenarioDocument large = largeDocument();
        int toParent[2];
        QCOMPARE(::pipe(toParent), 0);
        const pid_t child = ::fork();
        QVERIFY(child >= 0);
        if (child == 0) { // report the outcome through the pipe and leave without running the test's teardown
            ::close(toParent[0]);
            std::signal(SIGXFSZ, SIG_IGN);
            const rlimit limit { 16 * 1024, 16 * 1024 };
            ::setrlimit(RLIMIT_FSIZE, &limit);
            QString childError;
            const bool saved = app::saveScenarioFile(path, large, &childError);
            const QByteArray message = childError.toUtf8();
            [[maybe_unused]] const auto written = ::write(toParent[1], message.constData(), message.size());
            ::_exit(saved ? 1 : 0);
        }
        ::close(toParent[1]);
        QByteArray message;
        char buffer[4096];
        for (ssize_t n; (n = ::read(toParent[0], buffer, sizeof buffer)) > 0;)
            message.append(buffer, n);
        ::close(toParent[0]);
        int status = 0;
        QCOMPARE(::waitpid(child, &status, 0), child);
        QVERIFY2(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the save past the file size limit reported success");
        const QString prefix = QStringLiteral("Could not save ") + path + QStringLiteral(": ");
        error = QString::fromUtf8(message);
        QVERIFY2(error.startsWith(prefix) && error.size() > prefix.size(), qPrintable(error));
        QVERIFY2(!error.contains(QStringLiteral("Unknown error")), qPrintable(error)); // the system's reason, EFBIG
        qInfo("%s", qPrintable(error));
        QCOMPARE(readAll(path), before);
        QCOMPARE(app::openScenarioFile(path).scenario.cluster.gpuCount, 64);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList { QStringLiteral("run.mfu.json") });
    }

    void folderMissing()
    {
        QTemporaryDir dir;
        QString error;
        QVERIFY(
            !app::saveScenarioFile(dir.filePath(QStringLiteral("no/such/folder/run.json")), sampleDocument(8), &error));
        QVERIFY2(error.contains(QStringLiteral("no/such/folder/run.json")), qPrintable(error));
    }

    void openBrokenFileSaysWhy()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("broken.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"format\": \"mfu-explorer-scenario\", \"version\": 2}");
        f.close();
        try {
            app::openScenarioFile(path);
            QFAIL("expected InputError");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("version: 2 is newer")), e.what());
        }
    }

    void openVersionZeroWithBuiltInPresets()
    {
        const ScenarioDocument d = app::openScenarioFile(QStringLiteral(MFU_SOURCE_DIR "/tests/data/scenario_v0.json"));
        QCOMPARE(d.scenario.model.id, std::string("llama-3.1-70b"));
        QCOMPARE(d.scenario.cluster.gpuCount, 256);
    }
};

QTEST_GUILESS_MAIN(TestScenarioIo)
#include "tst_scenario_io.moc"
