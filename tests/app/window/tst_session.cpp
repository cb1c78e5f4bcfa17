// The window's session beside the scenario: saving a scenario keeps every file loaded in the Trace panel (the run's
// traces, the baseline, the training log) under trace_paths, baseline_trace_paths and training_log_paths, and opening
// it loads them again (a file that no longer exists is named); a Start-here demo closes them, so nothing of an earlier
// session is read against the demo's scenario; the report of such a session has its trace breakdown, diagnosis and
// training-log sections.
#include <QFile>
#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "app/main_window.h"
#include "b200_scaling_log.h"
#include "core/scenario/scenario_file.h"
#include "trace_test_support.h"
#include "widgets/scenario/scenario_model.h"
#include "widgets/start/start_panel.h"
#include "widgets/trace/trace_panel.h"
#include "widgets/trace/training_log_view.h"

using mfu::app::MainWindow;
using mfu::widgets::StartPanel;
using mfu::widgets::TracePanel;
using trace_test::annotation;
using trace_test::kernel;
using trace_test::traceOf;

namespace {

constexpr int kImportTimeoutMs = 60'000;

const std::string kGemm = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_cublas";

// Two annotated 1 ms steps of GEMMs (a third, cut short, is dropped).
std::string twoSteps(const std::string& gemm)
{
    return traceOf(
        { annotation("ProfilerStep#1", "0", "1000", true), annotation("ProfilerStep#2", "1000", "1000", true),
            annotation("ProfilerStep#3", "2000", "1000", true), kernel(kGemm, "0", gemm), kernel(kGemm, "1000", gemm),
            kernel(kGemm, "2000", "100") },
        R"("deviceProperties": [{"id": 0, "name": "NVIDIA B200"}])");
}

// The B200 scaling report's 8-GPU log (iteration blocks), as tst_trace_panel_log reads it.
const char* kLog = mfu::test::kB200ScalingLog;

TracePanel* tracePanel(const MainWindow& w)
{
    return w.findChild<TracePanel*>();
}

std::vector<std::string> absolute(const QStringList& paths)
{
    std::vector<std::string> out;
    for (const QString& p : paths)
        out.push_back(QFileInfo(p).absoluteFilePath().toStdString());
    return out;
}

} // namespace

