#include "widgets/predict/lever_table.h"

#include <QHeaderView>
#include <QLocale>

#include "core/number_format.h"
#include "core/units.h"
#include "widgets/number_text.h"

namespace mfu::widgets {

namespace {

enum Column { Name, Now, Tokens, Mfu, Memory, ColumnCount };

QTableWidgetItem* cell(const QString& text, const QString& tip = {})
{
    auto* i = new QTableWidgetItem(text);
    i->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    if (!tip.isEmpty())
        i->setToolTip(tip);
    return i;
}

} // namespace

LeverTable::LeverTable(QWidget* parent)
    : QTableWidget(0, ColumnCount, parent)
{
    setObjectName(QStringLiteral("leverTable"));
    setAccessibleName(tr("Levers: the prediction with and without each"));
    setHorizontalHeaderLabels({ tr("Lever"), tr("Now"), tr("Useful tokens/s per GPU\nwith / without"),
        tr("MFU\nwith / without"), tr("Peak memory per GPU\nwith / without") });
    // Every column as wide as its widest cell or caption; a narrow window scrolls the table sideways instead of
    // cutting the last caption (stretching the last column cut "Peak memory per GPU" at 1280x720).
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    horizontalHeader()->setStretchLastSection(false);
    verticalHeader()->setVisible(false);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setWordWrap(false);
}

void LeverTable::showLevers(const std::vector<LeverEffect>& levers)
{
    setRowCount(0);
    if (levers.empty()) {
        setRowCount(1);
        setItem(0, Name, cell(tr("No prediction for this scenario: no levers to compare")));
        return;
    }
    const QLocale locale;
    setRowCount(static_cast<int>(levers.size()));
    for (int row = 0; row < rowCount(); ++row) {
        const LeverEffect& e = levers[static_cast<size_t>(row)];
        const LeverOutcome& on = e.with;
        const LeverOutcome& off = e.without;
        setItem(row, Name, cell(QString::fromStdString(leverName(e))));
        setItem(row, Now, cell(e.inScenario ? tr("on") : tr("off")));
        const double gain = e.usefulTokensGain();
        setItem(row, Tokens,
            cell(tr("%1 / %2 (%3%4)")
                     .arg(locale.toString(on.usefulTokensPerSecPerGpu, 'f', 0),
                         locale.toString(off.usefulTokensPerSecPerGpu, 'f', 0), gain >= 0 ? tr("+") : QString(),
                         percentText(gain)),
                tr("Tokens that train the model: processed tokens less the padding kept")));
        // An MFU the FLOP count would put above the peak is not shown (core/costmodel/physical_bounds.h).
        const auto mfuText
            = [](const std::optional<double>& m) { return m ? percentText(*m) : tr("\u2014 (above the peak)"); };
        setItem(row, Mfu, cell(tr("%1 / %2").arg(mfuText(on.mfu), mfuText(off.mfu))));
        QString memory
            = tr("%1 / %2 GiB").arg(on.peakMemoryBytes / kGiB, 0, 'f', 1).arg(off.peakMemoryBytes / kGiB, 0, 'f', 1);
        if (on.fits != off.fits)
            memory += on.fits ? tr(": fits only with it") : tr(": fits only without it");
        else if (!on.fits)
            memory += tr(": does not fit either way");
        setItem(row, Memory, cell(memory));
    }
}

} // namespace mfu::widgets
