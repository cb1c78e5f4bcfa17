// The JSON of the figures the recorded shapes and the step's critical path give (docs/trace-analysis.md):
// ranks[i].op_flops, ranks[i].roofline, ranks[i].critical_path.
#include "core/trace/work_json.h"
#include "core/trace/trace_time.h"

#include "core/trace/roofline.h"
#include "core/trace/trace_mfu.h"

namespace mfu::trace {

namespace {

nlohmann::json byPrecision(const FlopsByPrecision& f)
{
    nlohmann::json j = nlohmann::json::object();
    for (const auto& p : f)
        j[p.key] = p.flops;
    return j;
}

nlohmann::json precisionJson(const std::optional<GemmPrecision>& p)
{
    return p ? nlohmann::json(p->key()) : nlohmann::json(nullptr);
}

nlohmann::json workJson(const KernelWork& k)
{
    nlohmann::json j = { { "count", k.count }, { "seconds", nsToSeconds(k.ns) }, { "flops", k.flops },
        { "bytes", k.bytes }, { "tflops", k.tflops() }, { "bandwidth_bytes_per_sec", k.bandwidthGBps() * 1e9 },
        { "arithmetic_intensity", k.intensity() }, { "precision", precisionJson(k.precision) } };
    if (k.precision)
        j["precision_label"] = k.precision->label();
    return j;
}

nlohmann::json mfuOrNull(const std::optional<TraceMfu>& m)
{
    return m ? nlohmann::json(m->mfu) : nlohmann::json(nullptr);
}

} // namespace

nlohmann::json opFlopsToJson(const RankAnalysis& r, const std::optional<HardwareSpec>& gpu)
{
    const OpFlops& f = r.opFlops;
    const auto mfu = gpu ? rankTraceMfu(r, *gpu) : std::nullopt;
    const auto hfu = gpu ? rankTraceHfu(r, *gpu) : std::nullopt;
    nlohmann::json j = { { "matmul_flops", f.matmulFlops }, { "attention_flops", f.attentionFlops },
        { "attention_recomputed_flops", f.attentionRecomputedFlops }, { "grouped_gemm_flops", f.groupedGemmFlops },
        { "convolution_flops", f.convolutionFlops }, { "model_flops", f.modelFlops() },
        { "ops_with_shapes", f.opsWithShapes }, { "ops_without_shapes", f.opsWithoutShapes },
        { "ops_with_impossible_shapes", f.opsWithImpossibleShapes }, { "ops_without_kernels", f.opsWithoutKernels },
        { "records_shapes", f.recordsShapes }, { "backward", f.backward },
        { "by_precision", byPrecision(f.byPrecision) }, { "flops_in_steps", totalFlops(f.inSteps) },
        { "by_precision_in_steps", byPrecision(f.inSteps) }, { "flops_outside_steps", f.outsideStepsFlops },
        { "elementwise_bytes", f.elementwiseBytes }, { "normalization_bytes", f.normalizationBytes },
        { "trace_mfu", mfuOrNull(mfu) }, { "trace_mfu_gpu", gpu ? nlohmann::json(gpu->id) : nlohmann::json(nullptr) } };
    j["trace_mfu_unattributed_share"] = f.unattributedMatrixShare();
    j["trace_hfu"] = mfuOrNull(hfu);
    j["flops_executed_in_steps"] = totalFlops(f.inStepsExecuted);
    if (const auto above = gpu ? traceMfuAbovePeak(r, *gpu) : std::nullopt)
        j["trace_mfu_above_peak"] = *above; // withheld as impossible: trace_mfu is null
    if (mfu) {
        j["trace_mfu_peak_tflops"] = mfu->equivalentPeakFlops / 1e12;
        j["trace_mfu_s"] = mfu->seconds;
        if (!mfu->fallbacks.empty())
            j["trace_mfu_notes"] = mfu->fallbacks;
    }
    nlohmann::json steps = nlohmann::json::array();
    for (size_t s = 0; s < r.steps.size() && s < f.perStep.size(); ++s)
        steps.push_back({ { "step", r.steps[s].step.number }, { "flops", totalFlops(f.perStep[s]) },
            { "trace_mfu", mfuOrNull(gpu ? stepTraceMfu(r, s, *gpu) : std::nullopt) } });
    j["steps"] = steps;
    nlohmann::json categories = nlohmann::json::object();
    for (const auto& c : f.categories)
        categories[c.name] = workJson(c);
    j["categories"] = categories;
    nlohmann::json kernels = nlohmann::json::array();
    constexpr size_t kKernels = 50;
    for (size_t i = 0; i < f.kernels.size() && i < kKernels; ++i) {
        nlohmann::json k = workJson(f.kernels[i]);
        k["name"] = f.kernels[i].name;
        k["category"] = std::string(categoryKey(f.kernels[i].category));
        kernels.push_back(k);
    }
    j["kernels"] = kernels;
    return j;
}

namespace {

// TFLOPS the roofline allows a problem, or null without a GPU: no roof to read (it printed "attainable 0.0" beside an
// achieved 54.9).
nlohmann::json attainable(const Roofline& r, const OpProblem& m, const std::string& precision)
{
    const double flops = r.attainableFlops(m.intensity(), precision);
    return r.ceilings.empty() || !(flops > 0) ? nlohmann::json(nullptr) : nlohmann::json(flops / 1e12);
}

} // namespace

nlohmann::json rooflineToJson(const OpFlops& f, const std::optional<HardwareSpec>& gpu)
{
    const Roofline r = rooflineOf(f, gpu ? &*gpu : nullptr);
    nlohmann::json ceilings = nlohmann::json::array();
    for (const auto& c : r.ceilings)
        ceilings.push_back({ { "precision", c.precision }, { "label", c.label }, { "peak_tflops", c.peakFlops / 1e12 },
            { "ridge_intensity", c.ridgeIntensity }, { "fallback", c.fallback } });
    nlohmann::json marks = nlohmann::json::array();
    constexpr size_t kMarks = 100;
    for (size_t i = 0; i < r.marks.size() && i < kMarks; ++i) {
        const OpProblem& m = r.marks[i];
        const std::string precision = m.precision ? m.precision->key() : std::string();
        marks.push_back({ { "op", m.op }, { "shapes", m.shapes }, { "kernel", m.kernel },
            { "category", std::string(categoryKey(m.category)) }, { "kind", std::string(opKindKey(m.kind)) },
            { "precision", precisionJson(m.precision) }, { "calls", m.calls }, { "seconds", nsToSeconds(m.ns) },
            { "flops", m.flops }, { "bytes", m.bytes }, { "tflops", m.tflops() },
            { "arithmetic_intensity", m.intensity() }, { "attainable_tflops", attainable(r, m, precision) } });
    }
    return { { "gpu", r.gpu ? nlohmann::json(*r.gpu) : nlohmann::json(nullptr) },
        { "hbm_bandwidth_bytes_per_sec", r.hbmBytesPerSecond }, { "ceilings", ceilings }, { "marks", marks },
        { "left_out",
            { { "kernel_count", r.leftOutKernels }, { "seconds", nsToSeconds(r.leftOutNs) },
                { "share", r.leftOutShare }, { "longest_kernel", r.leftOutLongest }, { "note", r.leftOutNote() } } },
        { "above_peak",
            { { "problem_count", r.abovePeakProblems }, { "fastest", r.abovePeakFastest },
                { "fastest_tflops", r.abovePeakFastestFlops / 1e12 }, { "peak_tflops", r.abovePeakFastestPeak / 1e12 },
                { "note", r.abovePeakNote() } } } };
}

nlohmann::json criticalPathToJson(const CriticalPath& p)
{
    auto shares = [](const StepPath& s) {
        nlohmann::json j = nlohmann::json::object();
        for (int k = 0; k < kPathShareCount; ++k)
            j[std::string(pathShareKey(static_cast<PathShare>(k)))] = s.share(static_cast<PathShare>(k));
        return j;
    };
    nlohmann::json secondsPerKind = nlohmann::json::object();
    for (int k = 0; k < kPathShareCount; ++k)
        secondsPerKind[std::string(pathShareKey(static_cast<PathShare>(k)))]
            = nsToSeconds(p.total.shareNs[static_cast<size_t>(k)]);
    nlohmann::json steps = nlohmann::json::array();
    for (const auto& s : p.steps)
        steps.push_back({ { "step", s.step }, { "span_s", nsToSeconds(s.spanNs) }, { "shares", shares(s) } });
    nlohmann::json chain = nlohmann::json::array();
    for (const auto& seg : p.chain) {
        nlohmann::json j = { { "kind", std::string(pathKindKey(seg.kind)) }, { "label", p.labelOf(seg) },
            { "start_ns", seg.startNs }, { "duration_s", nsToSeconds(seg.durationNs()) }, { "count", seg.count },
            { "share", std::string(pathShareKey(seg.share())) } };
        if (seg.kind == PathKind::Kernel)
            j["category"] = std::string(categoryKey(seg.category));
        chain.push_back(j);
    }
    const std::string caveat = hostTimeCaveat(p);
    return { { "span_s", nsToSeconds(p.total.spanNs) }, { "shares", shares(p.total) }, { "seconds", secondsPerKind },
        { "steps", steps }, { "chain_step", p.chainStep }, { "chain", chain },
        { "synchronisations", p.hostLead.synchronisations }, { "launches_timed", p.hostLead.launchesTimed },
        { "median_launch_lead_s", nsToSeconds(p.hostLead.medianLaunchLeadNs) },
        { "host_time_note", caveat.empty() ? nlohmann::json(nullptr) : nlohmann::json(caveat) } };
}

} // namespace mfu::trace
