#include "widgets/scenario/eliding_combo_box.h"

#include <QAbstractItemView>
#include <QScrollBar>
#include <QStyleOptionComboBox>
#include <QStylePainter>

#include <algorithm>

namespace mfu::widgets {

ElidingComboBox::ElidingComboBox(QWidget* parent)
    : QComboBox(parent)
{
    connect(this, &QComboBox::currentTextChanged, this, [this](const QString& text) { setToolTip(text); });
}

QRect ElidingComboBox::textRect() const
{
    QStyleOptionComboBox opt;
    initStyleOption(&opt);
    return style()->subControlRect(QStyle::CC_ComboBox, &opt, QStyle::SC_ComboBoxEditField, this);
}

QString ElidingComboBox::displayedText() const
{
    return fontMetrics().elidedText(currentText(), Qt::ElideMiddle, textRect().width());
}

void ElidingComboBox::paintEvent(QPaintEvent*)
{
    // QComboBox's own painting clips the text at the field's right edge; this is the same drawing with the text
    // elided to the field first.
    QStylePainter painter(this);
    QStyleOptionComboBox opt;
    initStyleOption(&opt);
    painter.drawComplexControl(QStyle::CC_ComboBox, opt);
    opt.currentText = displayedText();
    painter.drawControl(QStyle::CE_ComboBoxLabel, opt);
}

void ElidingComboBox::showPopup()
{
    // The list as wide as its longest entry (it opens as wide as the box otherwise, cutting the same names).
    QAbstractItemView* list = view();
    const int widest = list->sizeHintForColumn(0) + list->verticalScrollBar()->sizeHint().width() + 8;
    list->setMinimumWidth(std::max(width(), widest));
    QComboBox::showPopup();
}

} // namespace mfu::widgets
