#pragma once
// The core's one format for each kind of figure (core/number_format.h), as the QString a widget shows: every panel
// prints a percent, a duration and a memory size the way the command line and the report print them.
#include <QString>

#include "core/number_format.h"

namespace mfu::widgets {

inline QString percentText(double fraction, int decimals = 2)
{
    return QString::fromStdString(formatPercent(fraction, decimals));
}

inline QString millisecondsText(double seconds)
{
    return QString::fromStdString(formatMilliseconds(seconds));
}

// The value alone ("1,222.6"): the caller writes the unit, as in "%1 TFLOPS per GPU".
inline QString tflopsText(double flopsPerSec)
{
    return QString::fromStdString(formatTflopsValue(flopsPerSec));
}

inline QString gibText(double bytes, int decimals = 1)
{
    return QString::fromStdString(formatGiB(bytes, decimals));
}

} // namespace mfu::widgets
