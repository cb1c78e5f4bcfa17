#include "core/facts/shown_mfu.h"

namespace mfu {

namespace {

// How the step ran, not what it counts; the trace's figure uses its own step time.
bool countedFact(Fact fact)
{
    return fact != Fact::AttentionKernel && fact != Fact::Compiled && fact != Fact::Autocast
        && fact != Fact::Throughput;
}

} // namespace

ShownMfu shownMeasuredMfu(const MfuResult& computed, const FactsCheck& check)
{
    ShownMfu out { computed, measuredMfuWithheld(check, computed.mfu), std::nullopt, std::nullopt,
        factDifferencesText(check.differences, countedFact) };
    // The peak is the file's GPU's: the figure can be set against the trace's own MFU even when it is withheld for
    // being impossible, which is where the check's explanations help most.
    if (!check.gpuDiffers)
        out.crossCheckable = computed.mfu;
    if (out.withheld)
        return out;
    if (!out.countedDifferences.empty())
        out.warning
            = "computed with the scenario's values where the file states others (" + out.countedDifferences + ")";
    return out;
}

} // namespace mfu
