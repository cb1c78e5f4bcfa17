#pragma once
// MainWindow: the scenario editor in a dock, the panels in tabs, File menu, recent files, window state, drag and
// drop. Every way of opening a file (menu, recent list, command line, drop) ends in openFiles(), which routes by
// content. Adding a panel is one addPanel() line in the constructor. File opening and recent files are in
// app/main_window_files.cpp, chart and report export in app/main_window_export.cpp.
#include <QMainWindow>
#include <QMessageBox>
#include <QStringList>

#include <functional>

#include "core/scenario/scenario_file.h"

class QLabel;
class QMenu;
class QTabWidget;
class QUndoStack;

namespace mfu::widgets {
class Activity;
class BackgroundJob;
class ChartView;
class ScenarioEditor;
class ScenarioModel;
} // namespace mfu::widgets

namespace mfu::app {

class ScenarioHistory;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // The client geometry that keeps a window with this frame (its margins around the client area) inside the
    // available area's height: moved up, then shrunk, never below `minimum`.
    static QRect fittedGeometry(
        const QRect& client, const QMargins& frame, const QRect& available, const QSize& minimum);
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens each file by what it contains (app/file_kind.h): a Hugging Face config.json imports the model, a
    // scenario file replaces the scenario; other kinds are named in a clear status message. Returns true when every
    // file was opened.
    bool openFiles(const QStringList& paths);

    void addPanel(QWidget* panel, const QString& title);
    widgets::ScenarioModel* scenarioModel() const { return m_scenario; }
    widgets::ScenarioEditor* scenarioEditor() const { return m_editor; }
    QTabWidget* panels() const { return m_tabs; }
    // The chart of the current panel that File > Export saves (the focused one, else the first), or nullptr.
    widgets::ChartView* currentChart() const;
    bool exportCurrentChart(const QString& path);
    // Writes the scenario through QSaveFile, with the traces, baseline and training log loaded in the Trace panel
    // (else those of the file it came from), so that reopening it restores them.
    bool saveScenarioTo(const QString& path);
    // What Save writes and the report reads: the scenario and the files loaded with it.
    ScenarioDocument currentDocument() const;
    QStringList recentFiles() const;
    QString lastMessage() const { return m_lastMessage; }
    // Edit > Undo/Redo act on this; it is clean when the scenario matches the file last opened or saved.
    QUndoStack* undoStack() const;
    // Writes the report of the current scenario (app/report): PDF, or HTML when the name ends in .html/.htm. Its
    // figures (the planner and the sweeps up to 16,384 GPUs: seconds on a large model) are computed off the GUI
    // thread, with progress and Cancel in the status bar; the file is written when they are done, then
    // reportExported(written) is emitted. Returns false, with the reason in lastMessage(), when the path cannot be
    // written (nothing is started); true when the report is under way.
    bool exportReport(const QString& path);
    // Edit > Copy Predict Command: the `mfu-explorer predict` line that states the scenario (core/scenario/
    // predict_command.h) to the clipboard. False, with the reason in lastMessage(), when no command states it (a
    // config.json that no longer holds the imported model, calibrated constants, a histogram of document lengths).
    bool copyPredictCommand();
    // Asked on close, and before opening another scenario file, with unsaved changes: Save, Discard or Cancel. The
    // default shows a QMessageBox; tests set their own answer so closing does not block.
    using UnsavedChangesPrompt = std::function<QMessageBox::StandardButton()>;
    void setUnsavedChangesPrompt(UnsavedChangesPrompt prompt) { m_unsavedChangesPrompt = std::move(prompt); }
    // Asked before a demo replaces unsaved changes or closes loaded files (filesLoaded): Save, Discard or Cancel.
    using DemoPrompt = std::function<QMessageBox::StandardButton(bool filesLoaded)>;
    void setDemoPrompt(DemoPrompt prompt) { m_demoPrompt = std::move(prompt); }

signals:
    // An export started by exportReport ended: written, or not (failed or cancelled; lastMessage() says which).
    void reportExported(bool written);

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void createMenus();
    void chooseAndOpenFiles();
    void exportChartInteractively();
    // Says so (status bar) and returns true when the chart shows a sentence instead of data (still computing, or
    // nothing to draw): no file is written then.
    bool chartHasNothingToExport(const widgets::ChartView& chart);
    bool saveScenarioInteractively(bool askForName); // false when cancelled or failed
    // Asks about unsaved changes (if any); true when the caller may go on (saved or discarded).
    bool resolveUnsavedChanges();
    // 1400x900, or the screen's available area when it is smaller.
    QSize initialSize() const;
    // Once shown, when its frame (a window manager's title bar and borders, known only then) takes it past the
    // screen's available area: moved and shrunk to fit, so the status bar never lies below the screen's edge.
    void fitIntoScreen();
    // Before a demo: Save, Discard or Cancel when the scenario has unsaved changes or files are loaded beside it.
    bool resolveWorkADemoReplaces(bool filesLoaded);
    void exportReportInteractively();
    // The report job's status-bar activity, and what follows when the job ends.
    void createReportJob();
    void reportEnded(bool written, const QString& message);
    void updateTitle();
    bool openFile(const QString& path);
    bool openCalibration(const QString& path);
    // Loads the traces, baseline and training log a scenario file lists (relative paths from its folder); says which
    // no longer exist.
    void restoreLoadedFiles(const ScenarioDocument& document, const QString& scenarioPath);
    void addRecentFile(const QString& path);
    void rebuildRecentMenu();
    void tell(const QString& message, bool persistent = false);
    void saveWindowState() const;
    void restoreWindowState();

    widgets::ScenarioModel* m_scenario = nullptr;
    widgets::ScenarioEditor* m_editor = nullptr;
    QTabWidget* m_tabs = nullptr;
    QWidget* m_startPanel = nullptr; // Help > Start Here switches to it
    QMenu* m_recentMenu = nullptr;
    QString m_lastMessage;
    QString m_scenarioPath; // where Save writes; empty until opened or saved
    QString m_pendingTrainingLog; // opened here and still being read by the Trace panel
    ScenarioDocument m_documentExtras;
    ScenarioHistory* m_history = nullptr;
    UnsavedChangesPrompt m_unsavedChangesPrompt;
    DemoPrompt m_demoPrompt;
    widgets::BackgroundJob* m_reportJob = nullptr;
    widgets::Activity* m_reportActivity = nullptr;
    bool m_warnWhenReportFails = false; // File > Export Report: a failure is also a message box
    bool m_fittedIntoScreen = false; // fitIntoScreen runs after the first show only: later sizes are the user's
};

} // namespace mfu::app
