#pragma once
// MainWindow: the scenario editor in a dock, the panels in tabs, File menu, recent files, window state, drag and
// drop. Every way of opening a file (menu, recent list, command line, drop) ends in openFiles(), which routes by
// content. Adding a panel is one addPanel() line in the constructor.
#include <QMainWindow>
#include <QStringList>

#include "core/scenario_file.h"

class QLabel;
class QMenu;
class QTabWidget;

namespace mfu::widgets {
class ChartView;
class ScenarioEditor;
class ScenarioModel;
} // namespace mfu::widgets

namespace mfu::app {

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
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
    // Writes the scenario (with the cost inputs and traces of the file it came from) through QSaveFile.
    bool saveScenarioTo(const QString& path);
    QStringList recentFiles() const;
    QString lastMessage() const { return m_lastMessage; }

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void createMenus();
    void chooseAndOpenFiles();
    void exportChartInteractively();
    void saveScenarioInteractively(bool askForName);
    bool openFile(const QString& path);
    void addRecentFile(const QString& path);
    void rebuildRecentMenu();
    void tell(const QString& message, bool persistent = false);
    void saveWindowState() const;
    void restoreWindowState();

    widgets::ScenarioModel* m_scenario = nullptr;
    widgets::ScenarioEditor* m_editor = nullptr;
    QTabWidget* m_tabs = nullptr;
    QMenu* m_recentMenu = nullptr;
    QString m_lastMessage;
    QString m_scenarioPath; // where Save writes; empty until opened or saved
    ScenarioDocument m_documentExtras;
};

} // namespace mfu::app
