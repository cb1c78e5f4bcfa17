#include "core/calibration/shape_match.h"

#include <cmath>

#include "core/costmodel/cost_model.h"
#include "core/number_format.h"
#include "core/scenario/scenario.h"

namespace mfu {

namespace {

double logDistance(const std::array<double, kShapeDims>& a, const std::array<double, kShapeDims>& b)
{
    double d = 0;
    for (size_t i = 0; i < kShapeDims; ++i) {
        const double r = std::log(a[i] / b[i]);
        d += r * r;
    }
    return d;
}

// "N 512: the trace's smallest is 1,024", "" when every dimension lies within the measured shapes' range.
std::string beyondRange(const WantedShape& w, const std::vector<const MeasuredShape*>& same, const ShapeWords& words)
{
    for (size_t d = 0; d < kShapeDims; ++d) {
        double lo = INFINITY, hi = 0;
        for (const MeasuredShape* m : same) {
            lo = std::min(lo, m->dims[d]);
            hi = std::max(hi, m->dims[d]);
        }
        const double v = w.dims[d];
        if (v < lo)
            return std::string(words.dims[d]) + " " + formatNumber(v) + ": the trace's smallest is " + formatNumber(lo);
        if (v > hi)
            return std::string(words.dims[d]) + " " + formatNumber(v) + ": the trace's largest is " + formatNumber(hi);
    }
    return "";
}

} // namespace

double tracedClock(bool scenarioRunsAlone, const Scenario& traced)
{
    return scenarioRunsAlone ? CostModel(traced).tensorCoreSlowdown(traced) : 1.0;
}

std::optional<ShapeMatch> matchShapes(
    const std::vector<MeasuredShape>& measured, const std::vector<WantedShape>& wanted, const ShapeWords& words)
{
    double measuredAll = 0, lawAll = 0;
    for (const MeasuredShape& m : measured)
        if (m.ratio() > 0) {
            measuredAll += m.measuredSeconds;
            lawAll += m.lawSeconds;
        }
    if (wanted.empty() || !(lawAll > 0))
        return std::nullopt;
    const double overall = measuredAll / lawAll; // for a kind the trace never ran

    ShapeMatch out;
    double law = 0, model = 0, carried = 0, beyondWorst = 0;
    for (const WantedShape& w : wanted) {
        std::vector<const MeasuredShape*> same;
        const MeasuredShape* nearest = nullptr;
        double best = INFINITY;
        for (const MeasuredShape& m : measured) {
            if (m.kind != w.kind || !(m.ratio() > 0))
                continue;
            same.push_back(&m);
            if (const double d = logDistance(w.dims, m.dims); d < best) {
                best = d;
                nearest = &m;
            }
        }
        const double t = w.lawSeconds;
        law += t;
        model += w.modelSeconds;
        carried += t * (nearest ? nearest->ratio() : overall);
        std::string beyond;
        if (same.empty())
            beyond = "(" + w.kind + "): the trace ran no " + w.kind + " " + words.family;
        else if (best < 1e-12)
            out.exactShare += t;
        else if (beyond = beyondRange(w, same, words); beyond.empty())
            out.withinShare += t;
        if (beyond.empty())
            continue;
        out.beyondShare += t;
        if (t > beyondWorst) { // the wanted shape beyond with the most time names the reason
            beyondWorst = t;
            out.beyond = w.what + " " + beyond;
        }
    }
    if (!(law > 0 && model > 0 && carried > 0) || !std::isfinite(carried / model))
        return std::nullopt;
    out.measuredOverModel = carried / model;
    out.exactShare /= law;
    out.withinShare /= law;
    out.beyondShare /= law;
    return out;
}

} // namespace mfu
