#pragma once
// StatusActivity: the status bar's progress bar and Cancel button for whatever runs in the background. It shows the
// first busy Activity it watches, and only once that has run for a moment: the sweeps and the planner rerun on every
// edit in a few milliseconds, and a bar flashing on each keystroke would be noise.
#include <QList>
#include <QPointer>
#include <QWidget>

#include "widgets/jobs/activity.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QTimer;

namespace mfu::widgets {

class StatusActivity : public QWidget {
    Q_OBJECT
public:
    explicit StatusActivity(QWidget* parent = nullptr);

    void watch(Activity* activity);
    // How long an activity must have been busy before it is shown.
    void setShowDelay(int milliseconds);

    // The activity shown now (nullptr when the bar is hidden); for tests.
    Activity* shown() const { return m_shown; }
    QProgressBar* progressBar() const { return m_bar; }
    QPushButton* cancelButton() const { return m_cancel; }

private:
    void refresh();
    Activity* firstBusy() const;

    QList<QPointer<Activity>> m_watched;
    QPointer<Activity> m_shown;
    QLabel* m_label = nullptr;
    QProgressBar* m_bar = nullptr;
    QPushButton* m_cancel = nullptr;
    QTimer* m_delay = nullptr;
};

} // namespace mfu::widgets
