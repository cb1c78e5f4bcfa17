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

// Only the height follows the width, so the layout settles after one more pass. The height is fixed, not only a
// minimum: a form estimates a wrapping row at a narrower width than it then gives the label (one line more than the
// text needs, drawn as a blank line under the reason), and a widget's maximum height caps that estimate.
void ReasonLabel::fitHeight()
{
    const int needed = text().isEmpty() ? 0 : heightForWidth(width());
    if (needed > 0 && (needed != minimumHeight() || needed != maximumHeight()))
        setFixedHeight(needed);
}

} // namespace mfu::widgets
