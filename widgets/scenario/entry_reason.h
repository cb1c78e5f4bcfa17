#pragma once
// One rule for the reason under a spin box that refuses what is typed (BoundedSpinBox, QuantitySpinBox), in every
// panel: while the text would not be applied the label says why; leaving the field (Enter or focus-out) brings the
// last valid value back, and the label then names the text that was not applied, beside the same reason, so the
// field never changes without a word and the word never contradicts the figure the field shows. The next edit, or
// a new figure in the field, replaces it, also one an editor sets with the field's signals blocked (the scenario
// changed elsewhere: a trace's micro-batch adopted; EntryReason::fieldSet). The reason is also the field's
// accessible description, read with it rather than only seen beside it.
#include <QObject>
#include <QString>

#include <functional>
#include <optional>

class QAbstractSpinBox;

namespace mfu::widgets {

class ReasonLabel;

// The refusal state of one field. It only ever takes back text it showed itself, so an editor may show other
// reasons on the same label (the Predict panel's layout problems) without this rule wiping them.
class EntryReason : public QObject {
    Q_OBJECT
public:
    EntryReason(
        QAbstractSpinBox* field, ReasonLabel* label, std::function<bool()> acceptable, std::function<QString()> reason);
    // Forgets the refused text and takes its reason off the label (an editor that put the scenario's value back).
    void clear();
    // An editor set the field from the scenario with its signals blocked (QSpinBox then says nothing, to the field's
    // line edit neither): a value other than the one the refusal kept is a new figure, and ends the refusal.
    void fieldSet();

private:
    void onTextEdited();
    void onEditingFinished();
    void show(const QString& text);

    struct Refusal {
        QString text;
        QString reason;
    };
    QAbstractSpinBox* m_field;
    ReasonLabel* m_label;
    std::function<bool()> m_acceptable;
    std::function<QString()> m_reason;
    std::optional<Refusal> m_refused; // the text refused at the last edit and its reason; none once a figure is taken
    double m_keptValue = 0; // the field's value when the text was refused: the one put back
    QString m_shown; // what this rule last put on the label
};

// `acceptable`: whether the field's text as it stands would be applied (BoundedSpinBox::typedAcceptable, a
// QuantitySpinBox's typedValue). `reason`: what to enter instead, as shown while typing, asked at each refusal (a
// field's range may have moved since it was built). The returned object belongs to the label.
EntryReason* attachEntryReason(
    QAbstractSpinBox* field, ReasonLabel* label, std::function<bool()> acceptable, std::function<QString()> reason);

// The label's text once leaving a field has put back its last valid value instead of `refusedText` (the typed text
// without prefix or suffix): "Not applied: “150”." followed by the reason.
QString notAppliedReason(const QString& refusedText, const QString& reason);

} // namespace mfu::widgets
