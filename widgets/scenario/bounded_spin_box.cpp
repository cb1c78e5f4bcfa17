#include "widgets/scenario/bounded_spin_box.h"

#include <QLineEdit>

#include <algorithm>
#include <cmath>

#include "core/number_format.h"
#include "widgets/qt_text.h"

namespace mfu::widgets {

BoundedSpinBox::BoundedSpinBox(QWidget* parent)
    : QDoubleSpinBox(parent)
{
    setKeyboardTracking(false);
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

bool BoundedSpinBox::typedAcceptable() const
{
    QString text = lineEdit()->text();
    int pos = 0;
    return validate(text, pos) == QValidator::Acceptable;
}

QString BoundedSpinBox::entryRule(const QString& unit) const
{
    static const char* const kDecimals[] = { "no decimals", "one decimal", "two decimals", "three decimals" };
    const int d = decimals();
    const QString kept = d < static_cast<int>(std::size(kDecimals)) ? tr(kDecimals[d]) : tr("%1 decimals").arg(d);
    return tr("from %1 to %2%3, with at most %4")
        .arg(qs(formatNumber(minimum())), qs(formatNumber(maximum())), unit, kept);
}

bool BoundedSpinBox::keepsAllDecimalsOf(double value) const
{
    const double scaled = value * std::pow(10.0, decimals());
    return std::abs(scaled - std::round(scaled)) <= 1e-9 * std::max(1.0, std::abs(scaled));
}

QValidator::State BoundedSpinBox::validate(QString& input, int& pos) const
{
    const QValidator::State base = QDoubleSpinBox::validate(input, pos);
    if (base == QValidator::Acceptable)
        return base;
    // E notation ("2e3"), which Qt's validator refuses, is taken like the figure written out.
    const std::optional<double> typed = parse(input);
    if (typed && *typed >= minimum() && *typed <= maximum() && keepsAllDecimalsOf(*typed))
        return QValidator::Acceptable;
    // Anything else stays in the field as typed, unapplied (typedAcceptable says so), instead of losing the keystroke:
    // a number beyond the range, a decimal more than the field keeps, a letter. Leaving the field brings the last
    // valid value back.
    return QValidator::Intermediate;
}

double BoundedSpinBox::valueFromText(const QString& text) const
{
    const std::optional<double> typed = parse(text);
    return typed ? *typed : QDoubleSpinBox::valueFromText(text);
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
