#pragma once
// One rule for the reason under a spin box that refuses what is typed (BoundedSpinBox, QuantitySpinBox), in every
// panel: while the text would not be applied the label says why; leaving the field (Enter or focus-out) brings the
// last valid value back, and the label then names the text that was not applied, beside the same reason, so the
// field never changes without a word and the word never contradicts the figure the field shows. The next edit, or
// a new figure in the field, replaces it. The reason is also the field's accessible description, read with it rather
// than only seen beside it.
#include <QString>

#include <functional>

class QAbstractSpinBox;

namespace mfu::widgets {

class ReasonLabel;

// `acceptable`: whether the field's text as it stands would be applied (BoundedSpinBox::typedAcceptable, a
// QuantitySpinBox's typedValue). `reason`: what to enter instead, as shown while typing, asked at each refusal (a
// field's range may have moved since it was built).
void attachEntryReason(
    QAbstractSpinBox* field, ReasonLabel* label, std::function<bool()> acceptable, std::function<QString()> reason);

// The label's text once leaving a field has put back its last valid value instead of `refusedText` (the typed text
// without prefix or suffix): "Not applied: “150”." followed by the reason.
QString notAppliedReason(const QString& refusedText, const QString& reason);

} // namespace mfu::widgets
