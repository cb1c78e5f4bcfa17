#include "app/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QUndoStack>

#include <algorithm>

#include "app/preset_store.h"
#include "app/scenario_history.h"
#include "app/scenario_io.h"
#include "app/validation_store.h"
#include "widgets/calculator/calculator_panel.h"
#include "widgets/cost/cost_panel.h"
#include "widgets/jobs/status_activity.h"
#include "widgets/predict/predict_panel.h"
#include "widgets/scenario/scenario_editor.h"
#include "widgets/scenario/scenario_model.h"
#include "widgets/start/start_panel.h"
#include "widgets/trace/trace_panel.h"
#include "widgets/trace/training_log_view.h"

namespace mfu::app {

namespace {

// Bump when docks or toolbars change, so an old saved layout is ignored instead of restored wrongly.
constexpr int kWindowStateVersion = 1;

// Every binding the platform defines for a standard key (Redo: Ctrl+Y and Ctrl+Shift+Z), or the usual one where it
// defines none (Windows and the offscreen platform have no Save As or Quit key).
void setStandardShortcuts(QAction* action, QKeySequence::StandardKey key, const QKeySequence& fallback = {})
{
    const QList<QKeySequence> bindings = QKeySequence::keyBindings(key);
    action->setShortcuts(bindings.isEmpty() ? QList<QKeySequence> { fallback } : bindings);
}

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_scenario(new widgets::ScenarioModel(this))
    , m_tabs(new QTabWidget)
{
    setAcceptDrops(true);
    m_scenario->setScenario(widgets::defaultScenario(presetLibrary()), true);
    m_history = new ScenarioHistory(m_scenario, this);
    connect(m_history->stack(), &QUndoStack::cleanChanged, this, [this](bool clean) { setWindowModified(!clean); });
    updateTitle();
    m_unsavedChangesPrompt = [this] {
        return QMessageBox::warning(this, tr("Unsaved changes"),
            tr("The scenario has changes that are not saved. Save them first?"),
            QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    };
    m_demoPrompt = [this](bool filesLoaded) {
        return QMessageBox::warning(this, tr("Start a demo"),
            filesLoaded ? tr("The demo replaces the scenario and closes the trace, baseline and training log loaded "
                             "beside it. Save the scenario with them first?")
                        : tr("The demo replaces the scenario, which has changes that are not saved. Save them first?"),
            QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    };

    m_editor = new widgets::ScenarioEditor(m_scenario, presetLibrary());
    auto* scroll = new QScrollArea;
    scroll->setWidget(m_editor);
    scroll->setWidgetResizable(true);
    scroll->setAccessibleName(tr("Scenario inputs"));
    auto* dock = new QDockWidget(tr("Scenario"), this);
    dock->setObjectName(QStringLiteral("scenarioDock")); // saveState() needs a name
    dock->setWidget(scroll);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::LeftDockWidgetArea, dock);
    connect(m_editor, &widgets::ScenarioEditor::statusMessage, this, [this](const QString& m) { tell(m); });

    m_tabs->setDocumentMode(true);
    m_tabs->setAccessibleName(tr("Panels"));
    setCentralWidget(m_tabs);
    // Panels: one line each.
    auto* calculatorPanel = new widgets::CalculatorPanel(m_scenario, presetLibrary());
    addPanel(calculatorPanel, tr("Calculator"));
    auto* predictPanel = new widgets::PredictPanel(m_scenario);
    predictPanel->setErrorBandModel(shippedErrorBands());
    addPanel(predictPanel, tr("Predict"));
    auto* tracePanel = new widgets::TracePanel(m_scenario);
    tracePanel->setKnownHardware(
        presetLibrary().hardware()); // GPU name matching, adopting a file's GPU; another GPU's peak in logs
    addPanel(tracePanel, tr("Trace"));
    connect(tracePanel, &widgets::TracePanel::statusMessage, this, [this](const QString& m) { tell(m); });
    // A failed import stays in the status bar until the next message (the panel shows it too).
    connect(tracePanel, &widgets::TracePanel::importFailed, this, [this](const QString& m) { tell(m, true); });
    connect(tracePanel, &widgets::TracePanel::trainingLogOpened, this, [this](const QString& path) {
        if (path == m_pendingTrainingLog) { // opened through this window, and now loaded
            m_pendingTrainingLog.clear();
            addRecentFile(path);
        }
    });
    addPanel(new widgets::CostPanel(m_scenario, presetLibrary()), tr("Cost"));
    auto* start = new widgets::StartPanel(*m_scenario, presetLibrary());
    connect(start, &widgets::StartPanel::showPanel, this,
        [this, calculatorPanel, predictPanel](widgets::StartPanel::Panel panel) {
            m_tabs->setCurrentWidget(panel == widgets::StartPanel::Panel::Predict
                    ? static_cast<QWidget*>(predictPanel)
                    : static_cast<QWidget*>(calculatorPanel));
        });
    m_startPanel = start;
    connect(start, &widgets::StartPanel::demoFailed, this, [this](const QString& m) { tell(m, true); });
    // A demo is a new document: it asks before it replaces unsaved changes or closes the files loaded beside the
    // scenario, starts from nothing loaded, has no file of its own (Save asks for a name) and no undo history (undo
    // could only go back to a scenario whose files are closed).
    start->setDemoGate([this, tracePanel] {
        const bool filesLoaded = !tracePanel->runPaths().isEmpty() || !tracePanel->baselinePaths().isEmpty()
            || !tracePanel->trainingLogPath().isEmpty();
        return resolveWorkADemoReplaces(filesLoaded);
    });
    connect(start, &widgets::StartPanel::demoStarting, this, [this, tracePanel] {
        tracePanel->closeAll();
        m_documentExtras = ScenarioDocument {};
    });
    connect(start, &widgets::StartPanel::demoApplied, this, [this] {
        m_history->reset();
        m_scenarioPath.clear();
        updateTitle();
    });
    addPanel(start, tr("Start here"));

    createMenus();
    // Background work of any panel shows its progress and Cancel here, whichever panel is in front.
    auto* activity = new widgets::StatusActivity;
    activity->setObjectName(QStringLiteral("statusActivity"));
    activity->watch(tracePanel->activity());
    activity->watch(predictPanel->activity());
    createReportJob();
    activity->watch(m_reportActivity);
    statusBar()->addPermanentWidget(activity);
    for (const auto& problem : presetLibrary().problems())
        tell(tr("Preset problem: %1").arg(QString::fromStdString(problem.message())), true);
    resize(initialSize());
    resizeDocks({ dock }, { 430 }, Qt::Horizontal);
    restoreWindowState();
    if (m_lastMessage.isEmpty())
        tell(tr("Ready: edit the scenario on the left, or open a config.json (%1). New here? See the Start here tab.")
                 .arg(QKeySequence(QKeySequence::Open).toString(QKeySequence::NativeText)));
}

MainWindow::~MainWindow() = default;

QSize MainWindow::initialSize() const
{
    // 1400x900 where the screen has room; on a 1280x720 screen the window opened larger than the screen, with its
    // bottom rows (the status bar, the last lines of every panel) out of sight. Until a saved geometry is restored.
    QSize size(1400, 900);
    if (const QScreen* s = screen() ? screen() : QGuiApplication::primaryScreen())
        size = size.boundedTo(s->availableGeometry().size());
    return size;
}

QRect MainWindow::fittedGeometry(
    const QRect& client, const QMargins& frame, const QRect& available, const QSize& minimum)
{
    // Only the height: the bottom rows (the status bar) are what a frame pushes off; a window wider than its screen
    // scrolls sideways in the window manager's hands and keeps the width its user gave it.
    const QRect room = available.marginsRemoved(frame);
    QRect fitted = client;
    fitted.setHeight(std::max(minimum.height(), std::min(client.height(), room.height())));
    fitted.moveTop(std::clamp(client.top(), room.top(), std::max(room.top(), room.bottom() + 1 - fitted.height())));
    return fitted;
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    if (!m_fittedIntoScreen) {
        m_fittedIntoScreen = true;
        // The frame is known once the window manager has placed the window: after this event.
        QTimer::singleShot(0, this, &MainWindow::fitIntoScreen);
    }
}

void MainWindow::fitIntoScreen()
{
    const QScreen* s = screen();
    if (!s || isMaximized() || isFullScreen())
        return;
    const QRect client = geometry();
    const QRect frame = frameGeometry();
    const QMargins margins(client.left() - frame.left(), client.top() - frame.top(), frame.right() - client.right(),
        frame.bottom() - client.bottom());
    const QRect fitted = fittedGeometry(client, margins, s->availableGeometry(), minimumSizeHint());
    if (fitted != client)
        setGeometry(fitted);
}

void MainWindow::addPanel(QWidget* panel, const QString& title)
{
    m_tabs->addTab(panel, title);
}

void MainWindow::createMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open..."), this, &MainWindow::chooseAndOpenFiles);
    setStandardShortcuts(open, QKeySequence::Open);
    // A multi-rank run: a folder of per-rank traces, or of their *.summary.json (docs/cluster-scale.md).
    file->addAction(tr("Open &Folder of Ranks..."), this, [this] {
        if (auto* trace = findChild<widgets::TracePanel*>()) {
            m_tabs->setCurrentWidget(trace);
            trace->chooseRankFolder();
        }
    });
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    rebuildRecentMenu();
    QAction* save = file->addAction(tr("&Save Scenario"), this, [this] { saveScenarioInteractively(false); });
    setStandardShortcuts(save, QKeySequence::Save);
    QAction* saveAs = file->addAction(tr("Save Scenario &As..."), this, [this] { saveScenarioInteractively(true); });
    setStandardShortcuts(saveAs, QKeySequence::SaveAs, QKeySequence(tr("Ctrl+Shift+S")));
    file->addSeparator();
    QAction* exportChart = file->addAction(tr("&Export Chart..."), this, &MainWindow::exportChartInteractively);
    exportChart->setShortcut(QKeySequence(tr("Ctrl+E")));
    file->addAction(tr("Export &Report..."), this, &MainWindow::exportReportInteractively);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    setStandardShortcuts(quit, QKeySequence::Quit, QKeySequence(tr("Ctrl+Q")));

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = m_history->stack()->createUndoAction(this, tr("&Undo"));
    setStandardShortcuts(undo, QKeySequence::Undo);
    edit->addAction(undo);
    QAction* redo = m_history->stack()->createRedoAction(this, tr("&Redo"));
    setStandardShortcuts(redo, QKeySequence::Redo);
    edit->addAction(redo);
    edit->addSeparator();
    edit->addAction(tr("Copy &Predict Command"), this, &MainWindow::copyPredictCommand);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        view->addAction(dock->toggleViewAction());
    view->addSeparator();
    // Qt has no standard key for switching pages; Ctrl+1..9 is the common convention (browsers, IDEs).
    for (int i = 0; i < m_tabs->count() && i < 9; ++i) {
        QAction* panel = view->addAction(m_tabs->tabText(i), this, [this, i] { m_tabs->setCurrentIndex(i); });
        panel->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_1 + i)));
    }

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* startHere = help->addAction(tr("&Start Here"), this, [this] { m_tabs->setCurrentWidget(m_startPanel); });
    setStandardShortcuts(startHere, QKeySequence::HelpContents, QKeySequence(Qt::Key_F1));
    help->addAction(tr("&About MFU Explorer"), this, [this] {
        QMessageBox::about(this, tr("About MFU Explorer"),
            tr("MFU Explorer %1\nModel FLOPs Utilization: measure, predict, explain and value it.")
                .arg(QApplication::applicationVersion()));
    });
}

