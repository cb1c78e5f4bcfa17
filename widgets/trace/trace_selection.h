#pragma once
// What every page of the Trace panel shows: the run, the baseline it is compared with, and the selected rank. The
// panel owns the import and hands each page this after every change; a page only lays out what core computed.
#include <memory>

#include "widgets/trace/trace_import.h"

namespace mfu::widgets {

struct TraceSelection {
    std::shared_ptr<const TraceRun> run;
    std::shared_ptr<const TraceRun> baseline;
    int rank = -1; // index into run->analysis.ranks; -1 when none

    const trace::RankAnalysis* selectedRank() const
    {
        return run && rank >= 0 && rank < static_cast<int>(run->analysis.ranks.size())
            ? &run->analysis.ranks[static_cast<size_t>(rank)]
            : nullptr;
    }
    bool comparing() const { return run && baseline; }
};

} // namespace mfu::widgets
