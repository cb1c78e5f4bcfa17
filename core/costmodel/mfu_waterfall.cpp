#include "core/costmodel/mfu_waterfall.h"

namespace mfu {

MfuWaterfall mfuWaterfall(const StepPrediction& p)
{
    MfuWaterfall w;
    w.achievedPoints = 100.0 * p.mfu;
    const double step = p.stepTimeSeconds;
    if (!(step > 0))
        return w;
    const TimeBreakdown& t = p.time;
    const auto share = [step](double seconds) { return 100.0 * seconds / step; };
    w.losses.push_back({ "compute", "Matmul/attention below peak", share(t.matmul + t.attention) - w.achievedPoints });
    const auto add = [&](std::string key, std::string label, double seconds) {
        if (seconds > 0)
            w.losses.push_back({ std::move(key), std::move(label), share(seconds) });
    };
    add("memory_bound", "Memory-bound work", t.memoryBound);
    add("recompute", "Recompute", t.recompute);
    for (CommKind kind : kAllCommKinds)
        add("comm_" + std::string(commKindKey(kind)), "Exposed " + std::string(commKindLabel(kind)), t.comm(kind));
    add("pipeline_bubble", "Pipeline bubble", t.pipelineBubble);
    add("overhead", "Fixed overheads", t.overhead);
    return w;
}

} // namespace mfu
