#pragma once
// LeverTable: what each lever of a packed or padded run changes in the prediction (core/costmodel/levers.h): the
// scenario with the lever pulled and released, in useful tokens/s per GPU (the figure to compare: padding and
// attention over the packed sequence cost time and train nothing), MFU and peak memory per GPU. Display only.
#include <QTableWidget>

#include <vector>

#include "core/costmodel/levers.h"

namespace mfu::widgets {

class LeverTable : public QTableWidget {
    Q_OBJECT
public:
    explicit LeverTable(QWidget* parent = nullptr);
    // Empty: the scenario cannot be predicted; the table says so in its one row.
    void showLevers(const std::vector<LeverEffect>& levers);
};

} // namespace mfu::widgets
