#include "core/diagnosis/scenario_run.h"

#include "core/scenario/scenario_facts.h"

namespace mfu {

ReportedRun reportedRunFromScenario(const Scenario& s, std::optional<double> stepTimeSeconds)
{
    ReportedRun run;
    run.label = s.model.displayName();
    run.hardware = s.cluster.hardware;
    run.gpus = s.cluster.gpuCount;
    run.model = s.model; // a bare parameter count too: the diagnosis then counts 6N
    run.formula = s.mfuFormula;
    run.precision = s.precision;
    run.seqLen = s.workload.seqLen;
    run.microBatch = s.workload.microBatch;
    run.packing = s.workload.packing;
    // The batch the run processes: the stated one in whole micro-steps, as the cost model runs it.
    if (const int64_t tokens = processedTokensPerStep(s); tokens > 0) {
        run.gradAccum = scenarioMicroSteps(s);
        run.tokensPerStep = static_cast<double>(tokens);
    }
    if (s.measuredThroughput) {
        run.tokensPerSec = s.measuredThroughput->tokensPerSec;
        run.tokensPerSecScope
            = s.measuredThroughput->scope == ThroughputScope::PerGpu ? StatedScope::PerGpu : StatedScope::Cluster;
    }
    run.stepTimeSeconds = stepTimeSeconds;
    return run;
}

} // namespace mfu
