#include "widgets/jobs/activity.h"

#include <utility>

namespace mfu::widgets {

Activity::Activity(std::function<void()> cancel, QObject* parent)
    : QObject(parent)
    , m_cancel(std::move(cancel))
{
}

void Activity::update(const QString& label, bool busy, double fraction)
{
    fraction = fraction < 0 ? 0 : (fraction > 1 ? 1 : fraction);
    if (label == m_label && busy == m_busy && fraction == m_fraction)
        return;
    m_label = label;
    m_busy = busy;
    m_fraction = fraction;
    emit changed();
}

void Activity::cancel()
{
    if (m_busy && m_cancel)
        m_cancel();
}

} // namespace mfu::widgets
