#include "core/facts/shown_mfu.h"

namespace mfu {

ShownMfu shownMeasuredMfu(const MfuResult& computed, const FactsCheck& check)
{
    ShownMfu out { computed, measuredMfuWithheld(check, computed.mfu), std::nullopt };
    if (out.withheld)
        return out;
    std::string facts;
    for (const FactDifference& d : check.differences) {
        if (d.fact == Fact::AttentionKernel || d.fact == Fact::Compiled || d.fact == Fact::Throughput)
            continue; // how the step ran, not what it counts; the trace's figure uses its own step time
        facts += (facts.empty() ? "" : ", ") + factLabel(d.fact) + " " + d.inFile + " in the file vs " + d.inScenario
            + " in the scenario";
    }
    if (!facts.empty())
        out.warning = "computed with the scenario's values where the file states others (" + facts + ")";
    return out;
}

} // namespace mfu
