#pragma once
// Beside a training log the built-in formats do not read (MaxText, a framework of one's own): the line pattern the
// command line takes as --log-pattern and --log-groups, entered in the window, so the log can be read here too.
#include <QWidget>

#include "core/logs/training_log.h"

class QLabel;
class QLineEdit;
class QPushButton;

namespace mfu::widgets {

class LogPatternRow : public QWidget {
    Q_OBJECT
public:
    explicit LogPatternRow(QWidget* parent = nullptr);

signals:
    // A pattern core accepted (trace::logPatternFromGroups): the log is to be read again with it.
    void readRequested(const mfu::trace::LogPattern& pattern);

private:
    void read();

    QLineEdit* m_regex = nullptr;
    QLineEdit* m_groups = nullptr;
    QPushButton* m_read = nullptr;
    QLabel* m_problem = nullptr; // why the pattern was refused, in the pattern's own words
};

} // namespace mfu::widgets
