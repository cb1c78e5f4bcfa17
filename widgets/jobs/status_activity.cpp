#include "widgets/jobs/status_activity.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTimer>

#include "widgets/jobs/activity.h"

namespace mfu::widgets {

StatusActivity::StatusActivity(QWidget* parent)
    : QWidget(parent)
{
    m_label = new QLabel;
    m_bar = new QProgressBar;
    m_bar->setRange(0, 1000);
    m_bar->setMaximumWidth(180);
    m_bar->setAccessibleName(tr("Background work progress"));
    m_cancel = new QPushButton(tr("Cancel"));
    m_cancel->setAccessibleName(tr("Cancel the background work"));
    m_cancel->setToolTip(tr("Stop it; what was shown before stays"));
    m_cancel->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    // Only as wide as its parts: the status bar's message keeps the rest.
    setSizePolicy(QSizePolicy::Maximum, QSizePolicy::Fixed);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_label);
    layout->addWidget(m_bar);
    layout->addWidget(m_cancel);
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        if (m_shown)
            m_shown->cancel();
    });
    m_delay = new QTimer(this);
    m_delay->setSingleShot(true);
    m_delay->setInterval(400);
    connect(m_delay, &QTimer::timeout, this, &StatusActivity::refresh);
    setVisible(false);
}

void StatusActivity::watch(Activity* activity)
{
    m_watched.append(activity);
    connect(activity, &Activity::changed, this, [this] {
        // A newly busy activity waits out the delay; one already shown updates at once.
        if (m_shown || !firstBusy())
            refresh();
        else if (!m_delay->isActive())
            m_delay->start();
    });
}

void StatusActivity::setShowDelay(int milliseconds)
{
    m_delay->setInterval(milliseconds);
}

Activity* StatusActivity::firstBusy() const
{
    for (const auto& activity : m_watched)
        if (activity && activity->isBusy())
            return activity;
    return nullptr;
}

void StatusActivity::refresh()
{
    m_shown = firstBusy();
    setVisible(m_shown != nullptr);
    if (!m_shown)
        return;
    m_label->setText(m_shown->label());
    m_bar->setValue(static_cast<int>(m_shown->fraction() * 1000));
    m_bar->setFormat(QStringLiteral("%p%"));
}

} // namespace mfu::widgets
