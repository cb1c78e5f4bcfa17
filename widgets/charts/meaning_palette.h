#pragma once
// The one colour of each meaning the prediction and cost charts show, the same in every chart of every panel, so
// that a colour read in one chart means the same in the next: this configuration's prediction (its line, its band,
// the MFU its waterfall keeps) blue, the planner's best orange, a gain green, a loss rose, each part of GPU memory a
// hue of its own. Kernel categories have theirs (category_palette.h); what the user stated or measured (their own
// scenario's point, measured runs, the baseline MFU) is drawn in the text's colour, told apart by its marker.
// Hues from Okabe & Ito's "Color Universal Design" (2008) and Paul Tol's "muted" scheme, chosen to stay apart under
// the common colour-vision deficiencies and to read on light and dark backgrounds.
#include <QColor>

namespace mfu::widgets {

enum class Meaning {
    ThisConfiguration, // the scenario's own prediction
    PlannersBest, // the planner's best layout
    DoesNotFit, // a configuration predicted not to fit in memory
    CannotBeLaidOut, // a configuration the layout rules refuse
    NothingFits, // the planner found no layout that fits
    Gained, // MFU or dollars gained
    Lost, // MFU lost on the way from the peak
    Parameters, // GPU memory, by part
    Gradients,
    OptimizerState,
    Activations,
    TemporaryBuffers,
    Reserved,
    CalibratedToTrace, // a prediction made with the terms a trace measured (core/calibration/)
};
inline constexpr Meaning kLastMeaning = Meaning::CalibratedToTrace;

QColor meaningColour(Meaning meaning);

} // namespace mfu::widgets
