#pragma once
// Activity: what a panel is doing in the background (a trace import, the planner search), as one line of text, a
// progress fraction and a way to cancel it. A panel owns one and keeps it up to date from its BackgroundJobs; the
// main window's status bar (StatusActivity) mirrors it, so work started on one panel shows its progress and its
// Cancel button whichever panel the user is looking at.
#include <QObject>
#include <QString>

#include <functional>

namespace mfu::widgets {

class Activity : public QObject {
    Q_OBJECT
public:
    Activity(std::function<void()> cancel, QObject* parent = nullptr);

    // Emits changed() only when something the status bar shows is different.
    void update(const QString& label, bool busy, double fraction);
    void cancel();

    QString label() const { return m_label; }
    bool isBusy() const { return m_busy; }
    double fraction() const { return m_fraction; }

signals:
    void changed();

private:
    std::function<void()> m_cancel;
    QString m_label;
    bool m_busy = false;
    double m_fraction = 0;
};

} // namespace mfu::widgets
