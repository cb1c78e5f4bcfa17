#pragma once
// The Trace panel's Roofline tab: the selected rank's operator problems on the GPU's roofline (core/trace/roofline.h)
// and as a sortable table (achieved TFLOPS, arithmetic intensity, share of the roof above them), with what each kernel
// category reached.
#include <QWidget>

#include <vector>

#include "core/model/hardware_spec.h"
#include "widgets/trace/trace_selection.h"

class QLabel;
class QStandardItemModel;
class QTableView;

namespace mfu::widgets {

class ChartView;

class RooflinePage : public QWidget {
    Q_OBJECT
public:
    explicit RooflinePage(QWidget* parent = nullptr);
    void setKnownHardware(std::vector<HardwareSpec> hardware) { m_known = std::move(hardware); }
    void show(const TraceSelection& selection);
    ChartView* chart() const { return m_chart; }
    QStandardItemModel* marks() const { return m_marks; }
    QString summary() const;

private:
    std::vector<HardwareSpec> m_known;
    QLabel* m_summary = nullptr;
    ChartView* m_chart = nullptr;
    QStandardItemModel* m_marks = nullptr;
    QTableView* m_table = nullptr;
};

} // namespace mfu::widgets
