#pragma once
// A whole-number spin box that takes what people type: "2k", "16,384", "1.5M" (core/number_parse.h). It never
// refuses a key: text it cannot take yet is Intermediate, so the field shows what was typed and the editor can say
// why it is not accepted, instead of a character silently vanishing. Keyboard tracking is off: the value (and
// valueChanged) changes on Enter, focus-out or the arrows, so half-typed numbers never reach the scenario; on
// focus-out with unusable text the last valid value comes back.
#include <QSpinBox>

#include <optional>

namespace mfu::widgets {

class QuantitySpinBox : public QSpinBox {
    Q_OBJECT
public:
    explicit QuantitySpinBox(QWidget* parent = nullptr);

    // The typed text as a count in range, or nullopt (prefix and suffix ignored).
    std::optional<int> typedValue() const;
    // `text` as a number, in range or not (prefix, suffix and group separators ignored); nullopt when it is none.
    // What an editor names when it refuses "150" in a 0-99 field.
    std::optional<double> numberIn(const QString& text) const;
    // For lengths of sequences and documents: "2k" is 2,048 tokens, as contexts are named (core/number_parse.h).
    void setCountsTokensInSequence(bool on) { m_countsTokensInSequence = on; }

protected:
    QValidator::State validate(QString& input, int& pos) const override;
    int valueFromText(const QString& text) const override;

private:
    std::optional<int> parse(const QString& text) const;
    bool m_countsTokensInSequence = false;
};

} // namespace mfu::widgets
