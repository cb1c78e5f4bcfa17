#include "widgets/predict/predict_charts.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "core/costmodel/mfu_waterfall.h"
#include "core/model/hardware_spec.h"
#include "core/number_format.h"
#include "core/units.h"
#include "widgets/charts/chart_view.h"
#include "widgets/qt_text.h"

namespace mfu::widgets {

namespace {

// Lines of a few points (sweeps, precision) read better with a marker at each point; a single point is then seen too.
void markPoints(ChartView* chart, int index)
{
    chart->setSeriesMarker(index, Marker::Circle);
}

// One colour (meaning_palette.h) and one symbol per kind of point, the same on every sweep (the legend shows both).
void markAs(ChartView* chart, int index, Meaning meaning)
{
    chart->setSeriesMeaning(index, meaning);
    markPoints(chart, index);
}

int addIfAny(ChartView* chart, SeriesKind kind, const char* name, const QVector<double>& x, const QVector<double>& y)
{
    if (x.isEmpty())
        return -1;
    if (kind == SeriesKind::Misfit) {
        const int index = chart->addMisfits(QLatin1String(name), x, y);
        chart->setSeriesWithoutValue(index); // every misfit here is a configuration without a figure, at 0
        chart->setSeriesMeaning(index, Meaning::DoesNotFit);
        return index;
    }
    return chart->addScatter(QLatin1String(name), x, y);
}

// Measured runs, as the user stated them: in the text's colour, diamonds.
void addMeasured(ChartView* chart, const QVector<double>& x, const QVector<double>& y)
{
    const int index = addIfAny(chart, SeriesKind::Scatter, series::kMeasured, x, y);
    if (index >= 0) {
        chart->setSeriesInTextColour(index);
        chart->setSeriesMarker(index, Marker::Diamond);
    }
}

void addInvalid(ChartView* chart, const QVector<double>& x)
{
    const int index = addIfAny(chart, SeriesKind::Misfit, series::kCurrentInvalid, x, QVector<double>(x.size(), 0.0));
    if (index >= 0) {
        chart->setSeriesMeaning(index, Meaning::CannotBeLaidOut);
        chart->setSeriesMarker(index, Marker::Cross);
    }
}

void addNothingFits(ChartView* chart, const QVector<double>& x)
{
    const int index = addIfAny(chart, SeriesKind::Misfit, series::kBestNone, x, QVector<double>(x.size(), 0.0));
    if (index >= 0) {
        chart->setSeriesMeaning(index, Meaning::NothingFits);
        chart->setSeriesMarker(index, Marker::TriangleDown);
    }
}

// Where a measurement of a fitting point likely lies, as MFU fractions: the point's own band, as the core sweep
// computed it (SweepPoint::currentBand, capped where the GPU stops); none for a sweep run without error bands.
std::optional<std::pair<double, double>> bandAt(const SweepPoint& point)
{
    if (!point.currentShown() || !point.currentBand)
        return std::nullopt;
    return std::pair { point.currentBand->mfuLow, point.currentBand->mfuHigh };
}

// The scenario's own point: a star in the text's colour at `y`. One that cannot be laid out or does not fit has no
// figure to stand at: at 0 and read out as none, as the configuration's misfit points are.
void addOwnStar(ChartView* chart, const QString& name, double x, const StepPrediction* own, double y)
{
    const bool shown = own && own->fits;
    const int index = chart->addScatter(name, { x }, { shown ? y : 0.0 });
    if (!shown)
        chart->setSeriesWithoutValue(index);
    chart->setSeriesInTextColour(index);
    chart->setSeriesMarker(index, Marker::Star);
}

// The scenario's own point on a precision chart, at its precision, as on the sweeps.
void addOwnPrecisionPoint(ChartView* chart, const Scenario& scenario, const StepPrediction* own, double x, double y)
{
    const QString name = own
        ? (own->fits ? QObject::tr("This scenario (%1)") : QObject::tr("This scenario (%1): does not fit"))
              .arg(QString::fromStdString(std::string(trainingPrecisionLabel(scenario.precision))))
        : QObject::tr("This scenario: cannot be laid out");
    addOwnStar(chart, name, x, own, y);
}

void push(QVector<double>& xs, QVector<double>& ys, double x, double y)
{
    xs << x;
    ys << y;
}

double precisionX(TrainingPrecision p)
{
    return sweepValueOf(p);
}

// The MFU chart's category of a run's MFU against the BF16 peak: BF16 0, FP8 1, FP4 3 (2 and 4: against their own
// peaks).
double mfuChartX(TrainingPrecision p)
{
    return p == TrainingPrecision::BF16_FP4 ? 3 : precisionX(p);
}

bool sweptFp4(const SweepResult& sweep)
{
    for (const SweepPoint& p : sweep.points)
        if (p.precision == TrainingPrecision::BF16_FP4)
            return true;
    return false;
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
    chart->setTitle(QObject::tr("From the BF16 dense peak to achieved MFU"));
    chart->setXAxis(QString(), QString());
    chart->setYAxis(QObject::tr("MFU"), QObject::tr("%")); // of the BF16 dense peak, the first bar
    QStringList categories { QObject::tr("BF16 dense peak") };
    QVector<double> x { 0 }, left { w.peakPoints }, lost { 0 }, gained { 0 };
    double level = w.peakPoints;
    for (const MfuLoss& loss : w.losses) {
        const double after = level - loss.points;
        categories << qs(loss.label) + (loss.points < 0 ? QObject::tr(" (gain)") : QString());
        x << static_cast<double>(x.size());
        left << std::min(level, after);
        lost << std::max(loss.points, 0.0);
        gained << std::max(-loss.points, 0.0); // FP8 or FP4 matmuls above the BF16 peak: a gain, not a loss
        level = after;
    }
    categories << QObject::tr("Achieved MFU");
    x << static_cast<double>(x.size());
    left << w.achievedPoints;
    lost << 0;
    gained << 0;
    chart->setCategories(categories);
    const int base = chart->addBars(QObject::tr("MFU left"), x, left);
    chart->setSeriesMeaning(base, Meaning::ThisConfiguration);
    const int lostBars = chart->addBars(QObject::tr("Lost here"), x, lost, base);
    chart->setSeriesMeaning(lostBars, Meaning::Lost);
    if (std::any_of(gained.begin(), gained.end(), [](double g) { return g > 0; }))
        chart->setSeriesMeaning(chart->addBars(QObject::tr("Gained here"), x, gained, lostBars), Meaning::Gained);
    chart->setCategoryLabelsTilted(true); // long component names stay readable side by side
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
    struct MemoryPart {
        QString name;
        Part part;
        Meaning meaning;
    };
    const MemoryPart parts[] = {
        { QObject::tr("Parameters"), &MemoryBreakdown::parameters, Meaning::Parameters },
        { QObject::tr("Gradients"), &MemoryBreakdown::gradients, Meaning::Gradients },
        { QObject::tr("Optimizer state"), &MemoryBreakdown::optimizerState, Meaning::OptimizerState },
        { QObject::tr("Activations"), &MemoryBreakdown::activations, Meaning::Activations },
        { QObject::tr("Temporary buffers"), &MemoryBreakdown::temporary, Meaning::TemporaryBuffers },
        { QObject::tr("Reserved (runtime)"), &MemoryBreakdown::reserved, Meaning::Reserved },
    };
    int below = -1;
    for (const MemoryPart& p : parts) {
        QVector<double> x, y;
        for (size_t i = 0; i < columns.size(); ++i) {
            x << static_cast<double>(i);
            y << columns[i]->*p.part / kGiB;
        }
        below = chart->addBars(p.name, x, y, below);
        chart->setSeriesMeaning(below, p.meaning);
    }
    const double capacity = current.memoryCapacityBytes / kGiB;
    const double right = static_cast<double>(columns.size()) - 0.4;
    // A limit, not a part: in the text's colour, as a roof is.
    chart->setSeriesInTextColour(
        chart->addLine(QLatin1String(series::kCapacity), { -0.6, right }, { capacity, capacity }));
    chart->rescale();
}

LineSweepAxis lineSweepAxis(SweepAxis axis, const Scenario& s)
{
    switch (axis) {
    case SweepAxis::SeqLen:
        return { QObject::tr("MFU vs sequence length"), QObject::tr("Sequence length"), QObject::tr("tokens"), 2,
            QObject::tr("sequence lengths"), QStringLiteral("mfu_vs_sequence_length"),
            static_cast<double>(s.workload.seqLen), QObject::tr("%L1 tokens").arg(s.workload.seqLen) };
    case SweepAxis::Network: {
        const double gbitPerSec = scaleOutGbitPerSec(s.cluster.hardware);
        return { QObject::tr("MFU vs network per GPU"), QObject::tr("Network per GPU"), QObject::tr("Gb/s"), 2,
            QObject::tr("networks per GPU (each stated as --scale-out-gbps states it)"),
            QStringLiteral("mfu_vs_network"), gbitPerSec, QString::fromStdString(formatGbitPerSec(gbitPerSec)) };
    }
    case SweepAxis::GpuCount:
    case SweepAxis::Precision:
        break;
    }
    return { QObject::tr("MFU vs GPU count"), QObject::tr("GPU count"), QObject::tr("GPUs"), 10,
        QObject::tr("GPU counts"), QStringLiteral("mfu_vs_gpu_count"), static_cast<double>(s.cluster.gpuCount),
        QString::fromStdString(formatCount(s.cluster.gpuCount, "GPU")) };
}

QString ownPointName(const Scenario& scenario, SweepAxis axis, const StepPrediction* own)
{
    const QString at = lineSweepAxis(axis, scenario).ownAt;
    if (!own)
        return QObject::tr("This scenario (%1): cannot be laid out").arg(at);
    return own->fits ? QObject::tr("This scenario (%1)").arg(at)
                     : QObject::tr("This scenario (%1): does not fit").arg(at);
}

void showMfuSweep(ChartView* chart, const SweepResult& sweep, const Scenario& scenario, const StepPrediction* own,
    const std::vector<std::optional<double>>& calibratedMfu)
{
    const bool bySeq = sweep.axis == SweepAxis::SeqLen;
    const LineSweepAxis axis = lineSweepAxis(sweep.axis, scenario);
    chart->clearSeries();
    chart->setTitle(axis.title);
    chart->setXAxis(axis.label, axis.unit);
    chart->setYAxis(QObject::tr("MFU"), QObject::tr("%"));
    chart->setLogX(true, axis.logBase);
    if (sweep.axis == SweepAxis::Network) { // 25, 50, ... 3,200 Gb/s: read at the points, not at powers of two
        QVector<double> ticks;
        for (const SweepPoint& p : sweep.points)
            ticks << p.x;
        chart->setXTicksAt(ticks);
    }
    QVector<double> cx, cy, misX, misY, badX, bestX, bestY, noneX, bandX, low, high;
    for (const SweepPoint& p : sweep.points) {
        if (p.currentShown())
            push(cx, cy, p.x, 100.0 * p.current.mfu);
        else if (p.currentMisfits())
            push(misX, misY, p.x, 0.0); // at 0: no MFU to stand at
        else
            badX << p.x;
        if (const auto b = bandAt(p)) {
            push(bandX, low, p.x, 100.0 * b->first);
            high << 100.0 * b->second;
        }
        if (p.best)
            push(bestX, bestY, p.x, 100.0 * p.best->prediction.mfu);
        else if (sweep.plannerRan) // a sweep without the planner sought no best: no point says "nothing fits"
            noneX << p.x;
    }
    markAs(chart, chart->addLine(QLatin1String(series::kCurrent), cx, cy), Meaning::ThisConfiguration);
    markAs(chart, chart->addLine(QLatin1String(series::kBest), bestX, bestY), Meaning::PlannersBest);
    QVector<double> calX, calY;
    for (size_t i = 0; i < calibratedMfu.size() && i < sweep.points.size(); ++i)
        if (calibratedMfu[i] && sweep.points[i].currentShown())
            push(calX, calY, sweep.points[i].x, 100.0 * *calibratedMfu[i]);
    if (!calX.isEmpty())
        markAs(chart, chart->addLine(QLatin1String(series::kCalibrated), calX, calY), Meaning::CalibratedToTrace);
    if (!bandX.isEmpty()) {
        const int lowIndex = chart->addBandEdge(QLatin1String(series::kBandLow), bandX, low);
        chart->addBandEdge(QLatin1String(series::kBandHigh), bandX, high, lowIndex);
    }
    addIfAny(chart, SeriesKind::Misfit, series::kCurrentMisfit, misX, misY);
    addInvalid(chart, badX);
    addNothingFits(chart, noneX);
    QVector<double> mx, my; // a measured point states no network: none lies on that axis
    for (const MeasuredPoint& m : measuredOnAxis(scenario, sweep.axis))
        push(mx, my, (bySeq ? static_cast<double>(m.seqLen) : m.gpuCount), 100.0 * m.mfu);
    addMeasured(chart, mx, my);
    // The scenario's own point, wherever it falls between the sweep's points: a star, in the text's colour.
    if (axis.own > 0)
        addOwnStar(chart, ownPointName(scenario, sweep.axis, own), axis.own, own, own ? 100.0 * own->mfu : 0.0);
    chart->rescale();
}

void showPrecisionTflops(
    ChartView* chart, const SweepResult& sweep, const Scenario& scenario, const StepPrediction* own)
{
    // GPUs per node as the cost model counts them (core: StepPrediction::gpusPerNode).
    int gpusPerNode = 0;
    for (const SweepPoint& p : sweep.points) {
        const StepPrediction* pred = p.currentValid ? &p.current : p.best ? &p.best->prediction : nullptr;
        if (pred && pred->tflopsPerGpu > 0) {
            gpusPerNode = pred->gpusPerNode;
            break;
        }
    }
    chart->clearSeries();
    const bool fp4 = sweptFp4(sweep);
    // Short: the chart shares the Predict column's width with the window's other half (clipped at 1280 x 720).
    chart->setTitle(QObject::tr("Achieved TFLOPS per precision"));
    chart->setXAxis(QObject::tr("Precision"), QString());
    // Per GPU on the left; per node is the same line read on the right-hand scale, never a second line on this axis.
    chart->setYAxis(QObject::tr("Per GPU"), QObject::tr("TFLOP/s"));
    QStringList categories { QObject::tr("BF16"), QObject::tr("BF16+FP8") };
    if (fp4)
        categories << QObject::tr("BF16+FP4");
    chart->setCategories(categories);
    QVector<double> x, gpu, bx, bestGpu, misX, misY;
    for (const SweepPoint& p : sweep.points) {
        const double px = precisionX(p.precision);
        if (p.currentShown())
            push(x, gpu, px, p.current.tflopsPerGpu);
        else if (p.currentMisfits())
            push(misX, misY, px, 0.0); // at 0: no TFLOPS to stand at
        if (p.best)
            push(bx, bestGpu, px, p.best->prediction.tflopsPerGpu);
    }
    // The same names as every other sweep's lines (the axis says "per GPU").
    markAs(chart, chart->addLine(QLatin1String(series::kCurrent), x, gpu), Meaning::ThisConfiguration);
    markAs(chart, chart->addLine(QLatin1String(series::kBest), bx, bestGpu), Meaning::PlannersBest);
    addIfAny(chart, SeriesKind::Misfit, series::kCurrentMisfit, misX, misY);
    addOwnPrecisionPoint(chart, scenario, own, precisionX(scenario.precision), own ? own->tflopsPerGpu : 0.0);
    chart->rescale();
    if (gpusPerNode > 1)
        chart->setSecondaryYScale(QObject::tr("Per node of %1 GPUs").arg(gpusPerNode), QObject::tr("TFLOP/s"),
            static_cast<double>(gpusPerNode));
}

void showPrecisionMfu(ChartView* chart, const SweepResult& sweep, const Scenario& scenario, const StepPrediction* own)
{
    chart->clearSeries();
    chart->setTitle(QObject::tr("MFU against each dense peak"));
    chart->setXAxis(QObject::tr("Run / dense peak MFU is quoted against"), QString());
    chart->setYAxis(QObject::tr("MFU"), QObject::tr("%"));
    // Three short lines each: five categories of two lines overlapped their neighbours at 1920 x 1080. The runs are
    // named as the TFLOPS chart beside this one and the Precision field name them (BF16+FP8: FP8 linear layers).
    QStringList categories { QObject::tr("BF16\nvs BF16\npeak"), QObject::tr("BF16+FP8\nvs BF16\npeak"),
        QObject::tr("BF16+FP8\nvs FP8\npeak") };
    if (sweptFp4(sweep))
        categories << QObject::tr("BF16+FP4\nvs BF16\npeak") << QObject::tr("BF16+FP4\nvs FP4\npeak");
    chart->setCategories(categories);
    QVector<double> x, y, bx, by, misX, misY;
    const auto place = [](const SweepPoint& p, const StepPrediction& pred, QVector<double>& xs, QVector<double>& ys) {
        push(xs, ys, mfuChartX(p.precision), 100.0 * pred.mfu);
        if (pred.mfuVsFp8Peak)
            push(xs, ys, 2, 100.0 * *pred.mfuVsFp8Peak);
        if (pred.mfuVsFp4Peak)
            push(xs, ys, 4, 100.0 * *pred.mfuVsFp4Peak);
    };
    for (const SweepPoint& p : sweep.points) {
        if (p.currentShown())
            place(p, p.current, x, y);
        else if (p.currentMisfits()) // marked at 0 in its run's category: no MFU to stand at
            push(misX, misY, mfuChartX(p.precision), 0.0);
        if (p.best)
            place(p, p.best->prediction, bx, by);
    }
    // Points, not lines: the categories are different quantities (an MFU against the BF16 peak beside one against
    // the FP8 peak), and a line through them drew a zig-zag that means nothing.
    markAs(chart, chart->addScatter(QLatin1String(series::kCurrent), x, y), Meaning::ThisConfiguration);
    markAs(chart, chart->addScatter(QLatin1String(series::kBest), bx, by), Meaning::PlannersBest);
    addIfAny(chart, SeriesKind::Misfit, series::kCurrentMisfit, misX, misY);
    QVector<double> mx, my;
    for (const MeasuredPoint& m : measuredOnAxis(scenario, SweepAxis::Precision))
        push(mx, my, mfuChartX(m.precision), 100.0 * m.mfu);
    addMeasured(chart, mx, my);
    // The scenario itself, against the BF16 peak (the category its MFU is quoted in).
    addOwnPrecisionPoint(chart, scenario, own, mfuChartX(scenario.precision), own ? 100.0 * own->mfu : 0.0);
    chart->rescale();
}

} // namespace mfu::widgets
