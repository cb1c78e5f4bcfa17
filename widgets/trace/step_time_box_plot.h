#pragma once
// The straggler view's chart: each rank's step-time distribution as a box (quartiles, median line, whiskers from the
// fastest to the slowest step) with every analysed step drawn over it as a dot (spread sideways so equal times stay
// apart) and the mean as a diamond: a slow rank sits higher, a jittery rank is taller. The numbers are core's
// trace::stepTimesPerRank(); hovering a rank reads them out.
#include <utility>
#include <vector>

#include "core/trace/cross_rank.h"
#include "widgets/charts/bare_plot.h"

class QCPStatisticalBox;
class QCPGraph;

namespace mfu::widgets {

class StepTimeBoxPlot : public BarePlot {
    Q_OBJECT
public:
    explicit StepTimeBoxPlot(QWidget* parent = nullptr);

    void setStepTimes(std::vector<trace::RankStepTimes> times);
    void clear();

    const std::vector<trace::RankStepTimes>& stepTimes() const { return m_times; }
    QCPStatisticalBox* boxes() const { return m_boxes; }
    QCPGraph* stepDots() const { return m_dots; }
    QCPGraph* means() const { return m_means; }
    // The read-out for the rank under a position in plot pixels; empty when none.
    QString readoutAt(const QPointF& pos) const override;
    // The step-time axis for step times from `lowest` to `highest` ms: their spread, not zero up.
    static std::pair<double, double> spreadRange(double lowest, double highest);

private:
    QCPStatisticalBox* m_boxes = nullptr;
    QCPGraph* m_dots = nullptr;
    QCPGraph* m_means = nullptr;
    std::vector<trace::RankStepTimes> m_times;
};

} // namespace mfu::widgets
