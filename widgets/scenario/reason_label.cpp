#include "widgets/scenario/reason_label.h"

#include <QResizeEvent>

namespace mfu::widgets {

ReasonLabel::ReasonLabel(QWidget* parent)
    : QLabel(parent)
{
    setWordWrap(true);
    setVisible(false);
    setForegroundRole(QPalette::Link); // stands out in light and dark palettes
}

void ReasonLabel::showReason(const QString& text)
{
    setText(text);
    setVisible(!text.isEmpty());
    fitHeight();
    if (m_field)
        m_field->setAccessibleDescription(text);
}

void ReasonLabel::resizeEvent(QResizeEvent* event)
{
    QLabel::resizeEvent(event);
    if (event->size().width() != event->oldSize().width())
        fitHeight();
}

// Only the height follows the width, so the layout settles after one more pass.
void ReasonLabel::fitHeight()
{
    const int needed = text().isEmpty() ? 0 : heightForWidth(width());
    if (needed > 0 && needed != minimumHeight())
        setMinimumHeight(needed);
}

} // namespace mfu::widgets
