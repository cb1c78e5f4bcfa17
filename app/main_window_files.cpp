// MainWindow's file opening: File > Open, the recent-files list, drag and drop, and openFiles(), which routes
// each file by what it contains (app/file_kind.h) to the scenario editor, the scenario or the Trace panel.
#include "app/main_window.h"

#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMimeData>
#include <QSettings>
#include <QTabWidget>
#include <QUrl>

#include <algorithm>

#include "app/file_kind.h"
#include "app/preset_store.h"
#include "app/scenario_history.h"
#include "app/scenario_io.h"
#include "core/calibration/calibration_file.h"
#include "core/errors.h"
#include "core/io/document_kind.h"
#include "core/io/read_file.h"
#include "core/presets/hf_config.h"
#include "core/trace/nsys_reader.h"
#include "widgets/predict/predict_panel.h"
#include "widgets/scenario/scenario_editor.h"
#include "widgets/scenario/scenario_model.h"
#include "widgets/trace/trace_panel.h"

namespace mfu::app {

namespace {

constexpr int kMaxRecentFiles = 10;
const QString kRecentFilesKey = QStringLiteral("recentFiles");

// A downloaded model's folder: its config.json (beside tokenizer.json, generation_config.json and the weights' index,
// all of them *.json a folder of traces would be read as) is a Hugging Face config. The command line's --model takes
// such a folder too. Empty when the folder is not one.
QString modelConfigInFolder(const QString& folder)
{
    const QString config = QDir(folder).filePath(QStringLiteral("config.json"));
    return QFileInfo(config).isFile() && sniffFileKind(config) == FileKind::HfConfig ? config : QString();
}

} // namespace

bool MainWindow::openFiles(const QStringList& paths)
{
    // Each file that could not be opened says why; with several, every reason stays in the status bar, not only the
    // last one's (a later file's "Imported ..." would hide an earlier failure).
    QStringList failures;
    const auto open = [&](const QString& path) {
        if (!openFile(path))
            failures << m_lastMessage;
    };
    // Traces given together (one file per rank) or a folder of them open as one run in the Trace panel; Nsight
    // Systems SQLite exports are traces too. A downloaded model's folder imports the model instead.
    QStringList traces;
    for (const QString& path : paths)
        if (const QString config = QFileInfo(path).isDir() ? modelConfigInFolder(path) : QString(); !config.isEmpty())
            open(config);
        else if (QFileInfo(path).isDir()
            || (QFileInfo(path).isFile()
                && (sniffFileKind(path) == FileKind::Trace || trace::isSqliteFile(path.toStdString()))))
            traces << path;
        else
            open(path);
    if (auto* panel = m_tabs->findChild<widgets::TracePanel*>(); panel && !traces.isEmpty()) {
        m_tabs->setCurrentWidget(panel);
        // The panel says "Importing ..." itself, and why when it cannot (a folder without traces): its words stand.
        panel->openTraces(traces);
        if (!panel->isImporting()) // refused at once (a folder without traces): its reason joins the others
            failures << m_lastMessage;
        else
            for (const QString& path : traces)
                addRecentFile(path);
    }
    if (failures.size() > 1)
        tell(failures.join(QStringLiteral("  |  ")), true);
    return failures.isEmpty();
}

bool MainWindow::openFile(const QString& path)
{
    const QString shown = QDir::toNativeSeparators(path);
    if (!QFileInfo::exists(path)) {
        tell(tr("Cannot open %1: no such file.").arg(shown), true);
        return false;
    }
    if (!QFileInfo(path).isFile()) {
        // A FIFO, a device or a socket: the readers' own words for what it is ("is a FIFO (named pipe), not ...").
        try {
            requireRegularFile(path.toStdString(), "a file the window opens");
        } catch (const InputError& e) {
            tell(QString::fromUtf8(e.what()), true);
            return false;
        }
    }
    DocumentKind kind = DocumentKind::None;
    switch (sniffFileKind(path, &kind)) {
    case FileKind::HfConfig: {
        QString error;
        if (!m_editor->importModelConfig(path, &error)) {
            tell(error, true);
            return false;
        }
        addRecentFile(path);
        tell(tr("Imported the model from %1.").arg(shown));
        return true;
    }
    case FileKind::Scenario:
        try {
            // The run's files as paths from here: relative ones are the scenario file's folder's.
            const ScenarioDocument document = withRunFilesResolved(openScenarioFile(path), path.toStdString());
            if (!resolveUnsavedChanges()) {
                tell(tr("Did not open %1: the current scenario has unsaved changes.").arg(shown));
                return false;
            }
            m_scenario->setScenario(document.scenario);
            m_documentExtras = document; // cost inputs and traces are written back on save
            m_scenarioPath = path;
            m_history->reset(); // the opened file is the clean state; earlier edits cannot be undone into it
            updateTitle();
            addRecentFile(path);
            tell(tr("Opened the scenario %1.").arg(shown));
            restoreLoadedFiles(document, path);
            return true;
        } catch (const InputError& e) {
            tell(QString::fromUtf8(e.what()), true);
            return false;
        }
    case FileKind::Calibration:
        return openCalibration(path);
    case FileKind::Preset:
        tell(tr("%1 is a preset file: copy it into %2 to add its entries at the next start.")
                 .arg(shown, QDir::toNativeSeparators(userPresetFolder())),
            true);
        return false;
    case FileKind::OtherJson:
        if (kind != DocumentKind::None)
            tell(tr("%1 is %2, which the command line reads; the window opens Hugging Face config.json files, "
                    "scenarios, profiler traces and training logs.")
                     .arg(shown, QString::fromStdString(describeDocumentKind(kind))),
                true);
        else
            tell(tr("%1 is not a Hugging Face config.json: it has neither \"model_type\" nor \"architectures\" "
                    "(and it is not a scenario file or a profiler trace). Run reports cannot be opened here yet.")
                     .arg(shown),
                true);
        return false;
    case FileKind::TrainingLog:
        if (auto* panel = m_tabs->findChild<widgets::TracePanel*>()) {
            m_tabs->setCurrentWidget(panel);
            if (!panel->openTrainingLog(path)) {
                tell(panel->errorText(), true);
                return false;
            }
            m_pendingTrainingLog = path; // a recent file once it has loaded (trainingLogOpened), not before
            tell(tr("Reading the training log %1 in the Trace panel...").arg(shown)); // on a worker thread
            return true;
        }
        break;
    case FileKind::Trace:
        tell(tr("%1 looks like a profiler trace: opening traces is not supported yet.").arg(shown), true);
        return false;
    case FileKind::Unknown:
        // A .json that is not JSON (empty, cut off): the config reader's words for where and why. Only one the
        // sniffer read whole: a larger file is no config, and is not read on the GUI thread to say so.
        if (path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive)
            && static_cast<uint64_t>(QFileInfo(path).size()) <= kMaxSniffedDocumentBytes) {
            try {
                modelFromHfConfigFile(QFile::encodeName(path).toStdString());
            } catch (const InputError& e) {
                tell(QString::fromUtf8(e.what()), true);
                return false;
            }
        }
        break;
    }
    tell(
        tr("Cannot open %1: not supported yet (open a Hugging Face config.json or a scenario file).").arg(shown), true);
    return false;
}

