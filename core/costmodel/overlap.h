#pragma once
// Overlap of communication with the compute it runs beside: what the compute cannot hide, plus a share of what it
// could that stays exposed anyway (late issue, stream ordering, SMs given to communication).
#include <algorithm>

namespace mfu {

inline double exposedAfterOverlap(double comm, double compute, double exposedShare)
{
    return std::max(0.0, comm - compute) + std::min(comm, compute) * exposedShare;
}

// Communication per micro-batch (or per step, where a term says so): all of it, and what stays on the critical path.
struct CommTime {
    double total = 0;
    double exposed = 0;
};

} // namespace mfu
