// diagnose(): each run's figures gathered into witnesses of its throughput, the reading they agree on, then one
// family of findings after another (core/diagnosis/diagnosis_findings.h lists them and their files).
#include "core/diagnosis/diagnosis.h"

#include "core/diagnosis/diagnosis_findings.h"
#include "core/errors.h"

namespace mfu {

namespace {

using namespace diagnosis_detail;

RunDiagnosis diagnoseRun(
    const ReportedRun& run, const RunFacts& f, StatedScope hint, const std::vector<HardwareSpec>& known)
{
    RunDiagnosis d;
    d.label = run.label;
    d.flopsPerToken = f.flopsCorrect;
    d.flopsFormula = f.formula;
    d.peakFlopsPerGpu = f.densePeak;
    d.peakPrecision = f.peakPrecision;
    checkFlopsPerToken(run, f, d.findings);

    bool allImpossible = false;
    const Witness chosen = chooseThroughput(f, hint, allImpossible);
    d.tokensPerSecPerGpu = chosen.perGpu;
    d.tokensPerSecCluster = chosen.perGpu * run.gpus;
    // Model FLOPs count the tokens that train the model: padding kept in the batch is left out.
    d.achievedFlopsPerGpu = chosen.perGpu * usefulTokenFraction(run.packing) * f.flopsCorrect;
    d.mfu = d.achievedFlopsPerGpu / f.densePeak;
    d.consistent = !allImpossible;
    d.maxTokensPerSecPerGpu = f.maxPerGpu;
    d.boundPeakFlopsPerGpu = f.boundPeak;
    d.boundPeakPrecision = f.boundPeakPrecision;
    checkPrecision(run, d);
    if (run.flopsPerToken && f.formula != "stated")
        d.mfuWithStatedFlops = chosen.perGpu * *run.flopsPerToken / f.densePeak;
    d.throughputBasis = chosen.group == kGroupStep ? "tokens per step / step time"
        : run.tokensPerSec                         ? "stated tokens/s, read as "
            + std::string(chosen.scope == StatedScope::Cluster ? "the whole run's" : "per GPU")
                           : "stated achieved TFLOPS / FLOP per token";

    checkThroughputReadings(run, f, chosen, allImpossible, d);
    checkPeak(run, f, chosen, known, d);
    checkOwnFigures(run, f, known, d);
    checkStatedMfu(run, f, chosen, d);
    if (auto last = conclusion(run, f, d))
        d.findings.push_back(std::move(*last));
    return d;
}

} // namespace

Diagnosis diagnose(const std::vector<ReportedRun>& runs, const std::vector<HardwareSpec>& knownHardware)
{
    if (runs.empty())
        throw InputError("no runs to diagnose");
    std::vector<RunFacts> facts;
    int votes[3] = { 0, 0, 0 };
    for (const auto& run : runs) {
        facts.push_back(gatherFacts(run));
        votes[int(confirmedScope(facts.back()))]++;
    }
    const StatedScope hint = votes[int(StatedScope::PerGpu)] > votes[int(StatedScope::Cluster)] ? StatedScope::PerGpu
        : votes[int(StatedScope::Cluster)] > votes[int(StatedScope::PerGpu)]                    ? StatedScope::Cluster
                                                                                                : StatedScope::Unknown;
    Diagnosis result;
    for (size_t i = 0; i < runs.size(); ++i)
        result.runs.push_back(diagnoseRun(runs[i], facts[i], hint, knownHardware));
    if (runs.size() > 1)
        result.comparison = compareRuns(runs, facts, result.runs);
    result.mfu = result.runs.back().mfu;
    return result;
}

} // namespace mfu
