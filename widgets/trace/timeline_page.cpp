#include "widgets/trace/timeline_page.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "widgets/trace/timeline_view.h"

namespace mfu::widgets {

TimelinePage::TimelinePage(QWidget* parent)
    : QWidget(parent)
{
    m_timeline = new TimelineView;
    m_timeline->setObjectName(QStringLiteral("timeline"));
    m_ranks = new QComboBox;
    m_ranks->setObjectName(QStringLiteral("timelineRanks"));
    m_ranks->setAccessibleName(tr("Ranks on the timeline"));
    m_ranks->addItems({ tr("The selected rank"), tr("Every rank, on one clock") });
    connect(m_ranks, &QComboBox::currentIndexChanged, this, &TimelinePage::refresh);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Show:")));
    bar->addWidget(m_ranks);
    bar->addStretch();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_timeline, 1);
}

void TimelinePage::show(const TraceSelection& selection)
{
    m_selection = selection;
    refresh();
}

void TimelinePage::refresh()
{
    const auto& run = m_selection.run;
    const int index = m_selection.rank;
    if (!run || index < 0 || static_cast<size_t>(index) >= run->timelines.size()) {
        m_timeline->setPlaceholder(run && run->fromSummaries
                ? tr("This run was opened from per-rank summaries: they hold the figures, not the kernels. Open the "
                     "traces themselves to see the timeline.")
                : tr("Open a trace to see its GPU streams here."));
        m_timeline->clear();
        return;
    }
    // Aliasing: the view keeps the whole run alive while it shows its timelines.
    auto timelineOf = [&run](size_t i) { return std::shared_ptr<const trace::Timeline>(run, &run->timelines[i]); };
    // The steps the analysis timed, as every other view shows them: not planned again on the GUI thread.
    auto stepsOf = [&run](size_t i) {
        std::vector<trace::Step> steps;
        for (const trace::StepFigures& f : run->analysis.ranks[i].steps)
            steps.push_back(f.step);
        return steps;
    };
    const auto selected = static_cast<size_t>(index);
    if (m_ranks->currentIndex() == 1 && run->timelines.size() > 1) {
        // The selected rank first (its steps label the band), then the others in run order.
        std::vector<TimelineView::RankTimeline> ranks { { run->analysis.ranks[selected].rank, timelineOf(selected),
            stepsOf(selected) } };
        for (size_t i = 0; i < run->timelines.size(); ++i)
            if (i != selected)
                ranks.push_back({ run->analysis.ranks[i].rank, timelineOf(i), stepsOf(i) });
        m_timeline->setRankTimelines(std::move(ranks));
    } else {
        m_timeline->setTimeline(timelineOf(selected), stepsOf(selected));
    }
}

} // namespace mfu::widgets
