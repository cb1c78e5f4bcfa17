#include "widgets/predict_charts.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include "core/costmodel/mfu_waterfall.h"
#include "core/units.h"
#include "widgets/chart_view.h"

namespace mfu::widgets {

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

// Lines of a few points (precision) read better with a marker at each point.
void markPoints(ChartView* chart, int index)
{
    if (auto* graph = qobject_cast<QCPGraph*>(chart->plot()->plottable(index)))
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 7));
}

void addIfAny(ChartView* chart, SeriesKind kind, const char* name, const QVector<double>& x, const QVector<double>& y)
{
    if (x.isEmpty())
        return;
    if (kind == SeriesKind::Misfit)
        chart->addMisfits(QLatin1String(name), x, y);
    else
        chart->addScatter(QLatin1String(name), x, y);
}

void push(QVector<double>& xs, QVector<double>& ys, double x, double y)
{
    xs << x;
    ys << y;
}

double precisionX(TrainingPrecision p)
{
    return p == TrainingPrecision::BF16_FP8 ? 1 : 0;
}

} // namespace

std::vector<MeasuredPoint> measuredOnAxis(const Scenario& s, SweepAxis axis)
{
    std::vector<MeasuredPoint> out;
    for (const MeasuredPoint& m : s.measuredPoints) {
        const bool samePrecision = m.precision == s.precision;
        const bool sameGpus = m.gpuCount == 0 || m.gpuCount == s.cluster.gpuCount;
        const bool sameSeq = m.seqLen == 0 || m.seqLen == s.workload.seqLen;
        const bool onAxis = (axis == SweepAxis::SeqLen && m.seqLen > 0 && sameGpus && samePrecision)
            || (axis == SweepAxis::GpuCount && m.gpuCount > 0 && sameSeq && samePrecision)
            || (axis == SweepAxis::Precision && sameSeq && sameGpus);
        if (onAxis && m.mfu > 0)
            out.push_back(m);
    }
    return out;
}

void showMfuWaterfall(ChartView* chart, const StepPrediction& prediction)
{
    const MfuWaterfall w = mfuWaterfall(prediction);
    chart->clearSeries();
    chart->setTitle(QObject::tr("From peak to achieved MFU"));
    chart->setXAxis(QString(), QString());
    chart->setYAxis(QObject::tr("MFU"), QObject::tr("% of BF16 dense peak"));
    QStringList categories { QObject::tr("BF16 dense peak") };
    QVector<double> x { 0 }, left { w.peakPoints }, lost { 0 };
    double level = w.peakPoints;
    for (const MfuLoss& loss : w.losses) {
        const double after = level - loss.points;
        categories << qs(loss.label) + (loss.points < 0 ? QObject::tr(" (gain)") : QString());
        x << static_cast<double>(x.size());
        left << std::min(level, after);
        lost << std::abs(loss.points);
        level = after;
    }
    categories << QObject::tr("Achieved MFU");
    x << static_cast<double>(x.size());
    left << w.achievedPoints;
    lost << 0;
    chart->setCategories(categories);
    const int base = chart->addBars(QObject::tr("MFU left"), x, left);
    chart->addBars(QObject::tr("Lost here"), x, lost, base);
    chart->plot()->xAxis->setTickLabelRotation(35); // long component names stay readable side by side
    chart->rescale();
}

void showMemoryBreakdown(ChartView* chart, const StepPrediction& current, const PlannedConfig* best)
{
    chart->clearSeries();
    chart->setTitle(QObject::tr("Peak memory per GPU"));
    chart->setXAxis(QString(), QString());
    chart->setYAxis(QObject::tr("Memory"), QObject::tr("GiB"));
    QStringList categories { current.fits ? QObject::tr("This configuration")
                                          : QObject::tr("This configuration (does not fit)") };
    std::vector<const MemoryBreakdown*> columns { &current.memory };
    if (best) {
        categories << QObject::tr("Planner's best");
        columns.push_back(&best->prediction.memory);
    }
    chart->setCategories(categories);
    using Part = double MemoryBreakdown::*;
    const std::pair<QString, Part> parts[] = {
        { QObject::tr("Parameters"), &MemoryBreakdown::parameters },
        { QObject::tr("Gradients"), &MemoryBreakdown::gradients },
        { QObject::tr("Optimizer state"), &MemoryBreakdown::optimizerState },
        { QObject::tr("Activations"), &MemoryBreakdown::activations },
        { QObject::tr("Temporary buffers"), &MemoryBreakdown::temporary },
        { QObject::tr("Reserved (runtime)"), &MemoryBreakdown::reserved },
    };
    int below = -1;
    for (const auto& [name, part] : parts) {
        QVector<double> x, y;
        for (size_t i = 0; i < columns.size(); ++i) {
            x << static_cast<double>(i);
            y << columns[i]->*part / kGiB;
        }
        below = chart->addBars(name, x, y, below);
    }
    const double capacity = current.memoryCapacityBytes / kGiB;
    const double right = static_cast<double>(columns.size()) - 0.4;
    chart->addLine(QLatin1String(series::kCapacity), { -0.6, right }, { capacity, capacity });
    chart->rescale();
}

