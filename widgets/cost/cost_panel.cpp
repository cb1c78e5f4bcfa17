#include "widgets/cost/cost_panel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

#include "core/errors.h"
#include "core/number_format.h"
#include "core/presets/presets.h"
#include "core/report/hardware_options.h"
#include "core/units.h"
#include "widgets/charts/category_palette.h"
#include "widgets/charts/chart_view.h"
#include "widgets/cost/cost_charts.h"
#include "widgets/cost/price_memory.h"
#include "widgets/jobs/background_job.h"
#include "widgets/qt_text.h"
#include "widgets/scenario/bounded_spin_box.h"
#include "widgets/scenario/entry_reason.h"
#include "widgets/scenario/reason_label.h"
#include "widgets/scenario/scenario_model.h"

namespace mfu::widgets {

namespace {

// The Savings chart's title while there is nothing to save from: the filled chart names its two MFUs.
QString savingsTitleWithoutATarget()
{
    return QStringLiteral("Savings from the baseline to a target MFU");
}

QDoubleSpinBox* spin(double minimum, double maximum, int decimals, double value, const QString& suffix)
{
    auto* box = new BoundedSpinBox; // "150" in an MFU field stays as typed, with the reason beside it
    box->setRange(minimum, maximum);
    box->setDecimals(decimals);
    box->setValue(value);
    box->setSuffix(suffix);
    box->setKeyboardTracking(false); // recompute when an edit is done, not on every keystroke
    return box;
}

} // namespace

CostPanel::CostPanel(ScenarioModel* model, const PresetLibrary& presets, QWidget* parent)
    : QWidget(parent)
    , m_model(model)
    , m_presets(presets)
    , m_hardwareJob(new BackgroundJob(this))
{
    m_jobKind = new QComboBox;
    m_jobKind->addItems({ tr("Token budget"), tr("Days of the cluster") });
    m_jobKind->setCurrentIndex(1);
    m_tokens = spin(0, 1e6, 1, 1000, tr(" B tokens"));
    m_tokens->setSpecialValueText(tr("none"));
    m_days = spin(0, 1e5, 1, 90, tr(" days"));
    m_days->setSpecialValueText(tr("none"));
    m_baseline = spin(0, 100, 1, 0, QStringLiteral(" %"));
    m_baseline->setSpecialValueText(tr("measured or predicted"));
    m_target = spin(0, 100, 1, 60, QStringLiteral(" %"));
    m_target->setSpecialValueText(tr("none"));
    // 0 shows "none": a GPU whose preset states no price (MI350X, MI250X, ...) until the user types one, rather than
    // the previous GPU's price beside the "no price" error.
    m_price = spin(0, 1000, 2, 2.0, tr(" $/GPU-hour"));
    m_price->setSpecialValueText(tr("none"));

    auto* inputs = new QGroupBox(tr("Job"));
    auto* inputForm = new QFormLayout(inputs);
    inputForm->addRow(tr("Job given as:"), m_jobKind);
    // Each input says why what is typed is not applied (beyond its range, or a decimal more than it keeps).
    inputForm->addRow(tr("Tokens:"), m_tokens);
    addEntryReason(inputForm, m_tokens, "tokensReason",
        tr("Enter the tokens in billions, %1. The job keeps its tokens until then.")
            .arg(static_cast<BoundedSpinBox*>(m_tokens)->entryRule()));
    inputForm->addRow(tr("Duration:"), m_days);
    addEntryReason(inputForm, m_days, "daysReason",
        tr("Enter the days %1. The job keeps its duration until then.")
            .arg(static_cast<BoundedSpinBox*>(m_days)->entryRule()));
    inputForm->addRow(tr("Baseline MFU:"), m_baseline);
    addEntryReason(inputForm, m_baseline, "baselineMfuReason",
        tr("Enter an MFU %1: no GPU computes above its dense peak. The baseline stays as it was until then.")
            .arg(static_cast<BoundedSpinBox*>(m_baseline)->entryRule(QStringLiteral("%"))));
    inputForm->addRow(tr("Target MFU:"), m_target);
    addEntryReason(inputForm, m_target, "targetMfuReason",
        tr("Enter an MFU %1: no GPU computes above its dense peak. The target stays as it was until then.")
            .arg(static_cast<BoundedSpinBox*>(m_target)->entryRule(QStringLiteral("%"))));
    inputForm->addRow(tr("Price:"), m_price);
    addEntryReason(inputForm, m_price, "priceReason",
        tr("Enter a price %1 (0: none). The job keeps its price until then.")
            .arg(static_cast<BoundedSpinBox*>(m_price)->entryRule(tr(" $/GPU-hour"))));

    auto* results = new QGroupBox(tr("Cost and savings"));
    auto* resultForm = new QFormLayout(results);
    m_mfu = addValue(resultForm, tr("Runs at MFU:"), "costMfu");
    m_tokensTrained = addValue(resultForm, tr("Tokens:"), "costTokens");
    m_gpuHours = addValue(resultForm, tr("GPU-hours:"), "costGpuHours");
    m_wallClock = addValue(resultForm, tr("Wall-clock:"), "costWallClock");
    m_dollars = addValue(resultForm, tr("Cost:"), "costDollars");
    m_energy = addValue(resultForm, tr("Energy (GPU boards):"), "costEnergy");
    m_equivalents = addValue(resultForm, tr("Productive GPU-equivalents:"), "costGpuEquivalents");
    m_recovered = addValue(resultForm, tr("Recovered (same GPU-hours):"), "costRecovered");
    m_timeSaved = addValue(resultForm, tr("Time saved (same tokens):"), "costTimeSaved");
    m_costSaved = addValue(resultForm, tr("Saved (same tokens):"), "costSaved");

    m_error = new QLabel;
    m_error->setObjectName(QStringLiteral("costError"));
    m_error->setWordWrap(true);
    m_error->setStyleSheet(errorStyleSheet());
    m_error->setVisible(false);

    auto* left = new QVBoxLayout;
    left->addWidget(inputs);
    left->addWidget(results);
    left->addWidget(m_error);
    left->addStretch();

    m_costChart = new ChartView;
    m_daysChart = new ChartView;
    m_savingsChart = new ChartView;
    m_hardwareChart = new ChartView;
    auto* charts = new QTabWidget;
    charts->addTab(m_costChart, tr("Cost vs MFU"));
    charts->addTab(m_daysChart, tr("Days vs MFU"));
    charts->addTab(m_savingsChart, tr("Savings"));
    m_hardwareNote = new QLabel;
    m_hardwareNote->setObjectName(QStringLiteral("hardwareNote"));
    m_hardwareNote->setWordWrap(true);
    m_hardwareNote->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* byGpu = new QWidget;
    auto* byGpuLayout = new QVBoxLayout(byGpu);
    byGpuLayout->setContentsMargins(4, 4, 4, 0);
    byGpuLayout->addWidget(m_hardwareNote);
    byGpuLayout->addWidget(m_hardwareChart, 1);
    charts->addTab(byGpu, tr("By GPU"));

    // The figures scroll rather than set the panel's minimum width: the window must fit beside the scenario dock.
    auto* figures = new QWidget;
    figures->setLayout(left);
    auto* scroll = new QScrollArea;
    scroll->setWidget(figures);
    scroll->setWidgetResizable(true);
    scroll->setAccessibleName(tr("Cost figures"));
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* splitter = new QSplitter(Qt::Horizontal);
    splitter->addWidget(scroll);
    splitter->addWidget(charts);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({ 420, 680 }); // room for the figures unwrapped; the charts take what is left
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(splitter);

    // Edits go into the scenario (undoable, saved with it); the panel shows what the scenario holds.
    const auto edited = [this] { writeInputs(); };
    connect(m_jobKind, &QComboBox::currentIndexChanged, this, edited);
    for (auto* box : { m_tokens, m_days, m_baseline, m_target })
        connect(box, &QDoubleSpinBox::valueChanged, this, edited);
    connect(m_price, &QDoubleSpinBox::valueChanged, this, [this](double price) {
        if (m_syncing)
            return;
        // "none" (0) forgets the typed price: the preset's again, if it has one.
        rememberPrice(m_model->scenario().cluster.hardware.id, price);
        m_model->setPricePerGpuHour(price > 0 ? std::optional(price) : std::nullopt);
    });
    connect(m_model, &ScenarioModel::changed, this, [this] {
        syncInputs();
        recompute();
    });
    // A calibration from the Trace panel changes the MFU a predicted job is costed at.
    connect(m_model, &ScenarioModel::traceCalibrationChanged, this, &CostPanel::recompute);
    syncInputs();
    recompute();
}

void CostPanel::addEntryReason(QFormLayout* form, QDoubleSpinBox* box, const char* objectName, const QString& reason)
{
    auto* label = new ReasonLabel;
    label->setObjectName(QString::fromLatin1(objectName));
    form->addRow(QString(), label);
    auto* bounded = static_cast<BoundedSpinBox*>(box);
    m_entryReasons << attachEntryReason(
        bounded, label, [bounded] { return bounded->typedAcceptable(); }, [reason] { return reason; });
}

QLabel* CostPanel::addValue(QFormLayout* form, const QString& label, const char* objectName)
{
    auto* value = new QLabel;
    value->setObjectName(QString::fromLatin1(objectName));
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    value->setWordWrap(true);
    form->addRow(label, value);
    return value;
}

QString CostPanel::errorText() const
{
    return m_error->isHidden() ? QString() : m_error->text(); // isHidden: also right before the panel is shown
}

void CostPanel::syncInputs()
{
    const Scenario& s = m_model->scenario();
    const CostInputs& in = s.cost;
    m_syncing = true;
    const QSignalBlocker blockKind(m_jobKind);
    const QSignalBlocker blockTokens(m_tokens);
    const QSignalBlocker blockDays(m_days);
    const QSignalBlocker blockBaseline(m_baseline);
    const QSignalBlocker blockTarget(m_target);
    const QSignalBlocker blockPrice(m_price);
    m_jobKind->setCurrentIndex(in.tokenBudget ? 0 : 1);
    if (in.tokenBudget)
        m_tokens->setValue(*in.tokenBudget / kGiga);
    if (in.days || !in.tokenBudget)
        m_days->setValue(in.days.value_or(0)); // 0 shows "none": no job to cost yet
    m_baseline->setValue(in.baselineMfu ? *in.baselineMfu * 100.0 : 0);
    m_target->setValue(in.targetMfu ? *in.targetMfu * 100.0 : 0);
    const double price = s.effectivePricePerGpuHourUsd();
    m_price->setValue(price > 0 ? price : 0.0);
    m_tokens->setEnabled(m_jobKind->currentIndex() == 0);
    m_days->setEnabled(m_jobKind->currentIndex() == 1);
    for (EntryReason* entry : std::as_const(m_entryReasons)) // a new figure ends a refusal said beside it
        entry->fieldSet();
    m_syncing = false;
}

void CostPanel::writeInputs()
{
    if (m_syncing)
        return;
    const auto positive = [](double v, double scale) { return v > 0 ? std::optional(v * scale) : std::nullopt; };
    CostInputs in;
    if (m_jobKind->currentIndex() == 0)
        in.tokenBudget = positive(m_tokens->value(), kGiga);
    else
        in.days = positive(m_days->value(), 1.0);
    in.baselineMfu = positive(m_baseline->value(), 0.01);
    in.targetMfu = positive(m_target->value(), 0.01);
    m_model->setCostInputs(in);
}

ScenarioDocument CostPanel::document() const
{
    ScenarioDocument doc;
    doc.scenario = m_model->scenario();
    return doc;
}

void CostPanel::recompute()
{
    const ScenarioDocument doc = document();
    // With the window's calibration, as the report costs the job (one call: reportFigures), so the MFU here is
    // the calibrated one Predict shows when the calibration describes the scenario.
    ReportOptions options;
    if (const auto& calibration = m_model->traceCalibration())
        options.calibration = ReportCalibration { *calibration, m_model->traceCalibrationSource().toStdString() };
    m_figures = reportFigures(doc, options);
    m_comparison.reset();
    m_hardwareLeftOut.clear();
    m_hardwarePending = m_figures.cost && m_figures.cost->job.tokens;
    if (m_hardwarePending) {
        // The job predicted on every GPU preset: dozens of cost models, off the GUI thread (a newer edit cancels it
        // and only the newest comparison is drawn).
        struct Compared {
            std::optional<HardwareComparison> comparison;
            std::vector<std::pair<std::string, std::string>> leftOut;
        };
        const PresetLibrary* presets = &m_presets;
        m_hardwareJob->start<Compared>(
            [scenario = doc.scenario, tokens = *m_figures.cost->job.tokens, fpt = m_figures.cost->flopsPerToken,
                presets](JobControl&) {
                Compared c;
                const PredictedHardware predicted
                    = predictedHardwareOptionsExplained(scenario, presets->hardware(), presets);
                for (const auto& left : predicted.leftOut)
                    c.leftOut.emplace_back(left.hardwareId, left.reason);
                if (!predicted.options.empty()) {
                    c.comparison = compareHardware(tokens, fpt, predicted.options);
                    std::stable_sort(c.comparison->rows.begin(), c.comparison->rows.end(),
                        [](const auto& a, const auto& b) { return a.cost.costUsd < b.cost.costUsd; });
                }
                return c;
            },
            [this](Compared& c) {
                m_comparison = std::move(c.comparison);
                m_hardwareLeftOut = std::move(c.leftOut);
                m_hardwarePending = false;
                showResults();
            });
    }
    showResults();
}

void CostPanel::showResults()
{
    QString error;
    QString errorAfterPrefix;
    for (const auto& note : m_figures.notes)
        if (note.rfind(kCostNotePrefix, 0) == 0) {
            error = qs(note);
            errorAfterPrefix = qs(note.substr(kCostNotePrefix.size()));
        }
    m_error->setText(error);
    m_error->setVisible(!error.isEmpty());

    const auto& c = m_figures.cost;
    const QString none = QStringLiteral("-");
    for (auto* label : { m_mfu, m_tokensTrained, m_gpuHours, m_wallClock, m_dollars, m_energy, m_equivalents,
             m_recovered, m_timeSaved, m_costSaved })
        label->setText(none);
    for (auto* chart : { m_costChart, m_daysChart, m_savingsChart, m_hardwareChart })
        chart->clearSeries();
    showDerivedJobSide();
    if (!c) {
        // Axes without a job would be a scale of nothing: each chart says what is missing instead.
        const QString why
            = error.isEmpty() ? tr("No job to cost: give a token budget, or days of the cluster.") : errorAfterPrefix;
        const QString reason = why.left(1).toUpper() + why.mid(1);
        for (auto* chart : { m_costChart, m_daysChart, m_savingsChart })
            chart->showEmpty(reason);
        m_savingsChart->setTitle(savingsTitleWithoutATarget()); // not the last target's figures
        m_hardwareChart->showEmpty(tr("No job to compare across GPUs: the note above says what is missing."));
        showHardwareNote();
        return;
    }
    const JobCost& j = c->job;
    m_mfu->setText(qs(formatPercent(c->baselineMfu) + " (" + std::string(mfuOriginLabel(c->baselineOrigin)) + ")"));
    if (j.tokens)
        m_tokensTrained->setText(qs(formatNumber(*j.tokens / kGiga, 1) + " B"));
    m_gpuHours->setText(qs(formatNumber(j.gpuHours, 0)));
    m_wallClock->setText(qs(formatNumber(j.wallClockDays(), 1) + " days"));
    m_dollars->setText(qs("$" + formatNumber(j.costUsd, 0)));
    if (j.energyKwh)
        m_energy->setText(qs(formatNumber(*j.energyKwh, 0) + " kWh"));
    fillCostVsMfu(*m_costChart, *c);
    fillDaysVsMfu(*m_daysChart, *c);
    // A target below the baseline is a loss: the rows say so with positive amounts instead of negative savings.
    const bool loss = c->savings && c->savings->uplift.targetMfu < c->savings->uplift.baselineMfu;
    auto* form = qobject_cast<QFormLayout*>(m_costSaved->parentWidget()->layout());
    auto relabel = [form](QLabel* field, const QString& text) {
        if (auto* label = form ? qobject_cast<QLabel*>(form->labelForField(field)) : nullptr)
            label->setText(text);
    };
    relabel(m_recovered, loss ? tr("Lost (same GPU-hours):") : tr("Recovered (same GPU-hours):"));
    relabel(m_timeSaved, loss ? tr("Time lost (same tokens):") : tr("Time saved (same tokens):"));
    relabel(m_costSaved, loss ? tr("Loss (same tokens):") : tr("Saved (same tokens):"));
    for (QLabel* field : { m_recovered, m_timeSaved, m_costSaved })
        field->setStyleSheet(loss ? errorStyleSheet() : QString());
    if (c->savings) {
        const auto& b = c->savings->fixedBudget;
        const auto& w = c->savings->fixedWork;
        m_equivalents->setText(qs(formatGpuEquivalents(b.productiveGpuEquivalentsBaseline) + " -> "
            + formatGpuEquivalents(b.productiveGpuEquivalentsTarget)));
        const double sign = loss ? -1.0 : 1.0;
        m_recovered->setText(qs(formatGpuEquivalents(sign * b.gpuEquivalentsRecovered) + " GPU-equivalents, worth $"
            + formatNumber(sign * b.recoveredValueUsd, 0)));
        m_timeSaved->setText(
            qs(formatPercent(sign * w.timeSavedFraction) + " (" + formatNumber(w.target.wallClockDays(), 1)
                + " days instead of " + formatNumber(w.baseline.wallClockDays(), 1) + ")"));
        m_costSaved->setText(loss
                ? qs("$" + formatNumber(-w.costSavedUsd, 0)) + tr(" more: the target MFU is below the baseline")
                : qs("$" + formatNumber(w.costSavedUsd, 0)));
        fillSavings(*m_savingsChart, *c->savings);
    } else {
        m_savingsChart->showEmpty(tr("Set a target MFU to see what reaching it saves."));
        m_savingsChart->setTitle(savingsTitleWithoutATarget());
    }
    if (m_comparison)
        fillHardwareCost(*m_hardwareChart, *m_comparison);
    else if (m_hardwarePending)
        m_hardwareChart->showEmpty(tr("Predicting the job on every GPU..."));
    else if (!j.tokens)
        m_hardwareChart->showEmpty(tr("No job to compare across GPUs: the note above says what is missing."));
    else
        m_hardwareChart->showEmpty(tr("No GPU can run this job: the note above says why."));
    showHardwareNote();
}

// The side of the job that is not given, greyed: the tokens the days train, or the days the tokens take ("none" while
// there is no job). It kept its last typed value (1,000 B tokens beside a job of 668.6 B).
void CostPanel::showDerivedJobSide()
{
    const auto& c = m_figures.cost;
    const QSignalBlocker blockTokens(m_tokens);
    const QSignalBlocker blockDays(m_days);
    if (!m_tokens->isEnabled())
        m_tokens->setValue(c && c->job.tokens ? *c->job.tokens / kGiga : 0.0);
    if (!m_days->isEnabled())
        m_days->setValue(c ? c->job.wallClockDays() : 0.0);
}

QString CostPanel::hardwareNote() const
{
    return m_hardwareNote->text();
}

void CostPanel::showHardwareNote()
{
    const Scenario& s = m_model->scenario();
    const auto& c = m_figures.cost;
    QString text;
    QStringList used;
    if (!c || !c->job.tokens) {
        text = tr("No GPUs to compare: the comparison costs the same tokens on each GPU, so it needs a job - a token "
                  "budget, or days of this cluster at a known MFU.");
    } else {
        text = tr("Each GPU trains the same %1 B tokens on %2 with this scenario's configuration, at the MFU "
                  "the cost model predicts for it there (in brackets under each bar; the figures on the left use %3).")
                   .arg(*c->job.tokens / kGiga, 0, 'f', 1)
                   .arg(qs(formatCount(s.cluster.gpuCount, "GPU")))
                   .arg(qs(formatPercent(c->baselineMfu)));
        if (m_hardwarePending)
            text += QLatin1Char(' ') + tr("Predicting it on every GPU...");
        else if (m_comparison)
            for (const auto& row : m_comparison->rows)
                used << tr("%1: %2 MFU").arg(qs(row.hardwareId), qs(formatPercent(row.mfu)));
        else
            text += QLatin1Char(' ') + tr("No GPU can run it, so the chart is empty.");
        // Grouped by reason: one line however many GPUs share it.
        std::vector<std::pair<std::string, QStringList>> byReason;
        for (const auto& [id, reason] : m_hardwareLeftOut) {
            // Captured by name: clang 14 (clang-tidy's) cannot capture a structured binding.
            auto it = std::find_if(byReason.begin(), byReason.end(),
                [&wanted = reason](const auto& group) { return group.first == wanted; });
            if (it == byReason.end())
                it = byReason.insert(byReason.end(), { reason, {} });
            it->second << qs(id);
        }
        for (const auto& [reason, ids] : byReason)
            text += QLatin1Char(' ') + tr("Left out, %1: %2.").arg(qs(reason), ids.join(QStringLiteral(", ")));
    }
    m_hardwareNote->setText(text);
    m_hardwareNote->setToolTip(used.join(QLatin1Char('\n')));
}

} // namespace mfu::widgets