ScenarioDocument MainWindow::currentDocument() const
{
    ScenarioDocument document = m_documentExtras;
    document.scenario = m_scenario->scenario();
    const auto absolute = [](const QStringList& paths) {
        std::vector<std::string> out;
        for (const QString& path : paths)
            out.push_back(QFileInfo(path).absoluteFilePath().toStdString());
        return out;
    };
    // What the Trace panel shows wins; while a file's traces are still loading (or failed to), the file's list stays.
    if (const auto* panel = m_tabs->findChild<widgets::TracePanel*>()) {
        if (!panel->runPaths().isEmpty())
            document.tracePaths = absolute(panel->runPaths());
        if (!panel->baselinePaths().isEmpty())
            document.baselineTracePaths = absolute(panel->baselinePaths());
        if (!panel->trainingLogPath().isEmpty())
            document.trainingLogPaths = absolute({ panel->trainingLogPath() });
    }
    return document;
}

bool MainWindow::saveScenarioTo(const QString& path)
{
    const ScenarioDocument document = currentDocument();
    QString error;
    if (!saveScenarioFile(path, document, &error)) {
        tell(error, true);
        return false;
    }
    m_scenarioPath = path;
    m_history->markSaved();
    updateTitle();
    addRecentFile(path);
    tell(tr("Saved the scenario to %1.").arg(QDir::toNativeSeparators(path)));
    return true;
}

