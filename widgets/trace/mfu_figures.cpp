#include "widgets/trace/mfu_figures.h"

#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>

#include <cmath>

#include "core/costmodel/cost_model.h"
#include "core/facts/file_facts.h"
#include "core/facts/shown_mfu.h"
#include "core/model/flops.h"
#include "core/scenario/scenario_facts.h"
#include "core/trace/step_work.h"
#include "core/trace/trace_facts.h"
#include "core/trace/trace_mfu.h"
#include "widgets/charts/category_palette.h"
#include "widgets/number_text.h"
#include "widgets/scenario/scenario_model.h"
#include "widgets/trace/rank_figures.h"

namespace mfu::widgets {

namespace {

} // namespace

MfuFigures::MfuFigures(ScenarioModel* scenario, QWidget* parent)
    : QGroupBox(tr("MFU"), parent)
    , m_scenario(scenario)
{
    auto* form = new QVBoxLayout(this);
    m_measured = addFigure(form, tr("Measured MFU:"), "measuredMfu");
    m_trace = addFigure(form, tr("From the trace alone:"), "traceMfu");
    m_check = addFigure(form, tr("Trace vs model:"), "mfuCheck");
    m_predicted = addFigure(form, tr("Predicted MFU (cost model):"), "predictedMfu");
    m_note = new QLabel;
    m_note->setObjectName(QStringLiteral("mfuNote"));
    m_note->setWordWrap(true);
    form->addSpacing(kFigureGap);
    form->addWidget(m_note);
}

void MfuFigures::show(const TraceSelection& selection)
{
    m_selection = selection;
    refresh();
}

void MfuFigures::refresh()
{
    const Scenario& s = m_scenario->scenario();
    const double tokens = static_cast<double>(m_scenario->tokensPerStep());
    // The trace's facts against the scenario, once: the prediction and the measured MFU both say what differs.
    const FileFacts facts = m_selection.run ? factsFromTrace(m_selection.run->analysis) : FileFacts {};
    const FactsCheck check = m_selection.run ? checkFacts(facts, s, tokens, m_known) : FactsCheck {};
    showPredicted(s, facts, check);
    showTraceMfu();
    showMeasured(s, tokens, check);
    showCheck();
}

void MfuFigures::showPredicted(const Scenario& s, const FileFacts& facts, const FactsCheck& check)
{
    // The cost model for the same scenario, whether or not a trace is open; a layout that does not fit in memory
    // has no MFU to predict (the Predict panel says the same). Beside a trace it predicts the run as the trace ran
    // it, eager or compiled, its weights FP32 under autocast or 16-bit (scenarioAsTraced): a compiled prediction
    // beside an eager trace compares two different programs. The scenario's own figure follows, named as such.
    const auto predicted = [](const Scenario& scenario) -> QString {
        try {
            const StepPrediction p = evaluate(scenario);
            if (!p.fits)
                return tr("none: the scenario's layout does not fit in memory (%1 per GPU of %2); the Planner tab "
                          "searches for layouts that fit")
                    .arg(gibText(p.memory.total()), gibText(p.memoryCapacityBytes));
            return tr("%1 (step %2)").arg(percentText(p.mfu), millisecondsText(p.stepTimeSeconds));
        } catch (const std::exception& e) {
            return tr("not available: %1").arg(QString::fromUtf8(e.what()));
        }
    };
    const QString differs = scenarioDiffersFromTrace(check);
    const std::optional<AsTraced> asTraced = m_selection.run ? scenarioAsTraced(s, facts) : std::nullopt;
    if (!asTraced) {
        m_predicted->setText(predicted(s) + differs);
        return;
    }
    const QString traceMode = predicted(asTraced->scenario);
    const QString scenarioMode = predicted(s);
    if (traceMode == scenarioMode) { // refused for a reason the mode does not change (no model): said once
        m_predicted->setText(scenarioMode + differs);
        return;
    }
    m_predicted->setText(tr("As the trace ran (%1): %2\nThe scenario (%3): %4")
                             .arg(QString::fromStdString(asTraced->how), traceMode,
                                 QString::fromStdString(asTraced->scenarioHow), scenarioMode)
        + differs);
}

QString MfuFigures::scenarioDiffersFromTrace(const FactsCheck& check) const
{
    // A prediction beside a trace reads as the traced run's: where the scenario is another run (another GPU, batch or
    // model, as the banner lists them), it is said, so its step is not compared with the trace's. Eager or compiled
    // is handled above, by predicting the run as the trace ran it.
    if (!m_selection.run)
        return {};
    QStringList differ;
    for (const FactDifference& d : check.differences)
        if (d.fact != Fact::Compiled && d.fact != Fact::Autocast // predicted as the trace ran, above
            && d.fact != Fact::Throughput) // a measurement, not what the run is
            differ << QString::fromStdString(factLabel(d.fact));
    if (check.workMismatch)
        differ << tr("model");
    if (differ.isEmpty())
        return {};
    return tr("\nFor the scenario, not this trace's run: they differ in %1 (the banner above names the trace's values)")
        .arg(differ.join(QStringLiteral(", ")));
}

void MfuFigures::showTraceMfu()
{
    m_traceMfu.reset();
    const auto& run = m_selection.run;
    if (!run) {
        m_trace->setText(QStringLiteral("–"));
        return;
    }
    // What the figure counts, or why there is none: the core's sentence (CLI and report print the same).
    const trace::RunTraceMfu traceMfu = trace::traceMfuOfRun(run->analysis, m_known);
    m_traceMfu = traceMfu.mfu;
    const trace::RankAnalysis* rank = m_selection.selectedRank();
    QString detail;
    if (m_traceMfu && rank) {
        const trace::StepMatrixWork work = trace::stepMatrixWork(*rank); // the report's figure too
        detail = tr("; %1 TFLOP of matrix work per step (%2), %n operator(s) without shapes", nullptr,
            static_cast<int>(rank->opFlops.opsWithoutShapes))
                     .arg(QLocale().toString(work.flopsPerStep / 1e12, 'f', 2),
                         QString::fromStdString(trace::precisionSharesText(work)));
    }
    if (const std::string hfu = trace::traceHfuText(traceMfu, run->analysis); !hfu.empty())
        detail += tr(". HFU %1").arg(QString::fromStdString(hfu));
    m_trace->setText(QString::fromStdString(traceMfu.note) + detail);
    m_trace->setStyleSheet(traceMfu.abovePeak ? errorStyleSheet() : QString());
}

void MfuFigures::showMeasured(const Scenario& s, double tokens, const FactsCheck& check)
{
    m_measuredMfu.reset();
    m_countedDifferences.clear();
    m_measured->setStyleSheet(QString());
    const auto& run = m_selection.run;
    // Said beside measured MFU whatever it shows: the peak it divides by is then the scenario's guess.
    const QString noGpu = !run || check.gpuRecorded
        ? QString()
        : tr(" (the trace records no GPU: the scenario's %1 is assumed)")
              .arg(QString::fromStdString(s.cluster.hardware.displayName()));
    m_note->setText(tr("Measured MFU uses the scenario's model, FLOP/token formula, tokens per step, GPU count and GPU "
                       "with the trace's mean step time; the trace's own MFU counts what its operators did."));
    // A trace that records no GPU says nothing of the run either; the window's untouched example (Llama 3.1 8B on a
    // B200) is then no more its model than any other, and a recommender trace read 34% MFU as that example.
    if (run && !check.gpuRecorded && m_scenario->isBuiltInExample()) {
        m_measured->setText(tr("not shown: the trace records no GPU and the scenario is still the window's example "
                               "(%1 on %2); set the model, GPU and tokens per step this trace ran")
                                .arg(QString::fromStdString(s.model.displayName()),
                                    QString::fromStdString(s.cluster.hardware.displayName())));
        m_measured->setStyleSheet(errorStyleSheet());
        return;
    }
    if (!run || !(run->analysis.meanStepSeconds > 0)) {
        m_measured->setText((run ? tr("needs a measured step time (steps from annotations or the kernel sequence)")
                                 : QStringLiteral("–"))
            + noGpu);
        return;
    }
    std::optional<double> fpt;
    try {
        fpt = scenarioFlopsPerToken(s); // 6N for a bare parameter count, as on every other surface
    } catch (const std::exception&) {
        fpt.reset(); // said below: the scenario's model cannot give a FLOP/token
    }
    if (!fpt || !(*fpt > 0) || !(tokens > 0)) {
        m_measured->setText(
            (m_scenario->layoutError().isEmpty() ? tr("not available: the scenario needs a model and a positive batch")
                                                 : tr("not available: %1").arg(m_scenario->layoutError()))
            + noGpu);
        return;
    }
    try {
        // The policy every surface follows (core/facts/shown_mfu.h).
        const ShownMfu shown = shownMeasuredMfu(scenarioMfuAtStepTime(s, tokens, run->analysis.meanStepSeconds), check);
        // Checked against the trace's own MFU when the policy allows it (core/facts/shown_mfu.h).
        m_measuredMfu = shown.crossCheckable;
        m_countedDifferences = shown.countedDifferences;
        if (shown.withheld) {
            // Never a number the scenario cannot stand behind: name the fact that disagrees instead.
            m_measured->setText(tr("not shown: %1").arg(QString::fromStdString(*shown.withheld)) + noGpu);
            m_measured->setStyleSheet(errorStyleSheet());
            return;
        }
        m_measured->setText(percentText(shown.computed.mfu) + noGpu
            + (shown.warning ? QStringLiteral(" (%1)").arg(QString::fromStdString(*shown.warning)) : QString()));
    } catch (const std::exception& e) {
        m_measured->setText(tr("not available: %1").arg(QString::fromUtf8(e.what())) + noGpu);
        return;
    }
    m_note->setText(
        tr("Measured MFU: the trace's mean step time %1 with the scenario's %2 (%3 tokens per step on %n "
           "GPU(s), %4). The trace's own MFU counts what its operators did, with no model.",
            nullptr, s.cluster.gpuCount)
            .arg(millisecondsText(run->analysis.meanStepSeconds), QString::fromStdString(s.model.displayName()),
                QLocale().toString(tokens, 'f', 0), QString::fromStdString(s.cluster.hardware.displayName())));
}

void MfuFigures::showCheck()
{
    m_check->setStyleSheet(QString());
    if (!m_selection.run || !m_traceMfu || !m_measuredMfu) {
        m_check->setText(QStringLiteral("–"));
        return;
    }
    const trace::MfuCrossCheck c = trace::crossCheckMfu(m_selection.run->analysis, *m_traceMfu, *m_measuredMfu,
        scenarioFlopFormula(m_scenario->scenario()), m_countedDifferences);
    QString text = QString::fromStdString(c.summary) + QLatin1Char('.');
    if (!c.agrees) {
        text += QLatin1Char(' ') + tr("What may explain it:");
        for (const auto& why : c.explanations)
            text += QStringLiteral("\n• ") + QString::fromStdString(why);
        m_check->setStyleSheet(errorStyleSheet());
    }
    m_check->setText(text);
}

} // namespace mfu::widgets
