#include "core/facts/shown_log_mfu.h"

#include "core/facts/file_facts.h"

namespace mfu {

std::optional<double> ShownLogMfu::mfu() const
{
    if (withheld || !check.diagnosis || check.diagnosis->runs.empty()
        || !check.diagnosis->runs.front().hasCorrectedMfu())
        return std::nullopt;
    return check.diagnosis->mfu;
}

ShownLogMfu shownLogMfu(const trace::TrainingLog& log, const trace::LogRunContext& context,
    const std::vector<HardwareSpec>& knownHardware, size_t warmupSteps)
{
    ShownLogMfu out;
    out.check = trace::checkLog(log, context, knownHardware, warmupSteps);
    if (context.hardware) {
        const FactsCheck gpu
            = checkFileGpu(factsFromLog(log.facts, out.check.summary), *context.hardware, knownHardware);
        if (gpu.gpuDiffers)
            out.withheld = measuredMfuWithheld(gpu, 0); // names the GPU: its peak does not apply
    }
    if (const auto mfu = out.mfu(); mfu && *mfu > 1)
        out.warning = "above 100%, so the scenario's model or GPU, or the log's tokens, do not describe this run";
    return out;
}

} // namespace mfu
