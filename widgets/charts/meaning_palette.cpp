#include "widgets/charts/meaning_palette.h"

namespace mfu::widgets {

QColor meaningColour(Meaning meaning)
{
    switch (meaning) {
    case Meaning::ThisConfiguration:
        return QColor(0x00, 0x72, 0xB2); // Okabe-Ito blue
    case Meaning::PlannersBest:
        return QColor(0xE6, 0x9F, 0x00); // Okabe-Ito orange
    case Meaning::DoesNotFit:
        return QColor(0xD5, 0x5E, 0x00); // Okabe-Ito vermillion
    case Meaning::CannotBeLaidOut:
        return QColor(0x77, 0x77, 0x77); // grey
    case Meaning::NothingFits:
        return QColor(0xCC, 0x79, 0xA7); // Okabe-Ito reddish purple
    case Meaning::Gained:
        return QColor(0x00, 0x9E, 0x73); // Okabe-Ito bluish green
    case Meaning::Lost:
        return QColor(0xCC, 0x66, 0x77); // Tol rose
    case Meaning::Parameters:
        return QColor(0x88, 0x22, 0x55); // Tol wine
    case Meaning::Gradients:
        return QColor(0x99, 0x99, 0x33); // Tol olive
    case Meaning::OptimizerState:
        return QColor(0xDD, 0xCC, 0x77); // Tol sand
    case Meaning::Activations:
        return QColor(0x33, 0x22, 0x88); // Tol indigo
    case Meaning::TemporaryBuffers:
        return QColor(0x88, 0xCC, 0xEE); // Tol cyan
    case Meaning::Reserved:
        return QColor(0xBB, 0xBB, 0xBB); // light grey
    case Meaning::CalibratedToTrace:
        return QColor(0x11, 0x77, 0x33); // Tol green
    }
    return QColor(0x40, 0x40, 0x40);
}

} // namespace mfu::widgets
