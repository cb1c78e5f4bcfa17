#include "widgets/trace/ranks_page.h"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

#include "core/trace/rank_file_labels.h"
#include "widgets/number_text.h"
#include "widgets/trace/trace_charts.h"

namespace mfu::widgets {

namespace {

} // namespace

RanksPage::RanksPage(QWidget* parent)
    : QWidget(parent)
    , m_ranks(new QStandardItemModel(this))
{
    auto* view = new QTableView;
    view->setObjectName(QStringLiteral("rankTable"));
    view->setAccessibleName(tr("Per-rank step time"));
    view->setModel(m_ranks);
    view->verticalHeader()->setVisible(false);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // The file names are long and alike: the File column names each by what tells it apart (distinctFileLabels),
    // takes the width left and elides in the middle; the full path is its tooltip.
    view->setTextElideMode(Qt::ElideMiddle);
    m_view = view;
    m_slowest = new QLabel;
    m_slowest->setObjectName(QStringLiteral("slowestRank"));
    m_slowest->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_slowest);
    layout->addWidget(view, 1);
    show({});
}

void RanksPage::show(const TraceSelection& selection)
{
    m_ranks->clear();
    m_ranks->setHorizontalHeaderLabels({ tr("Rank"), tr("GPU"), tr("Steps"), tr("Mean step (ms)"),
        tr("Step std. dev. (ms)"), tr("Busy (%)"), tr("Idle (%)"), tr("Exposed comm. (ms/step)"), tr("File") });
    m_view->horizontalHeader()->setSectionResizeMode(kFileColumn, QHeaderView::Stretch);
    m_slowest->clear();
    if (!selection.run)
        return;
    const QLocale locale;
    const std::vector<std::string> fileLabels = trace::rankFileLabels(selection.run->analysis);
    size_t index = 0;
    for (const auto& r : selection.run->analysis.ranks) {
        const double n = std::max<double>(1, static_cast<double>(r.steps.size()));
        QList<QStandardItem*> row;
        auto number = [&](double v, int decimals) {
            auto* item = new QStandardItem(locale.toString(v, 'f', decimals));
            item->setData(v, Qt::UserRole);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            return item;
        };
        row << number(r.rank, 0) << new QStandardItem(r.gpuName ? QString::fromStdString(*r.gpuName) : tr("unknown"))
            << number(static_cast<double>(r.steps.size()), 0) << number(r.meanStepSeconds * 1e3, 3)
            << number(r.stepSpreadSeconds * 1e3, 3) << number(100 * r.total.share(r.total.busyNs), 1)
            << number(100 * r.total.share(r.total.idleNs()), 1)
            << number(static_cast<double>(r.total.exposedCommNs()) / 1e6 / n, 3)
            << new QStandardItem(QString::fromStdString(fileLabels[index++]));
        row.back()->setToolTip(QString::fromStdString(r.sourceFile));
        for (QStandardItem* item : row)
            item->setEditable(false);
        m_ranks->appendRow(row);
    }
    const auto& a = selection.run->analysis;
    // Of a larger job, only the ranks open are compared: said, since the slowest of 2 is not the job's.
    const int ranksOpen = static_cast<int>(a.ranks.size());
    const QString ofTheJob = ranksOpen < a.gpuCount()
        ? QLatin1Char(' ') + tr("Compared among the %1 open of the job's %2 ranks.").arg(ranksOpen).arg(a.gpuCount())
        : QString();
    if (a.straggler && a.straggler->standsOut)
        m_slowest->setText(
            tr("Slowest rank: %1, with %2 per step more %3 than the median rank (mean step over ranks %4).")
                .arg(a.straggler->rank)
                .arg(millisecondsText(a.straggler->excessSecondsPerStep), categoryLabel(a.straggler->cause),
                    millisecondsText(a.meanStepSeconds))
            + ofTheJob);
    else if (a.straggler)
        m_slowest->setText(tr("No rank stands out: rank %1 does the most computation, %2 per step more %3 than the "
                              "median rank, within its own steps' standard deviation (%4).")
                               .arg(a.straggler->rank)
                               .arg(millisecondsText(a.straggler->excessSecondsPerStep),
                                   categoryLabel(a.straggler->cause), millisecondsText(a.straggler->rankSpreadSeconds))
            + ofTheJob);
    else
        m_slowest->setText(tr("One rank: open one file per rank (or a folder of them) to compare ranks."));
}

} // namespace mfu::widgets