class TestMainWindowSession : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_run, m_baseline, m_log;

    QString write(const QString& name, const QByteArray& bytes)
    {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
            return {};
        return path;
    }

    // The window with the run, the baseline and the log loaded in its Trace panel.
    void loadAll(MainWindow& w)
    {
        TracePanel* panel = tracePanel(w);
        QVERIFY(panel);
        panel->openBaseline({ m_baseline });
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isImporting() && panel->baseline(), kImportTimeoutMs);
        QVERIFY(w.openFiles({ m_run, m_log }));
        QTRY_VERIFY_WITH_TIMEOUT(
            !panel->isImporting() && panel->run() && !panel->trainingLogPath().isEmpty(), kImportTimeoutMs);
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("mfu-explorer-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_main_window_session"));
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        m_run = write(QStringLiteral("optimised.json"), QByteArray::fromStdString(twoSteps("900")));
        m_baseline = write(QStringLiteral("baseline.json"), QByteArray::fromStdString(twoSteps("500")));
        m_log = write(QStringLiteral("b200-8gpu.log"), kLog);
        QVERIFY(!m_run.isEmpty() && !m_baseline.isEmpty() && !m_log.isEmpty());
    }
    void cleanupTestCase() { QSettings().clear(); }

    void saveKeepsTracesBaselineAndLog()
    {
        MainWindow w;
        w.setUnsavedChangesPrompt([] { return QMessageBox::Discard; });
        loadAll(w);
        const QString path = m_dir.filePath(QStringLiteral("session.mfu.json"));
        QVERIFY2(w.saveScenarioTo(path), qPrintable(w.lastMessage()));
        const mfu::ScenarioDocument saved = mfu::readScenarioFile(path.toStdString());
        QCOMPARE(saved.tracePaths, absolute({ m_run }));
        QCOMPARE(saved.baselineTracePaths, absolute({ m_baseline }));
        QCOMPARE(saved.trainingLogPaths, absolute({ m_log }));
        // The keys are the documented ones.
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto json = nlohmann::json::parse(file.readAll().toStdString());
        for (const char* key : { "trace_paths", "baseline_trace_paths", "training_log_paths" })
            QVERIFY2(json.contains(key) && json[key].size() == 1, key);

        // Reopened in a fresh window: all three are loaded again.
        MainWindow again;
        QVERIFY2(again.openFiles({ path }), qPrintable(again.lastMessage()));
        TracePanel* panel = tracePanel(again);
        QTRY_VERIFY_WITH_TIMEOUT(
            !panel->isImporting() && panel->run() && panel->baseline() && !panel->trainingLogPath().isEmpty(),
            kImportTimeoutMs);
        QCOMPARE(absolute(panel->runPaths()), absolute({ m_run }));
        QCOMPARE(absolute(panel->baselinePaths()), absolute({ m_baseline }));
        QCOMPARE(QFileInfo(panel->trainingLogPath()).absoluteFilePath(), QFileInfo(m_log).absoluteFilePath());
    }

    // A listed file that has gone is named, and the rest still opens.
    void missingListedFileIsNamed()
    {
        mfu::ScenarioDocument doc;
        {
            MainWindow w;
            doc = w.currentDocument();
        }
        const QString gone = m_dir.filePath(QStringLiteral("gone.json"));
        doc.tracePaths = { gone.toStdString() };
        doc.trainingLogPaths = { m_log.toStdString() };
        const QString path
            = write(QStringLiteral("partial.mfu.json"), QByteArray::fromStdString(mfu::scenarioFileText(doc)));
        MainWindow w;
        QVERIFY(w.openFiles({ path }));
        QVERIFY2(w.lastMessage().contains(QLatin1String("gone.json")), qPrintable(w.lastMessage()));
        TracePanel* panel = tracePanel(w);
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isImporting() && !panel->trainingLogPath().isEmpty(), kImportTimeoutMs);
        QVERIFY(!panel->run());
        // Saving again keeps the missing path listed: the user may bring the file back.
        const QString resaved = m_dir.filePath(QStringLiteral("partial-again.mfu.json"));
        QVERIFY(w.saveScenarioTo(resaved));
        QCOMPARE(mfu::readScenarioFile(resaved.toStdString()).tracePaths, doc.tracePaths);
    }

    // A demo starts from nothing loaded: it asks first (the files would close without a word before), traces,
    // baseline and log close, Save no longer lists them, and the demo is a new document: no undo back into a
    // scenario whose files are closed, no file of its own for Save to overwrite.
    void demoClosesLoadedFiles()
    {
        MainWindow w;
        w.setUnsavedChangesPrompt([] { return QMessageBox::Discard; });
        loadAll(w);
        auto* start = w.findChild<StartPanel*>();
        QVERIFY(start);
        int asked = 0;
        w.setDemoPrompt([&asked](bool filesLoaded) {
            ++asked;
            return filesLoaded ? QMessageBox::Cancel : QMessageBox::Discard;
        });
        const mfu::Scenario before = w.scenarioModel()->scenario();
        QVERIFY(!start->runDemo(StartPanel::Demo::Llama70BTorchTitanDefault)); // cancelled: nothing changes
        QCOMPARE(asked, 1);
        QVERIFY(tracePanel(w)->run());
        QCOMPARE(w.scenarioModel()->scenario().model.id, before.model.id);
        w.setDemoPrompt([&asked](bool) {
            ++asked;
            return QMessageBox::Discard;
        });
        QVERIFY(start->runDemo(StartPanel::Demo::Llama70BTorchTitanDefault));
        QCOMPARE(asked, 2);
        QVERIFY(!w.undoStack()->canUndo());
        QVERIFY(!w.isWindowModified());
        TracePanel* panel = tracePanel(w);
        QVERIFY(!panel->run());
        QVERIFY(!panel->baseline());
        QVERIFY(panel->trainingLogPath().isEmpty());
        QVERIFY(!panel->trainingLogView()->hasLog());
        const mfu::ScenarioDocument doc = w.currentDocument();
        QVERIFY(doc.tracePaths.empty() && doc.baselineTracePaths.empty() && doc.trainingLogPaths.empty());
    }

    // The report of a window with traces and a log loaded has the trace breakdown, the diagnosis of the measured
    // figures and the training log's section.
    void reportHasTheLoadedFilesSections()
    {
        MainWindow w;
        loadAll(w);
        const QString html = m_dir.filePath(QStringLiteral("session.html"));
        QSignalSpy exported(&w, &MainWindow::reportExported);
        QVERIFY2(w.exportReport(html), qPrintable(w.lastMessage()));
        QVERIFY(exported.wait(120000));
        QVERIFY2(exported.front().front().toBool(), qPrintable(w.lastMessage()));
        QFile file(html);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString page = QString::fromUtf8(file.readAll());
        for (const char* heading :
            { "Trace breakdown", "Diagnosis of the measured figures", "Training log: b200-8gpu.log" })
            QVERIFY2(page.contains(QLatin1String(heading)), heading);
    }
};

QTEST_MAIN(TestMainWindowSession)
#include "tst_session.moc"