bool MainWindow::saveScenarioInteractively(bool askForName)
{
    QString path = m_scenarioPath;
    if (askForName || path.isEmpty())
        path = QFileDialog::getSaveFileName(this, tr("Save scenario"),
            path.isEmpty() ? QDir::home().filePath(QStringLiteral("scenario.mfu.json")) : path,
            tr("MFU Explorer scenario (*.json)"));
    if (path.isEmpty())
        return false;
    if (!saveScenarioTo(path)) {
        QMessageBox::warning(this, tr("Save failed"), m_lastMessage);
        return false;
    }
    return true;
}

QUndoStack* MainWindow::undoStack() const
{
    return m_history->stack();
}

void MainWindow::updateTitle()
{
    // "[*]" is where Qt shows the modified marker (setWindowModified, driven by the undo stack's clean state).
    setWindowTitle(m_scenarioPath.isEmpty()
            ? QStringLiteral("MFU Explorer[*]")
            : QStringLiteral("%1[*] - MFU Explorer").arg(QFileInfo(m_scenarioPath).fileName()));
}

void MainWindow::tell(const QString& message, bool persistent)
{
    m_lastMessage = message;
    // A message longer than the bar (a path, a copied command) loses its middle, not its end at the window's edge.
    QString shown = message;
    if (statusBar()->isVisible()) {
        const auto* activity = statusBar()->findChild<QWidget*>(QStringLiteral("statusActivity"));
        const int room = statusBar()->width() - (activity && activity->isVisible() ? activity->width() : 0) - 24;
        shown = statusBar()->fontMetrics().elidedText(message, Qt::ElideMiddle, std::max(room, 80));
    }
    statusBar()->showMessage(shown, persistent ? 0 : 8000);
}

