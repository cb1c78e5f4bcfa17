#pragma once
// The reason shown under a field that refused an edit, in every editor (the Scenario dock, the Predict panel's
// parallelism fields, the Cost panel's job): one colour for "not applied, and why" (the palette's link colour, which
// stands out in light and dark palettes and is not the red of a figure that cannot be right), and a word-wrapped
// label whose height follows its text at the width it was given. A QFormLayout inside a QScrollArea sizes a row
// from the label's height for the width the label had when it was laid out first, so a reason that wraps to three lines
// at the editor's real width was cut to two, its first and last lines half shown.
#include <QLabel>
#include <QPointer>

namespace mfu::widgets {

class ReasonLabel : public QLabel {
    Q_OBJECT

public:
    explicit ReasonLabel(QWidget* parent = nullptr);
    // The field the reason is about: showReason makes the reason its accessible description too, read by screen
    // readers with the field, so the reason is not only a colour and a position.
    void setField(QWidget* field) { m_field = field; }
    // Shows the reason (hides the label for an empty one), makes room for all of its lines and describes the field.
    void showReason(const QString& text);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void fitHeight();
    QPointer<QWidget> m_field;
};

} // namespace mfu::widgets
