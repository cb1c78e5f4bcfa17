#include "widgets/trace/straggler_view.h"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <numeric>

#include "core/trace/cross_rank.h"
#include "widgets/charts/category_palette.h"
#include "widgets/charts/chart_view.h"
#include "widgets/trace/chart_table_page.h"
#include "widgets/trace/step_time_box_plot.h"
#include "widgets/trace/trace_charts.h"

namespace mfu::widgets {

namespace {

constexpr int kMostCollectiveRows = 1000; // the longest waits; a run of thousands of calls would drown them
constexpr int kMostRankCategories = 32; // rank labels on the wait chart's axis beyond this crowd: numbers instead

} // namespace

StragglerView::StragglerView(QWidget* parent)
    : QWidget(parent)
    , m_boxPlot(new StepTimeBoxPlot)
    , m_waitChart(new ChartView)
    , m_summary(new QLabel)
    , m_collectives(new QStandardItemModel(this))
    , m_collectiveView(new QTableView)
{
    m_boxPlot->setObjectName(QStringLiteral("stepTimeBoxPlot"));
    m_waitChart->setObjectName(QStringLiteral("collectiveWaitChart"));
    m_waitChart->setAccessibleName(tr("Wait at collectives per rank"));
    m_summary->setObjectName(QStringLiteral("collectiveWaitSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_collectiveView->setObjectName(QStringLiteral("collectiveTable"));
    m_collectiveView->setAccessibleName(tr("Collectives with the longest waits"));
    m_collectiveView->setModel(m_collectives);
    m_collectiveView->verticalHeader()->setVisible(false);
    m_collectiveView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_collectiveView->setSortingEnabled(true);
    m_collectives->setSortRole(Qt::UserRole);
    m_collectiveView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_collectiveView->horizontalHeader()->setStretchLastSection(true);

    auto* charts = new QSplitter(Qt::Horizontal);
    charts->addWidget(m_boxPlot);
    charts->addWidget(m_waitChart);
    charts->setStretchFactor(0, 3);
    charts->setStretchFactor(1, 2);
    auto* waits = new QWidget;
    auto* waitsLayout = new QVBoxLayout(waits);
    waitsLayout->setContentsMargins(0, 0, 0, 0);
    waitsLayout->addWidget(m_summary);
    waitsLayout->addWidget(m_collectiveView, 1);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(charts);
    split->addWidget(waits);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);
    clear();
}

void StragglerView::clear()
{
    setRun({});
}

QString StragglerView::summaryText() const
{
    return m_summary->text();
}

void StragglerView::setRun(const trace::RunAnalysis& run)
{
    m_boxPlot->setStepTimes(trace::stepTimesPerRank(run));
    m_collectives->clear();
    m_collectives->setHorizontalHeaderLabels(
        { tr("Collective #"), tr("Category"), tr("Waited for"), tr("Longest wait (ms)"), tr("Mean wait (ms)") });
    m_waitChart->clearSeries();
    m_waitChart->setTitle(tr("Wait at collectives"));
    m_waitChart->setXAxis(tr("Rank"), {});
    m_waitChart->setYAxis(tr("Wait, all analysed steps"), QStringLiteral("ms"));
    if (run.ranks.size() < 2) {
        m_summary->setText(run.ranks.empty()
                ? tr("Open a run of several ranks (File > Open Folder of Ranks..., or one file per rank) to see who "
                     "waits for whom.")
                : tr("One rank: collective wait compares ranks; open one file per rank, or a folder of them."));
        m_waitChart->showEmpty(run.ranks.empty() ? tr("Open a run of several ranks to see who waits for whom.")
                                                 : tr("One rank waits for no other: open one file per rank."));
        return;
    }
    const trace::CollectiveWaits w = trace::collectiveWaits(run);
    const QLocale locale;

    QVector<double> x, y;
    QStringList names;
    for (size_t i = 0; i < w.ranks.size(); ++i) {
        x << static_cast<double>(i);
        y << w.ranks[i].waitSeconds * 1e3;
        names << QString::number(w.ranks[i].rank);
    }
    if (names.size() <= kMostRankCategories)
        m_waitChart->setCategories(names);
    else
        m_waitChart->setXAxis(tr("Rank (position in the run)"), {});
    m_waitChart->addBars(tr("Waited for the last rank"), x, y);
    m_waitChart->rescale();

    if (w.collectives.empty()) {
        m_summary->setText(tr("No collective matched on every rank (%n call(s) unmatched): the ranks ran no "
                              "communication kernels in the analysed steps, or their schedules differ from the first.",
            nullptr, static_cast<int>(w.unmatched)));
        return;
    }
    const auto last = std::max_element(w.ranks.begin(), w.ranks.end(),
        [](const trace::RankWait& a, const trace::RankWait& b) { return a.timesSlowest < b.timesSlowest; });
    const double allWait = std::accumulate(
        w.ranks.begin(), w.ranks.end(), 0.0, [](double sum, const trace::RankWait& r) { return sum + r.waitSeconds; });
    m_summary->setText(
        tr("%1 collectives matched on every rank (%2 calls left unmatched). Rank %3 started last most "
           "often, in %4 of them. All ranks together waited %5 ms for the last one to arrive; a rank's "
           "wait is the last rank's start minus its own, on the hosts' clocks.")
            .arg(locale.toString(static_cast<qulonglong>(w.collectives.size())),
                locale.toString(static_cast<qulonglong>(w.unmatched)), QString::number(last->rank),
                locale.toString(static_cast<qulonglong>(last->timesSlowest)), locale.toString(allWait * 1e3, 'f', 3)));

    std::vector<size_t> order(w.collectives.size());
    std::iota(order.begin(), order.end(), size_t { 0 });
    std::stable_sort(order.begin(), order.end(),
        [&w](size_t a, size_t b) { return w.collectives[a].maxWaitSeconds > w.collectives[b].maxWaitSeconds; });
    order.resize(std::min(order.size(), static_cast<size_t>(kMostCollectiveRows)));
    for (size_t i : order) {
        const trace::CollectiveWait& c = w.collectives[i];
        auto* category = new QStandardItem(categoryLabel(c.category));
        category->setData(categoryColour(c.category), Qt::DecorationRole);
        category->setData(categoryLabel(c.category), Qt::UserRole);
        category->setEditable(false);
        auto* slowest = new QStandardItem(tr("rank %1").arg(c.slowestRank));
        slowest->setData(c.slowestRank, Qt::UserRole);
        slowest->setEditable(false);
        m_collectives->appendRow({ sortableNumber(static_cast<double>(c.index), 0), category, slowest,
            sortableNumber(c.maxWaitSeconds * 1e3, 3), sortableNumber(c.meanWaitSeconds * 1e3, 3) });
    }
    m_collectiveView->sortByColumn(3, Qt::DescendingOrder);
}

} // namespace mfu::widgets
