#include "widgets/scenario/quantity_spin_box.h"

#include <QLineEdit>

#include <cmath>

#include "core/number_parse.h"

namespace mfu::widgets {

QuantitySpinBox::QuantitySpinBox(QWidget* parent)
    : QSpinBox(parent)
{
    setKeyboardTracking(false);
}

std::optional<int> QuantitySpinBox::parse(const QString& text) const
{
    const auto v = numberIn(text);
    if (!v || *v != std::floor(*v) || *v < minimum() || *v > maximum())
        return std::nullopt;
    return static_cast<int>(*v);
}

std::optional<double> QuantitySpinBox::numberIn(const QString& text) const
{
    QString t = text;
    if (!prefix().isEmpty() && t.startsWith(prefix()))
        t.remove(0, prefix().size());
    if (!suffix().isEmpty() && t.endsWith(suffix()))
        t.chop(suffix().size());
    // The locale's group separator (what setGroupSeparatorShown writes) as well as the ones parseQuantity knows.
    t.remove(locale().groupSeparator());
    const std::string typed = t.trimmed().toStdString();
    return m_countsTokensInSequence ? parseSequenceLength(typed, NumberText::Lenient)
                                    : parseQuantity(typed, NumberText::Lenient);
}

std::optional<int> QuantitySpinBox::typedValue() const
{
    return parse(lineEdit()->text());
}

QValidator::State QuantitySpinBox::validate(QString& input, int&) const
{
    return parse(input) ? QValidator::Acceptable : QValidator::Intermediate;
}

int QuantitySpinBox::valueFromText(const QString& text) const
{
    return parse(text).value_or(value());
}

} // namespace mfu::widgets
