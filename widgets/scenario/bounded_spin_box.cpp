#include "widgets/scenario/bounded_spin_box.h"

#include <QLineEdit>

namespace mfu::widgets {

BoundedSpinBox::BoundedSpinBox(QWidget* parent)
    : QDoubleSpinBox(parent)
{
    setKeyboardTracking(false);
    // Said while typing; the reason stays after Enter or focus-out brings the last valid value back, until the next
    // edit, so the field never changes without a word.
    connect(lineEdit(), &QLineEdit::textEdited, this, [this] { emit typedChecked(typedAcceptable()); });
}

std::optional<double> BoundedSpinBox::parse(const QString& text) const
{
    QString t = text;
    if (!prefix().isEmpty() && t.startsWith(prefix()))
        t.remove(0, prefix().size());
    if (!suffix().isEmpty() && t.endsWith(suffix()))
        t.chop(suffix().size());
    t.remove(locale().groupSeparator());
    bool ok = false;
    const double v = locale().toDouble(t.trimmed(), &ok);
    return ok ? std::optional(v) : std::nullopt;
}

std::optional<double> BoundedSpinBox::typedNumber() const
{
    return parse(lineEdit()->text());
}

bool BoundedSpinBox::outOfRange() const
{
    const auto v = typedNumber();
    return v && (*v < minimum() || *v > maximum());
}

bool BoundedSpinBox::typedAcceptable() const
{
    QString text = lineEdit()->text();
    int pos = 0;
    return QDoubleSpinBox::validate(text, pos) == QValidator::Acceptable;
}

QValidator::State BoundedSpinBox::validate(QString& input, int& pos) const
{
    const QValidator::State base = QDoubleSpinBox::validate(input, pos);
    // A number beyond the range stays in the field (the reason label says why) instead of losing its last digit.
    if (base == QValidator::Invalid && parse(input))
        return QValidator::Intermediate;
    return base;
}

QString BoundedSpinBox::textFromValue(double value) const
{
    QString text = QDoubleSpinBox::textFromValue(value);
    const QString point = locale().decimalPoint();
    if (!m_trimsTrailingZeros || !text.contains(point))
        return text;
    while (text.endsWith(QLatin1Char('0')))
        text.chop(1);
    if (text.endsWith(point))
        text.chop(point.size());
    return text;
}

} // namespace mfu::widgets
