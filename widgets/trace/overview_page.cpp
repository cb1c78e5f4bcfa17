#include "widgets/trace/overview_page.h"

#include <QFileInfo>
#include <QLabel>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>

#include "core/trace/comparison.h"
#include "widgets/charts/chart_view.h"
#include "widgets/trace/mfu_figures.h"
#include "widgets/trace/rank_figures.h"

namespace mfu::widgets {

OverviewPage::OverviewPage(ScenarioModel* scenario, QWidget* parent)
    : QWidget(parent)
{
    m_figures = new RankFigures;
    m_mfu = new MfuFigures(scenario);
    auto* left = new QWidget;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    // MFU first: the figure a user opened the trace for, in view at 1280x720 without scrolling past the rank's
    // sentences.
    leftLayout->addWidget(m_mfu);
    leftLayout->addWidget(m_figures);
    leftLayout->addStretch();

    m_stepChart = new ChartView;
    m_stepChart->setObjectName(QStringLiteral("stepChart"));
    m_stepChart->setAccessibleName(tr("Step time by kernel category"));
    m_comparisonChart = new ChartView;
    m_comparisonChart->setObjectName(QStringLiteral("comparisonChart"));
    m_comparisonChart->setAccessibleName(tr("Baseline vs this run"));
    m_verdict = new QLabel;
    m_verdict->setObjectName(QStringLiteral("comparisonVerdict"));
    m_verdict->setWordWrap(true);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* comparison = new QWidget;
    auto* comparisonLayout = new QVBoxLayout(comparison);
    comparisonLayout->setContentsMargins(0, 0, 0, 0);
    comparisonLayout->addWidget(m_verdict);
    comparisonLayout->addWidget(m_comparisonChart, 1);
    m_comparisonHint = new QLabel(tr("Open a baseline (Open baseline...) to see its category shares beside this "
                                     "run's, with the change in percentage points (as in Figure 3 of Lambda's MFU "
                                     "paper)."));
    m_comparisonHint->setObjectName(QStringLiteral("comparisonHint"));
    m_comparisonHint->setWordWrap(true);
    m_comparisonHint->setAlignment(Qt::AlignCenter);
    auto* charts = new QSplitter(Qt::Vertical);
    charts->addWidget(m_stepChart);
    charts->addWidget(comparison);
    charts->addWidget(m_comparisonHint);
    // The step chart and the comparison share the height; the hint that stands in for the comparison takes only its
    // lines, so that at 1280x720 the step chart's bars are not squeezed under its legend.
    charts->setStretchFactor(0, 1);
    charts->setStretchFactor(1, 1);
    charts->setStretchFactor(2, 0);
    // The figures are sentences: at 1280x720 they need more height than the tab has, so they scroll instead of
    // being squeezed into clipped rows.
    auto* figuresScroll = new QScrollArea;
    figuresScroll->setObjectName(QStringLiteral("figuresScroll"));
    figuresScroll->setAccessibleName(tr("Figures of the selected rank"));
    figuresScroll->setWidget(left);
    figuresScroll->setWidgetResizable(true);
    figuresScroll->setFrameShape(QFrame::NoFrame);
    figuresScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(figuresScroll);
    split->addWidget(charts);
    split->setStretchFactor(0, 0);
    split->setStretchFactor(1, 1);
    split->setSizes({ 380, 620 }); // the figures are sentences: give them room to read
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);
    show({}, BreakdownUnit::Share);
}

void OverviewPage::setKnownHardware(const std::vector<HardwareSpec>& hardware)
{
    m_known = hardware;
    m_mfu->setKnownHardware(hardware);
}

void OverviewPage::show(const TraceSelection& selection, BreakdownUnit unit)
{
    const trace::RankAnalysis* rank = selection.selectedRank();
    if (rank) {
        fillStepChart(m_stepChart, *rank, unit);
    } else {
        m_stepChart->showEmpty(tr("Open a profiler trace (Kineto JSON or .json.gz, Nsight Systems SQLite) to see "
                                  "where its step time goes."));
        m_stepChart->setTitle(tr("Step time by kernel category"));
    }
    m_figures->show(rank, m_known);
    m_mfu->show(selection);
    showComparison(selection);
}

void OverviewPage::showComparison(const TraceSelection& selection)
{
    const bool compare = selection.comparing();
    m_comparisonChart->parentWidget()->setVisible(compare);
    m_comparisonHint->setVisible(!compare);
    if (compare) {
        const trace::RunComparison c = trace::compareRuns(selection.baseline->analysis, selection.run->analysis);
        fillComparisonChart(m_comparisonChart, c);
        m_verdict->setText(QString::fromStdString(trace::comparisonVerdict(c)));
        return;
    }
    m_verdict->clear();
    m_comparisonChart->clearSeries();
    m_comparisonChart->setTitle(tr("Baseline vs this run"));
    if (selection.baseline)
        m_comparisonHint->setText(tr("Baseline %1 is loaded: open the run to compare with Open trace...")
                                      .arg(QFileInfo(selection.baseline->paths.value(0)).fileName()));
}

} // namespace mfu::widgets
