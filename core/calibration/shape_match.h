#pragma once
// How a scenario's kernels of one family (GEMMs, attention calls) stand against the shapes a trace measured them at
// (docs/cost-model.md, "Calibration from a trace"). Each wanted shape takes the measured-over-modelled time of its
// nearest measured shape of the same kind (in log space), carried to its own shape by the model; it ran in the trace
// as it is (exact), each of its dimensions lies within the range the trace ran (within), or it goes beyond.
#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace mfu {

struct Scenario;

inline constexpr size_t kShapeDims = 3;

// A shape the trace ran: its dimensions, kind (a precision, a pass), its time as measured, and as the carrying law
// (the model's figures at this exact shape) has it.
struct MeasuredShape {
    std::array<double, kShapeDims> dims {};
    std::string kind;
    double measuredSeconds = 0;
    double lawSeconds = 0;
    // measured over law; 0 when either is not a positive, finite time (an edited file: never carried)
    double ratio() const
    {
        const double r = lawSeconds > 0 ? measuredSeconds / lawSeconds : 0.0;
        return r > 0 && std::isfinite(r) ? r : 0.0;
    }
};

// A shape the scenario runs and what it is ("k_proj forward"): its time by the carrying law at its own shape, and as
// the cost model's term counts it (the model may take one limiting dimension for several products).
struct WantedShape {
    std::array<double, kShapeDims> dims {};
    std::string kind;
    double lawSeconds = 0;
    double modelSeconds = 0;
    std::string what;
};

struct ShapeMatch {
    // The wanted shapes' time carried from the measured ones (each its nearest one's measured-over-law ratio times its
    // own law time) over the cost model's time for them. A calibration scales its term by the scenario's over the
    // traced run's own, so that the measured shapes' times replace the model's where the scenario runs them.
    double measuredOverModel = 1;
    double exactShare = 0; // of the law time: shapes the trace ran as they are
    double withinShare = 0; // each dimension within the range the trace ran for that kind
    double beyondShare = 0; // a dimension or the kind beyond what the trace ran
    std::string beyond; // the wanted shape beyond with the most time, said: "k_proj forward N 512: the trace's ..."
};

// How the dimensions and the kinds are named in `beyond`: { "M", "N", "K" } and "GEMMs".
struct ShapeWords {
    std::array<const char*, kShapeDims> dims {};
    const char* family = "";
};

// The clock the traced kernels are modelled at on the scenario's side: a lone-GPU scenario's model puts its
// power-limited clock on GEMM and attention time (CostModel::tensorCoreSlowdown), so there (scenarioRunsAlone: the
// runsAsLoneGpu its shape lookup already made) the traced kernels are modelled at the traced run's own clock, and the
// scenario's moves them from it to its own; on more GPUs the published fit carries the clock, and the traced
// kernels' measured speed is taken as it is (1).
double tracedClock(bool scenarioRunsAlone, const Scenario& traced);

// nullopt when nothing is wanted or nothing was measured with a modelled time.
std::optional<ShapeMatch> matchShapes(
    const std::vector<MeasuredShape>& measured, const std::vector<WantedShape>& wanted, const ShapeWords& words);

} // namespace mfu
