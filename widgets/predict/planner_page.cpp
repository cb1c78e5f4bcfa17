#include "widgets/predict/planner_page.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include "widgets/jobs/background_job.h"
#include "widgets/predict/calibration_box.h"
#include "widgets/predict/planner_table.h"
#include "widgets/scenario/scenario_model.h"

namespace mfu::widgets {

PlannerPage::PlannerPage(ScenarioModel* model, QWidget* parent)
    : QWidget(parent)
    , m_model(model)
    , m_job(new BackgroundJob(this))
{
    auto* layout = new QVBoxLayout(this);
    m_planner = new PlannerTableModel(this);
    m_sorted = new QSortFilterProxyModel(this);
    m_sorted->setSourceModel(m_planner);
    m_sorted->setSortRole(PlannerTableModel::SortRole);
    m_table = new QTableView;
    m_table->setObjectName(QStringLiteral("plannerTable"));
    m_table->setAccessibleName(tr("Planner's top configurations"));
    m_table->setModel(m_sorted);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(PlannerTableModel::Rank, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->setVisible(false);
    // The figures keep their width and the configuration takes what is left, elided (its tooltip has it whole): sized
    // to its contents it pushed MFU and tokens/s out of view at 1280x720.
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(PlannerTableModel::Layout, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(PlannerTableModel::Reason, QHeaderView::Stretch);
    m_status = new QLabel;
    m_status->setObjectName(QStringLiteral("plannerStatus"));
    m_status->setWordWrap(true);
    m_apply = new QPushButton(tr("&Apply selected configuration"));
    m_apply->setObjectName(QStringLiteral("applyPlan"));
    m_apply->setEnabled(false);
    // The status (the search's figures and the ranking rule, several lines) takes the page's whole width, and Apply
    // sits beside the selected row's reason: beside the status it left the text a third of the width at 1280x720,
    // more lines than the page had height for.
    layout->addWidget(m_status);
    m_uncalibrated = new QLabel(tr("The layouts are ranked and shown as the validated model predicts them, not "
                                   "calibrated to the trace: a calibration that extrapolates does not reorder what it "
                                   "never measured (plan --calibration gives each layout's calibrated figures)."));
    m_uncalibrated->setObjectName(QStringLiteral("plannerUncalibrated"));
    m_uncalibrated->setWordWrap(true);
    m_uncalibrated->setVisible(m_model->traceCalibration().has_value());
    layout->addWidget(m_uncalibrated);
    connect(m_model, &ScenarioModel::traceCalibrationChanged, this,
        [this] { m_uncalibrated->setVisible(m_model->traceCalibration().has_value()); });
    // At least the header and five rows: on a 720-line screen the table was one row high and the calibration's
    // buttons squashed to slivers; the panel scrolls the page instead (PredictPanel).
    m_table->setMinimumHeight(m_table->horizontalHeader()->sizeHint().height()
        + 5 * m_table->verticalHeader()->defaultSectionSize() + 2 * m_table->frameWidth());
    layout->addWidget(m_table, 1);
    m_reason = new QLabel;
    m_reason->setObjectName(QStringLiteral("plannerReason"));
    m_reason->setWordWrap(true);
    m_reason->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* row = new QHBoxLayout;
    row->addWidget(m_reason, 1);
    row->addWidget(m_apply, 0, Qt::AlignTop);
    layout->addLayout(row);
    m_calibration = new CalibrationBox(m_model);
    layout->addWidget(m_calibration);

    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        m_apply->setEnabled(!m_stale && m_table->selectionModel()->hasSelection());
        showReason();
    });
    // Cancelled, the rows stay what they are: another scenario's plan, said so, and not to be applied to this one.
    connect(m_job, &BackgroundJob::cancelled, this, [this] {
        if (m_planner->rowCount() > 0)
            m_status->setText(tr("Cancelled: the rows are the plan of the scenario before (%1), not of this one; "
                                 "change the scenario to plan it again.")
                                  .arg(m_plannedScenario));
        else
            m_status->setText(tr("Cancelled before this scenario's plan finished; change the scenario to plan it."));
    });
    connect(m_apply, &QPushButton::clicked, this, [this] {
        const QModelIndexList rows = m_table->selectionModel()->selectedRows();
        if (!rows.isEmpty() && !m_stale)
            apply(rows.front().row());
    });
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        if (!m_stale)
            apply(index.row());
    });
}