// A calibration `calibrate --out` wrote: Predict shows it beside the uncalibrated prediction, as one fitted in the
// Trace panel, and the Cost panel and the report use it. A calibration applies to its own model and GPU only: when the
// scenario has others, the window takes the traced run's scenario from the file (one undo step brings the user's
// back), since the calibration could describe nothing else.
bool MainWindow::openCalibration(const QString& path)
{
    const QString name = QFileInfo(path).fileName();
    try {
        TraceCalibration calibration = readCalibrationFile(QFile::encodeName(path).toStdString());
        QString message = tr("Calibrated Predict to %1, beside the uncalibrated prediction.").arg(name);
        if (calibrationMismatch(m_scenario->scenario(), calibration)) {
            const Scenario& traced = calibration.traced;
            message = tr("Calibrated Predict to %1 and took its traced run, %2 on %3 x %4 (Undo brings back your "
                         "scenario).")
                          .arg(name, QString::fromStdString(traced.model.displayName()),
                              QString::number(traced.cluster.gpuCount),
                              QString::fromStdString(traced.cluster.hardware.displayName()));
            // The job the Cost panel prices stays the user's: the file's scenario states the traced run, no job.
            Scenario adopted = traced;
            adopted.cost = m_scenario->scenario().cost;
            m_scenario->setScenario(adopted);
        }
        m_scenario->setTraceCalibration(std::move(calibration), name);
        if (auto* predict = m_tabs->findChild<widgets::PredictPanel*>())
            m_tabs->setCurrentWidget(predict);
        addRecentFile(path);
        tell(message);
        return true;
    } catch (const InputError& e) {
        tell(QString::fromUtf8(e.what()), true);
        return false;
    }
}