void MainWindow::saveWindowState() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("mainWindow/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("mainWindow/state"), saveState(kWindowStateVersion));
    settings.setValue(QStringLiteral("mainWindow/stateVersion"), kWindowStateVersion);
}

void MainWindow::restoreWindowState()
{
    QSettings settings;
    if (settings.value(QStringLiteral("mainWindow/stateVersion")).toInt() != kWindowStateVersion)
        return;
    restoreGeometry(settings.value(QStringLiteral("mainWindow/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("mainWindow/state")).toByteArray(), kWindowStateVersion);
}

bool MainWindow::resolveWorkADemoReplaces(bool filesLoaded)
{
    if (!isWindowModified() && !filesLoaded)
        return true;
    const QMessageBox::StandardButton answer = m_demoPrompt(filesLoaded);
    return answer == QMessageBox::Discard || (answer == QMessageBox::Save && saveScenarioInteractively(false));
}

bool MainWindow::resolveUnsavedChanges()
{
    if (!isWindowModified())
        return true;
    const QMessageBox::StandardButton answer = m_unsavedChangesPrompt();
    return answer == QMessageBox::Discard || (answer == QMessageBox::Save && saveScenarioInteractively(false));
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!resolveUnsavedChanges()) {
        event->ignore();
        return;
    }
    saveWindowState();
    event->accept();
}

} // namespace mfu::app
