#include "widgets/scenario/entry_reason.h"

#include "widgets/scenario/reason_label.h"

#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSpinBox>

#include <utility>

namespace mfu::widgets {

namespace {

double valueOf(const QAbstractSpinBox* field)
{
    if (const auto* whole = qobject_cast<const QSpinBox*>(field))
        return whole->value();
    if (const auto* decimal = qobject_cast<const QDoubleSpinBox*>(field))
        return decimal->value();
    return 0;
}

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

EntryReason::EntryReason(
    QAbstractSpinBox* field, ReasonLabel* label, std::function<bool()> acceptable, std::function<QString()> reason)
    : QObject(label)
    , m_field(field)
    , m_label(label)
    , m_acceptable(std::move(acceptable))
    , m_reason(std::move(reason))
{
    label->setField(field);
    connect(field->findChild<QLineEdit*>(), &QLineEdit::textEdited, this, &EntryReason::onTextEdited);
    // By editingFinished the spin box has already put its last valid value back in place of refused text.
    connect(field, &QAbstractSpinBox::editingFinished, this, &EntryReason::onEditingFinished);
    // A new figure in the field (the scenario changed, a step of the arrows) has nothing left to explain.
    if (auto* whole = qobject_cast<QSpinBox*>(field))
        connect(whole, &QSpinBox::valueChanged, this, &EntryReason::clear);
    else if (auto* decimal = qobject_cast<QDoubleSpinBox*>(field))
        connect(decimal, &QDoubleSpinBox::valueChanged, this, &EntryReason::clear);
}

void EntryReason::clear()
{
    m_refused.reset();
    show(QString());
}

void EntryReason::onTextEdited()
{
    if (m_acceptable()) {
        clear();
        return;
    }
    m_refused = Refusal { cleanTextOf(m_field), m_reason() };
    m_keptValue = valueOf(m_field);
    show(m_refused->reason);
}

// Leaving the field puts the kept value back, which is no new figure: the refusal then stays said.
void EntryReason::fieldSet()
{
    if (m_refused && valueOf(m_field) != m_keptValue)
        clear();
}

void EntryReason::onEditingFinished()
{
    if (m_refused)
        show(notAppliedReason(m_refused->text, m_refused->reason));
}

// Text another rule put on the label since (a layout problem) is left alone when this one has nothing to say.
void EntryReason::show(const QString& text)
{
    if (text.isEmpty() && m_label->text() != m_shown) {
        m_shown.clear(); // what this rule showed is gone already
        return;
    }
    m_label->showReason(text);
    m_shown = text;
}

EntryReason* attachEntryReason(
    QAbstractSpinBox* field, ReasonLabel* label, std::function<bool()> acceptable, std::function<QString()> reason)
{
    return new EntryReason(field, label, std::move(acceptable), std::move(reason));
}

} // namespace mfu::widgets
