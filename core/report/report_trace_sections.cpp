// The report's sections on what a trace's recorded shapes and its steps' critical paths give, and on the run it is
// compared with: the same core figures as the Trace panel's Roofline, Critical path and Breakdown tabs and as
// `mfu-explorer trace --json` (op_flops, roofline, critical_path, comparison).
#include <algorithm>
#include <map>

#include "core/number_format.h"
#include "core/report/report_figures.h"
#include "core/trace/comparison.h"
#include "core/trace/cross_rank.h"
#include "core/trace/roofline.h"
#include "core/trace/step_work.h"

namespace mfu {

namespace {

std::string tflop(double flops)
{
    return formatNumber(flops / 1e12, 2) + " TFLOP";
}

const trace::RankAnalysis* firstRank(const TraceFigures& f)
{
    return f.run.ranks.empty() ? nullptr : &f.run.ranks.front();
}

} // namespace

std::optional<ReportSection> traceWorkSection(const TraceFigures& f)
{
    const trace::RankAnalysis* rank = firstRank(f);
    if (!rank || !rank->opFlops.recordsShapes)
        return std::nullopt;
    const trace::OpFlops& w = rank->opFlops;
    ReportSection out { "Work from recorded shapes", {} };
    const trace::StepMatrixWork work = trace::stepMatrixWork(*rank); // the Trace panel's figure too
    out.rows.push_back({ "Matrix work per step", tflop(work.flopsPerStep),
        "rank " + std::to_string(rank->rank) + ": matmul, attention, grouped GEMM and convolution FLOPs of its "
            + "analysed steps; " + trace::precisionSharesText(work) });
    out.rows.push_back(
        { "Operators", formatCount(static_cast<double>(w.opsWithShapes), "matrix operator") + " counted from shapes",
            trace::shapelessOperatorsText(w)
                + (w.backward ? "; a training trace (backward operators)" : "; no backward operators (inference)") });
    const auto gpu = trace::traceHardware(*rank, f.knownHardware);
    const trace::Roofline roof = trace::rooflineOf(w, gpu ? &*gpu : nullptr);
    if (!roof.ceilings.empty())
        out.rows.push_back(
            { "Roofline", roof.ceilings.front().label + " roof " + formatTflops(roof.ceilings.front().peakFlops),
                "HBM " + formatNumber(roof.hbmBytesPerSecond / 1e12, 2) + " TB/s, ridge at "
                    + formatNumber(roof.ceilings.front().ridgeIntensity, 0) + " FLOP/byte (" + roof.gpu.value_or("")
                    + ")" });
    constexpr size_t kMarks = 6;
    for (size_t i = 0; i < roof.marks.size() && i < kMarks; ++i) {
        const trace::OpProblem& m = roof.marks[i];
        const double attainable = roof.attainableFlops(m.intensity(), m.precision ? m.precision->key() : std::string());
        out.rows.push_back({ m.op + " " + m.shapes,
            formatTflops(m.tflops() * 1e12) + (attainable > 0 ? " of " + formatTflops(attainable) : std::string()),
            formatMilliseconds(static_cast<double>(m.ns) / 1e9) + " in "
                + formatCount(static_cast<double>(m.calls), "call") + ", " + formatNumber(m.intensity(), 1)
                + " FLOP/byte" + (m.precision ? ", " + m.precision->label() : std::string()) });
    }
    if (roof.leftOutKernels > 0)
        out.rows.push_back(
            { "Not on the roofline", formatPercent(roof.leftOutShare) + " of kernel time", roof.leftOutNote() });
    if (roof.abovePeakProblems > 0)
        out.rows.push_back({ "Above the peak",
            formatCount(static_cast<double>(roof.abovePeakProblems), "operator problem"), roof.abovePeakNote() });
    return out;
}

std::optional<ReportSection> criticalPathSection(const TraceFigures& f)
{
    const trace::RankAnalysis* rank = firstRank(f);
    if (!rank || rank->criticalPath.steps.empty())
        return std::nullopt;
    const trace::CriticalPath& path = rank->criticalPath;
    ReportSection out { "Critical path", {} };
    for (int k = 0; k < trace::kPathShareCount; ++k) {
        const auto share = static_cast<trace::PathShare>(k);
        if (path.total.shareNs[static_cast<size_t>(k)] > 0)
            out.rows.push_back({ std::string(trace::pathShareLabel(share)), formatPercent(path.total.share(share)),
                "of rank " + std::to_string(rank->rank) + "'s analysed steps: what held the step while it ran" });
    }
    if (const std::string caveat = trace::hostTimeCaveat(path); !caveat.empty())
        out.rows.push_back({ "Host time", "as recorded", caveat });
    // What held the median step's chain longest, by what held it: each label's stretches summed and counted (a
    // "Longest" 79.6 ms read as one kernel where 28 calls of 2.9 ms each were summed).
    std::map<std::string, std::pair<int64_t, int>> byLabel;
    for (const auto& seg : path.chain) {
        auto& [ns, count] = byLabel[std::string(trace::pathKindKey(seg.kind)) + ": " + path.labelOf(seg)];
        ns += seg.durationNs();
        ++count;
    }
    std::vector<std::pair<std::string, std::pair<int64_t, int>>> most(byLabel.begin(), byLabel.end());
    std::sort(most.begin(), most.end(), [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
    constexpr size_t kShown = 5;
    for (size_t i = 0; i < most.size() && i < kShown; ++i) {
        const auto& [label, time] = most[i];
        out.rows.push_back({ i == 0 ? "Most time on step #" + std::to_string(path.chainStep) : "",
            formatMilliseconds(static_cast<double>(time.first) / 1e9),
            "in " + formatNumber(double(time.second)) + (time.second == 1 ? " stretch" : " stretches") + " of "
                + label.substr(0, 160) });
    }
    return out;
}

std::optional<ReportSection> baselineComparisonSection(const TraceFigures& f)
{
    if (!f.baseline && f.missingBaselinePaths.empty())
        return std::nullopt;
    ReportSection out { "Baseline comparison", {} };
    for (size_t i = 0; i < f.missingBaselinePaths.size(); ++i)
        out.rows.push_back({ i == 0 ? "Missing" : "", f.missingBaselinePaths[i], "no longer exists; not compared" });
    if (!f.baseline || f.run.ranks.empty())
        return out;
    const trace::RunComparison c = trace::compareRuns(*f.baseline, f.run);
    out.rows.push_back({ "Verdict",
        c.faster().empty()              ? "-"
            : c.faster() == "optimised" ? "this run is faster"
            : c.faster() == "baseline"  ? "the baseline is faster"
                                        : "the same",
        trace::comparisonVerdict(c) });
    for (const auto& row : c.categories)
        if (std::abs(row.deltaShare()) >= 0.005 || std::abs(row.deltaSecondsPerStep()) >= trace::kPerStepChangeSeconds)
            out.rows.push_back(
                { row.key == "idle" ? std::string("Idle")
                                    : std::string(trace::categoryLabel(*trace::categoryFromKey(row.key))),
                    (row.deltaShare() >= 0 ? "+" : "") + formatNumber(row.deltaShare() * 100, 1) + " pp",
                    formatPercent(row.baselineShare) + " -> " + formatPercent(row.optimisedShare) + " of the step; "
                        + formatMilliseconds(std::abs(row.deltaSecondsPerStep())) + " per step "
                        + (row.deltaSecondsPerStep() <= 0 ? "less" : "more") });
    const auto kernels = trace::kernelDiff(*f.baseline, f.run);
    constexpr size_t kShown = 5;
    for (size_t i = 0; i < kernels.size() && i < kShown; ++i) {
        const auto& k = kernels[i];
        const double delta = k.deltaNsPerStep() / 1e9;
        out.rows.push_back({ i == 0 ? "Largest kernel changes per step" : "",
            std::string(delta >= 0 ? "+" : "") + formatMilliseconds(delta),
            k.name.substr(0, 120)
                + (k.baselineName.empty() ? "" : " (in the baseline: " + k.baselineName.substr(0, 80) + ")") });
    }
    return out;
}

} // namespace mfu