void MainWindow::restoreLoadedFiles(const ScenarioDocument& document, const QString& scenarioPath)
{
    auto* panel = m_tabs->findChild<widgets::TracePanel*>();
    if (!panel)
        return;
    panel->closeAll(); // the file's session replaces the one before, even where it lists nothing
    QStringList missing;
    const auto present = [&](const std::vector<std::string>& paths) {
        QStringList out;
        for (const std::string& stored : paths) {
            const QString path = QString::fromStdString(stored); // withRunFilesResolved: from the file's folder
            if (QFileInfo::exists(path))
                out << path;
            else
                missing << QDir::toNativeSeparators(QString::fromStdString(stored));
        }
        return out;
    };
    const QStringList run = present(document.tracePaths);
    const QStringList baseline = present(document.baselineTracePaths);
    const QStringList logs = present(document.trainingLogPaths);
    if (!baseline.isEmpty())
        panel->openBaseline(baseline);
    if (!run.isEmpty())
        panel->openTraces(run);
    if (!logs.isEmpty())
        panel->openTrainingLog(logs.front()); // the panel shows one log
    if (!missing.isEmpty())
        tell(tr("Opened the scenario %1; these files it lists no longer exist: %2")
                 .arg(QDir::toNativeSeparators(scenarioPath), missing.join(QStringLiteral(", "))),
            true);
}

void MainWindow::chooseAndOpenFiles()
{
    const QStringList paths = QFileDialog::getOpenFileNames(this, tr("Open"), QString(), openFileFilter());
    openFiles(paths);
}

QStringList MainWindow::recentFiles() const
{
    QSettings settings;
    QStringList files;
    const int count = settings.beginReadArray(kRecentFilesKey);
    for (int i = 0; i < count; ++i) {
        settings.setArrayIndex(i);
        files << settings.value(QStringLiteral("path")).toString();
    }
    settings.endArray();
    return files;
}

void MainWindow::addRecentFile(const QString& path)
{
    QStringList files = recentFiles();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    files.removeAll(absolute);
    files.prepend(absolute);
    while (files.size() > kMaxRecentFiles)
        files.removeLast();
    QSettings settings;
    settings.beginWriteArray(kRecentFilesKey, static_cast<int>(files.size()));
    for (int i = 0; i < files.size(); ++i) {
        settings.setArrayIndex(i);
        settings.setValue(QStringLiteral("path"), files[i]);
    }
    settings.endArray();
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = recentFiles();
    for (const QString& path : files)
        m_recentMenu->addAction(QDir::toNativeSeparators(path), this, [this, path] { openFiles({ path }); });
    m_recentMenu->setEnabled(!files.isEmpty());
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (std::any_of(urls.begin(), urls.end(), [](const QUrl& u) { return u.isLocalFile(); }))
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    QStringList paths;
    for (const QUrl& url : event->mimeData()->urls())
        if (url.isLocalFile())
            paths << url.toLocalFile();
    event->acceptProposedAction();
    openFiles(paths);
}

} // namespace mfu::app
