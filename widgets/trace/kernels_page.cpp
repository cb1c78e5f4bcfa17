#include "widgets/trace/kernels_page.h"

#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QShortcut>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include "core/trace/cross_rank.h"
#include "widgets/trace/kernel_diff_model.h"
#include "widgets/trace/top_kernels_model.h"

namespace mfu::widgets {

KernelsPage::KernelsPage(QWidget* parent)
    : QWidget(parent)
    , m_kernels(new TopKernelsModel(this))
    , m_diff(new KernelDiffModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
{
    m_proxy->setSourceModel(m_kernels);
    m_proxy->setSortRole(TopKernelsModel::SortRole);
    m_proxy->setFilterKeyColumn(-1); // name and category
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_filter = new QLineEdit;
    m_filter->setObjectName(QStringLiteral("kernelFilter"));
    m_filter->setAccessibleName(tr("Filter the top kernels"));
    m_filter->setPlaceholderText(tr("Filter kernels by name or category (e.g. gemm, nccl, flash)"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
    m_view = new QTableView;
    m_view->setObjectName(QStringLiteral("kernelTable"));
    m_view->setAccessibleName(tr("Top kernels"));
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(TopKernelsModel::TotalMs, Qt::DescendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setWordWrap(false);
    // Kernel names share long prefixes (nvjet_sm90_tst_..., cutlass::...) and differ at the end: elided in the middle,
    // two GEMMs of different tiles stay two names. The whole name is the tooltip.
    m_view->setTextElideMode(Qt::ElideMiddle);
    m_view->verticalHeader()->setVisible(false);
    // The name takes what the numbers leave; numbers and categories are never elided.
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setSectionResizeMode(TopKernelsModel::Name, QHeaderView::Stretch);
    auto* copy = new QShortcut(QKeySequence::Copy, m_view, nullptr, nullptr, Qt::WidgetWithChildrenShortcut);
    connect(copy, &QShortcut::activated, this, &KernelsPage::copySelected);
    auto* hint = new QLabel(tr("Click a header to sort; Ctrl+C copies the selected rows (all rows when none is "
                               "selected) as tab-separated text."));
    hint->setWordWrap(true);
    m_note = new QLabel;
    m_note->setObjectName(QStringLiteral("kernelTableNote"));
    m_note->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_note);
    layout->addWidget(m_filter);
    layout->addWidget(m_view, 1);
    layout->addWidget(hint);
    show({});
}

QString KernelsPage::note() const
{
    return m_note->text();
}

void KernelsPage::copySelected() const
{
    QApplication::clipboard()->setText(selectedRowsAsTsv(m_proxy, m_view->selectionModel()));
}

void KernelsPage::show(const TraceSelection& selection)
{
    const bool diff = selection.comparing();
    const trace::RankAnalysis* rank = selection.selectedRank();
    m_kernels->setKernels(rank ? rank->topKernels : std::vector<trace::KernelStat> {});
    QAbstractItemModel* wanted = diff ? static_cast<QAbstractItemModel*>(m_diff) : m_kernels;
    m_diff->setRows(diff ? trace::kernelDiff(selection.baseline->analysis, selection.run->analysis)
                         : std::vector<trace::KernelDiffRow> {});
    if (m_proxy->sourceModel() != wanted) {
        m_proxy->setSourceModel(wanted);
        QHeaderView* header = m_view->horizontalHeader();
        header->setSectionResizeMode(QHeaderView::ResizeToContents);
        header->setSectionResizeMode(0, QHeaderView::Stretch);
        // The diff opens sorted by the size of the change (core's order), the top kernels by their total time.
        m_view->sortByColumn(
            diff ? int { KernelDiffModel::ChangeMs } : int { TopKernelsModel::TotalMs }, Qt::DescendingOrder);
    }
    if (diff) {
        auto extent = [](const trace::RunAnalysis& a) {
            size_t steps = 0;
            for (const auto& r : a.ranks)
                steps += r.steps.size();
            return tr("%n rank(s), ", nullptr, static_cast<int>(a.ranks.size()))
                + tr("%n analysed step(s) in all", nullptr, static_cast<int>(steps));
        };
        m_note->setText(tr("Kernel diff against the baseline, all ranks pooled, as `trace --compare` prints it: "
                           "times per analysed step, each rank's over its steps, summed over the ranks (baseline: "
                           "%1; this run: %2), so runs profiled over different step counts compare; calls over all "
                           "the steps; largest change first; a kernel renamed between the runs is one row naming "
                           "both. It does not follow the selected rank.")
                            .arg(extent(selection.baseline->analysis), extent(selection.run->analysis)));
    } else if (rank) {
        m_note->setText(tr("Kernels of rank %1 over its analysed steps. Open a baseline for comparison to see the "
                           "change per kernel.")
                            .arg(rank->rank));
    } else {
        m_note->setText(selection.run ? QString() : tr("Open a trace to list its kernels."));
    }
}

} // namespace mfu::widgets
