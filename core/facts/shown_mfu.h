#pragma once
// One policy for a measured MFU shown on any surface (the Trace panel, the training-log view, `trace --json`, the
// report): the figure computed from a file's step time and the window's scenario is shown as a number only when the
// scenario can describe the file. Every surface calls shownMeasuredMfu and prints what it returns, so an H100 trace
// read against a B200 scenario is withheld in the window, on the command line and in the report alike.
#include <optional>
#include <string>

#include "core/facts/file_facts.h"
#include "core/model/mfu.h"

namespace mfu {

struct ShownMfu {
    MfuResult computed; // what the inputs give, shown or not (kept for the JSON's record and the cross-check)
    // The reason no number is shown (the file's GPU is not the scenario's, or the figure exceeds 100%); when set,
    // no surface prints computed.mfu as the run's MFU.
    std::optional<std::string> withheld;
    // Shown beside a figure that is shown: the facts the file states that the scenario does not share (its tokens
    // per step, sequence, model size), so the reader knows the figure rests on the scenario's values.
    std::optional<std::string> warning;
    // The figure the trace's own MFU may be checked against (trace::crossCheckMfu): computed.mfu when the file's GPU
    // is the scenario's, shown or withheld as impossible; nullopt when the peak is another GPU's. The window, the
    // command line and the report all cross-check this, never computed.mfu directly.
    std::optional<double> crossCheckable;
    // The facts the figure counts with the scenario's values where the file states others ("sequence length 4,096
    // in the file vs 8,192 in the scenario"), whether shown or withheld: what the cross-check names first when the
    // two MFUs disagree. Empty when the scenario states every counted fact as the file does.
    std::string countedDifferences;
    bool shown() const { return !withheld.has_value(); }
};

// The policy: withheld when measuredMfuWithheld says so (core/facts/file_facts.h); else shown, with a warning
// naming each fact of the file that differs from the scenario (the attention kernel and eager/compiled aside: they
// change how fast the step ran, not what MFU counts).
ShownMfu shownMeasuredMfu(const MfuResult& computed, const FactsCheck& check);

} // namespace mfu
