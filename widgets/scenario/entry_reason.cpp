#include "widgets/scenario/entry_reason.h"

#include "widgets/scenario/reason_label.h"

#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSpinBox>

#include <memory>
#include <optional>
#include <utility>

namespace mfu::widgets {

namespace {

// The typed text without the field's prefix and suffix ("150", not "150 %").
QString cleanTextOf(const QAbstractSpinBox* field)
{
    if (const auto* whole = qobject_cast<const QSpinBox*>(field))
        return whole->cleanText();
    if (const auto* decimal = qobject_cast<const QDoubleSpinBox*>(field))
        return decimal->cleanText();
    return field->text().trimmed();
}

} // namespace

QString notAppliedReason(const QString& refusedText, const QString& reason)
{
    const QString what
        = refusedText.isEmpty() ? QObject::tr("an empty field") : QStringLiteral("\u201C%1\u201D").arg(refusedText);
    return QObject::tr("Not applied: %1. %2").arg(what, reason);
}

void attachEntryReason(
    QAbstractSpinBox* field, ReasonLabel* label, std::function<bool()> acceptable, std::function<QString()> reason)
{
    // The text refused at the last edit and the reason given for it; none once a figure is taken.
    struct Refusal {
        QString text;
        QString reason;
    };
    auto refused = std::make_shared<std::optional<Refusal>>();
    label->setField(field);
    auto* edit = field->findChild<QLineEdit*>();
    QObject::connect(edit, &QLineEdit::textEdited, label,
        [field, label, acceptable = std::move(acceptable), reason = std::move(reason), refused] {
            if (acceptable()) {
                refused->reset();
                label->showReason(QString());
            } else {
                *refused = Refusal { cleanTextOf(field), reason() };
                label->showReason((*refused)->reason);
            }
        });
    // By editingFinished the spin box has already put its last valid value back in place of refused text.
    QObject::connect(field, &QAbstractSpinBox::editingFinished, label, [label, refused] {
        if (*refused)
            label->showReason(notAppliedReason((*refused)->text, (*refused)->reason));
    });
    // A new figure in the field (the scenario changed, a step of the arrows) has nothing left to explain.
    auto cleared = [label, refused] {
        refused->reset();
        label->showReason(QString());
    };
    if (auto* whole = qobject_cast<QSpinBox*>(field))
        QObject::connect(whole, &QSpinBox::valueChanged, label, cleared);
    else if (auto* decimal = qobject_cast<QDoubleSpinBox*>(field))
        QObject::connect(decimal, &QDoubleSpinBox::valueChanged, label, cleared);
}

} // namespace mfu::widgets