void PlannerPage::start(const Scenario& s, double tieTolerance)
{
    PlannerOptions options;
    options.tieTolerance = tieTolerance;
    // The last scenario's best layout is not this one's: gone while the plan runs, so the memory chart and the
    // calibration box do not show it as "Planner's best" meanwhile.
    m_best.reset();
    m_calibration->setBestConfig(m_best);
    // Until this plan is in, the rows are the last scenario's: kept on screen (no flicker while a field steps), but
    // not applied to this one.
    m_stale = true;
    m_apply->setEnabled(false);
    const QString planning = tr("%1 on %L2 x %3")
                                 .arg(QString::fromStdString(s.model.name))
                                 .arg(s.cluster.gpuCount)
                                 .arg(QString::fromStdString(s.cluster.hardware.name));
    // Never the last plan's summary as this one's: "0 fit ... Nothing fits in memory" stayed on screen while a
    // scenario that fits was being planned.
    if (m_planner->rowCount() > 0)
        m_status->setText(tr("Planning this scenario; the rows below are the last plan's (%1) until it is in.")
                              .arg(m_plannedScenario));
    else
        m_status->setText(tr("Planning %1...").arg(planning));
    m_job->start<PlanResult>(
        [s, options](JobControl& control) {
            return planConfigurations(
                s, options, [&control](double f) { control.setProgress(f); }, &control.cancel);
        },
        [this, tieTolerance, planning](PlanResult& r) {
            m_planner->setPlan(r);
            m_stale = false;
            m_plannedScenario = planning;
            m_best.reset();
            if (!r.configs.empty())
                m_best = r.configs.front();
            m_calibration->setBestConfig(m_best);
            m_apply->setEnabled(m_table->selectionModel()->hasSelection());
            // The ranking rule and, when the band ties them all, what the order means: the words `plan` prints.
            std::string note = planOrderNote(r, tieTolerance);
            if (const std::string left = beyondPhysicsLeftOutNote(r); !left.empty() && !r.configs.empty())
                note += (note.empty() ? "" : ". ") + left;
            m_status->setText(
                tr("%L1 configurations evaluated, %L2 fit, in %3 s, at a global batch of %L4 tokens. %5 %6%7")
                    .arg(r.evaluated)
                    .arg(r.fitting)
                    .arg(r.seconds, 0, 'f', 2)
                    .arg(r.globalBatchTokens)
                    .arg(QString::fromStdString(plannerRankingRule(tieTolerance)))
                    .arg(note.empty() ? QString() : QString::fromStdString(note) + QStringLiteral(". "))
                    .arg(r.configs.empty() ? QString::fromStdString(whyNothingPlanned(r)) + QLatin1Char('.')
                                           : tr("Select a row and Apply it, or double-click it.")));
            showReason();
            emit planShown();
        });
}

void PlannerPage::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    fitColumns();
}

void PlannerPage::fitColumns()
{
    // Pixels for every column whole: the figures, a configuration and a readable preview of the reason. Narrower
    // (the Predict tab at 1280x720 leaves about 500), the step time (tokens/s ranks, from the same batch) and the
    // reason give way, and the memory shows its peak and capacity with the headroom in its tooltip, so that the
    // configuration keeps room beside MFU and tokens/s.
    constexpr int kWidthForEveryColumn = 1000;
    const bool narrow = width() < kWidthForEveryColumn;
    m_table->setColumnHidden(PlannerTableModel::Reason, narrow);
    m_table->setColumnHidden(PlannerTableModel::StepTime, narrow);
    QHeaderView* header = m_table->horizontalHeader();
    header->setSectionResizeMode(
        PlannerTableModel::Memory, narrow ? QHeaderView::Interactive : QHeaderView::ResizeToContents);
    // Wide, the configuration is whole and the reason preview takes what is left; narrow, the configuration takes
    // what is left, elided in the middle: layouts differ most at their ends (checkpointing, micro-batch), and
    // "one GPU, no parallelism..." four times over told the rows apart by nothing.
    header->setSectionResizeMode(
        PlannerTableModel::Layout, narrow ? QHeaderView::Stretch : QHeaderView::ResizeToContents);
    m_table->setTextElideMode(narrow ? Qt::ElideMiddle : Qt::ElideRight);
    if (narrow)
        m_table->setColumnWidth(PlannerTableModel::Memory,
            m_table->fontMetrics().horizontalAdvance(QStringLiteral("000.0 of 000.0 GiB...")) + 12);
}

void PlannerPage::showReason()
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    const int row = rows.isEmpty() ? 0 : rows.front().row();
    const QModelIndex reason = m_sorted->index(row, PlannerTableModel::Reason);
    m_reason->setText(reason.isValid() ? tr("Why #%1 ranks here: %2")
                                             .arg(m_sorted->index(row, PlannerTableModel::Rank).data().toInt())
                                             .arg(reason.data().toString())
                                       : QString());
}

bool PlannerPage::apply(int viewRow)
{
    const QModelIndex source = m_sorted->mapToSource(m_sorted->index(viewRow, 0));
    if (!source.isValid())
        return false;
    const PlannedConfig& c = m_planner->config(source.row());
    m_model->setConfiguration(c.parallelism, c.activationCheckpointing, m_model->scenario().flags, c.microBatch);
    emit applied(QString::fromStdString(describeConfig(c)));
    return true;
}

} // namespace mfu::widgets
