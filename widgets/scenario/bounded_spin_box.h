#pragma once
// A decimal spin box that never drops a keystroke and reads E notation ("2e3" is 2,000): a number beyond its range
// ("150" in a 0-100% field), a decimal more than the field keeps, or a letter stays in the field as typed
// (Intermediate, not Invalid, so Qt does not eat the "0"), is not applied, and typedAcceptable() says so, for a reason
// label beside it (attachEntryReason); on focus-out the last valid value comes back. Keyboard tracking is off, as for
// QuantitySpinBox: the value changes on Enter, focus-out or the arrows.
#include <QDoubleSpinBox>

#include <optional>

namespace mfu::widgets {

class BoundedSpinBox : public QDoubleSpinBox {
    Q_OBJECT
public:
    explicit BoundedSpinBox(QWidget* parent = nullptr);

    // Whether the text as it stands would be applied: a number in range, written out or in E notation, with at most
    // decimals() decimals (or the special value's text). Not so for "6.2505" in a three-decimal field, which stays in
    // the field unapplied.
    bool typedAcceptable() const;
    // The rule typedAcceptable holds the text to, from the field's own range and decimals, for a reason label:
    // "from 0 to 1,000,000, with at most one decimal"; `unit` follows the maximum ("%", " $/GPU-hour").
    QString entryRule(const QString& unit = {}) const;
    // Shows a value with no trailing zeros ("400 Gb/s", "6.25 Gb/s"), for a field whose decimals are there for the
    // odd value rather than for every one.
    void setTrimsTrailingZeros(bool on) { m_trimsTrailingZeros = on; }

protected:
    QValidator::State validate(QString& input, int& pos) const override;
    double valueFromText(const QString& text) const override;
    QString textFromValue(double value) const override;

private:
    std::optional<double> parse(const QString& text) const;
    // Whether `value` needs no more than decimals() decimals (6.25 in a three-decimal field; not 6.2505).
    bool keepsAllDecimalsOf(double value) const;
    bool m_trimsTrailingZeros = false;
};

} // namespace mfu::widgets
