// Saving scenario files through QSaveFile: a save reopens identical, a save that cannot be written reports why and
// leaves the previous file untouched.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

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
