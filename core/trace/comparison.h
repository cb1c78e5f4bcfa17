#pragma once
// Baseline vs optimised run, side by side (Lambda's MFU paper, Figure 3): per category the exclusive share of the
// analysed span and the seconds per step, plus idle, with deltas (optimised - baseline); step time and speed-up.
#include <string>
#include <vector>

#include "core/trace/analysis.h"

namespace mfu::trace {

struct CategoryComparison {
    std::string key; // a category key, or "idle"
    double baselineShare = 0;
    double optimisedShare = 0;
    double baselineSecondsPerStep = 0;
    double optimisedSecondsPerStep = 0;
    double deltaShare() const { return optimisedShare - baselineShare; }
    double deltaSecondsPerStep() const { return optimisedSecondsPerStep - baselineSecondsPerStep; }
};

struct RunComparison {
    double baselineStepSeconds = 0;
    double optimisedStepSeconds = 0;
    double speedup = 0; // baseline / optimised step time; 0 when either is unknown
    std::vector<CategoryComparison> categories; // every category, then idle
};

// Shares pool all ranks of a run: sum of a category's exclusive time over the summed span.
RunComparison compareRuns(const RunAnalysis& baseline, const RunAnalysis& optimised);

} // namespace mfu::trace
