#pragma once
// The straggler view's chart: each rank's step-time distribution as a box (quartiles, median line, whiskers from the
// fastest to the slowest step) with every analysed step drawn over it as a dot (spread sideways so equal times stay
// apart) and the mean as a diamond: a slow rank sits higher, a jittery rank is taller. The numbers are core's
// trace::stepTimesPerRank(); hovering a rank reads them out.
#include <QWidget>

#include <vector>

#include "core/trace/cross_rank.h"

class QCustomPlot;
class QCPStatisticalBox;
class QCPGraph;
class QCPTextElement;

namespace mfu::widgets {

class StepTimeBoxPlot : public QWidget {
    Q_OBJECT
public:
    explicit StepTimeBoxPlot(QWidget* parent = nullptr);

    void setStepTimes(std::vector<trace::RankStepTimes> times);
    void clear();

    const std::vector<trace::RankStepTimes>& stepTimes() const { return m_times; }
    QCustomPlot* plot() const { return m_plot; }
    QCPStatisticalBox* boxes() const { return m_boxes; }
    QCPGraph* stepDots() const { return m_dots; }
    QCPGraph* means() const { return m_means; }
    // The read-out for the rank under a position in plot pixels; empty when none.
    QString readoutAt(const QPointF& pos) const;

protected:
    void changeEvent(QEvent* event) override;

private:
    QCustomPlot* m_plot = nullptr;
    QCPTextElement* m_title = nullptr;
    QCPStatisticalBox* m_boxes = nullptr;
    QCPGraph* m_dots = nullptr;
    QCPGraph* m_means = nullptr;
    std::vector<trace::RankStepTimes> m_times;
};

} // namespace mfu::widgets
