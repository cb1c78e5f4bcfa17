#include "widgets/trace/log_pattern_row.h"

#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

#include "core/errors.h"
#include "widgets/charts/category_palette.h"

namespace mfu::widgets {

LogPatternRow::LogPatternRow(QWidget* parent)
    : QWidget(parent)
    , m_regex(new QLineEdit)
    , m_groups(new QLineEdit)
    , m_read(new QPushButton(tr("Read with this pattern")))
    , m_problem(new QLabel)
{
    m_regex->setObjectName(QStringLiteral("logPatternRegex"));
    m_groups->setObjectName(QStringLiteral("logPatternGroups"));
    m_read->setObjectName(QStringLiteral("logPatternRead"));
    m_problem->setObjectName(QStringLiteral("logPatternProblem"));
    // A MaxText step line, as the example: what a user of the format would adapt.
    m_regex->setPlaceholderText(
        QStringLiteral(R"(completed step: (\d+), seconds: ([\d.]+), TFLOP/s/device: ([\d.]+))"));
    m_groups->setPlaceholderText(QStringLiteral("step=1,time_s=2,tflops=3"));
    m_regex->setToolTip(tr("An ECMAScript regular expression that matches one step line (mfu-explorer trace "
                           "--log-pattern)."));
    m_groups->setToolTip(tr("The capture group of each figure (mfu-explorer trace --log-groups). Keys: step, time_s, "
                            "time_ms, tokens_per_sec, tflops, mfu_percent, loss."));
    m_regex->setAccessibleName(tr("Step line pattern"));
    m_groups->setAccessibleName(tr("Capture groups"));
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(errorStyleSheet());
    m_problem->setVisible(false);

    auto* layout = new QGridLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new QLabel(tr("Step line pattern:")), 0, 0);
    layout->addWidget(m_regex, 0, 1);
    layout->addWidget(new QLabel(tr("Groups:")), 0, 2);
    layout->addWidget(m_groups, 0, 3);
    layout->addWidget(m_read, 0, 4);
    layout->addWidget(m_problem, 1, 0, 1, 5);
    layout->setColumnStretch(1, 3);
    layout->setColumnStretch(3, 1);

    connect(m_read, &QPushButton::clicked, this, &LogPatternRow::read);
    connect(m_regex, &QLineEdit::returnPressed, this, &LogPatternRow::read);
    connect(m_groups, &QLineEdit::returnPressed, this, &LogPatternRow::read);
}

void LogPatternRow::read()
{
    try {
        // The command line's own parser of --log-groups: the same keys and the same refusals.
        const trace::LogPattern pattern
            = trace::logPatternFromGroups(m_regex->text().toStdString(), m_groups->text().toStdString());
        m_problem->setVisible(false);
        emit readRequested(pattern);
    } catch (const InputError& e) {
        m_problem->setText(tr("Pattern refused: %1").arg(QString::fromStdString(e.what())));
        m_problem->setVisible(true);
    }
}

} // namespace mfu::widgets
