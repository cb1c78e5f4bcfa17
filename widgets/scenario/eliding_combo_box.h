#pragma once
// A combo box whose current text, when the box is narrower than it, is elided in the middle instead of cut at the
// right: preset names differ at their end ("NVIDIA Tesla V100 SXM2 16GB" and "... 32GB"), and the scenario dock is
// narrow at 1280x720. The whole text is its tooltip, and its list opens as wide as its longest entry.
#include <QComboBox>

namespace mfu::widgets {

class ElidingComboBox : public QComboBox {
    Q_OBJECT
public:
    explicit ElidingComboBox(QWidget* parent = nullptr);
    // The current text as painted at the box's present width.
    QString displayedText() const;
    void showPopup() override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QRect textRect() const;
};

} // namespace mfu::widgets
