#pragma once
// The one colour of each kernel category, used by every view that shows categories: the Trace panel's breakdown
// and comparison charts, the timeline, the top-kernels table and the report's charts. Computation in cool hues
// (blues, greens, teals, violet), communication in warm hues (reds, oranges, amber, magenta), memory traffic in
// greys, Idle a light neutral grey; no two categories share a colour, and a colour never depends on the order in
// which a chart adds its series. Also the error colour for figures that cannot be right (an MFU above 100%).
#include <QColor>
#include <QString>

#include <string_view>

#include "core/trace/kernel_category.h"

namespace mfu::widgets {

// key: trace::categoryKey() of a category, or "idle". An unknown key gets a dark neutral grey.
QColor categoryColour(std::string_view key);
QColor categoryColour(trace::KernelCategory category);
QColor idleColour();

// Red that reads on light and dark backgrounds; errorStyleSheet() is "color: ..." for a QLabel.
QColor errorColour();
QString errorStyleSheet();

} // namespace mfu::widgets