void showMfuSweep(ChartView* chart, const SweepResult& sweep, const Scenario& scenario, const ErrorBand* band)
{
    const bool bySeq = sweep.axis == SweepAxis::SeqLen;
    chart->clearSeries();
    chart->setTitle(bySeq ? QObject::tr("MFU vs sequence length") : QObject::tr("MFU vs GPU count"));
    chart->setXAxis(bySeq ? QObject::tr("Sequence length") : QObject::tr("GPU count"),
        bySeq ? QObject::tr("tokens") : QObject::tr("GPUs"));
    chart->setYAxis(QObject::tr("MFU"), QObject::tr("%"));
    chart->setLogX(true, bySeq ? 2 : 10);
    QVector<double> cx, cy, misX, misY, badX, bestX, bestY, noneX;
    for (const SweepPoint& p : sweep.points) {
        if (!p.currentValid)
            badX << p.x;
        else if (p.current.fits)
            push(cx, cy, p.x, 100.0 * p.current.mfu);
        else
            push(misX, misY, p.x, 100.0 * p.current.mfu);
        if (p.best)
            push(bestX, bestY, p.x, 100.0 * p.best->prediction.mfu);
        else
            noneX << p.x;
    }
    chart->addLine(QLatin1String(series::kCurrent), cx, cy);
    chart->addLine(QLatin1String(series::kBest), bestX, bestY);
    if (band && !cx.isEmpty()) {
        QVector<double> low, high;
        for (double y : cy) {
            low << y * band->lowFactor;
            high << y * band->highFactor;
        }
        const int lowIndex = chart->addBandEdge(QLatin1String(series::kBandLow), cx, low);
        chart->addBandEdge(QLatin1String(series::kBandHigh), cx, high, lowIndex);
    }
    addIfAny(chart, SeriesKind::Misfit, series::kCurrentMisfit, misX, misY);
    addIfAny(chart, SeriesKind::Misfit, series::kCurrentInvalid, badX, QVector<double>(badX.size(), 0.0));
    addIfAny(chart, SeriesKind::Misfit, series::kBestNone, noneX, QVector<double>(noneX.size(), 0.0));
    QVector<double> mx, my;
    for (const MeasuredPoint& m : measuredOnAxis(scenario, sweep.axis))
        push(mx, my, (bySeq ? static_cast<double>(m.seqLen) : m.gpuCount), 100.0 * m.mfu);
    addIfAny(chart, SeriesKind::Scatter, series::kMeasured, mx, my);
    chart->rescale();
}

void showPrecisionTflops(ChartView* chart, const SweepResult& sweep)
{
    chart->clearSeries();
    chart->setTitle(QObject::tr("Achieved TFLOPS: BF16 vs BF16+FP8"));
    chart->setXAxis(QObject::tr("Precision"), QString());
    chart->setYAxis(QObject::tr("Model TFLOPS"), QObject::tr("TFLOP/s"));
    chart->setCategories({ QObject::tr("BF16"), QObject::tr("BF16+FP8") });
    QVector<double> x, gpu, node, bx, bestGpu, bestNode, misX, misY;
    for (const SweepPoint& p : sweep.points) {
        const double px = precisionX(p.precision);
        if (p.currentValid && p.current.fits) {
            push(x, gpu, px, p.current.tflopsPerGpu);
            node << p.current.tflopsPerNode;
        } else if (p.currentValid) {
            push(misX, misY, px, p.current.tflopsPerGpu);
        }
        if (p.best) {
            push(bx, bestGpu, px, p.best->prediction.tflopsPerGpu);
            bestNode << p.best->prediction.tflopsPerNode;
        }
    }
    markPoints(chart, chart->addLine(QObject::tr("Per GPU, this configuration"), x, gpu));
    markPoints(chart, chart->addLine(QObject::tr("Per GPU, planner's best"), bx, bestGpu));
    markPoints(chart, chart->addLine(QObject::tr("Per node, this configuration"), x, node));
    markPoints(chart, chart->addLine(QObject::tr("Per node, planner's best"), bx, bestNode));
    addIfAny(chart, SeriesKind::Misfit, series::kCurrentMisfit, misX, misY);
    chart->rescale();
}

void showPrecisionMfu(ChartView* chart, const SweepResult& sweep, const Scenario& scenario)
{
    chart->clearSeries();
    chart->setTitle(QObject::tr("MFU against each dense peak"));
    chart->setXAxis(QObject::tr("Run / dense peak MFU is quoted against"), QString());
    chart->setYAxis(QObject::tr("MFU"), QObject::tr("%"));
    chart->setCategories(
        { QObject::tr("BF16 run / BF16 peak"), QObject::tr("FP8 run / BF16 peak"), QObject::tr("FP8 run / FP8 peak") });
    QVector<double> x, y, bx, by, misX, misY;
    const auto place = [](const SweepPoint& p, const StepPrediction& pred, QVector<double>& xs, QVector<double>& ys) {
        if (p.precision == TrainingPrecision::BF16) {
            push(xs, ys, 0, 100.0 * pred.mfu);
            return;
        }
        push(xs, ys, 1, 100.0 * pred.mfu);
        if (pred.mfuVsFp8Peak)
            push(xs, ys, 2, 100.0 * *pred.mfuVsFp8Peak);
    };
    for (const SweepPoint& p : sweep.points) {
        if (p.currentValid)
            place(p, p.current, p.current.fits ? x : misX, p.current.fits ? y : misY);
        if (p.best)
            place(p, p.best->prediction, bx, by);
    }
    markPoints(chart, chart->addLine(QLatin1String(series::kCurrent), x, y));
    markPoints(chart, chart->addLine(QLatin1String(series::kBest), bx, by));
    addIfAny(chart, SeriesKind::Misfit, series::kCurrentMisfit, misX, misY);
    QVector<double> mx, my;
    for (const MeasuredPoint& m : measuredOnAxis(scenario, SweepAxis::Precision))
        push(mx, my, precisionX(m.precision), 100.0 * m.mfu);
    addIfAny(chart, SeriesKind::Scatter, series::kMeasured, mx, my);
    chart->rescale();
}

} // namespace mfu::widgets
