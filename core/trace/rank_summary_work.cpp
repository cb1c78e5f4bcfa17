#include "core/trace/rank_summary_work.h"

#include "core/trace/trace_time.h"

namespace mfu::trace {

namespace {

using nlohmann::json;
using summary::Reader;

KernelCategory category(const json& j, const char* key, const Reader& in)
{
    const auto c = categoryFromKey(in.get<std::string>(j, key));
    if (!c)
        in.fail(key, "unknown category '" + in.get<std::string>(j, key) + "'");
    return *c;
}

json precisionToJson(const std::optional<GemmPrecision>& p)
{
    if (!p)
        return nullptr;
    return { std::string(numberFormatKey(p->format)), p->microscaled, p->fp4Operand };
}

std::optional<GemmPrecision> precisionFromJson(const json& j, const Reader& in)
{
    if (j.is_null())
        return std::nullopt;
    if (!j.is_array() || j.size() != 3 || !j[0].is_string() || !j[1].is_boolean() || !j[2].is_boolean())
        in.fail("precision", "expected [format, microscaled, fp4_operand] or null");
    const auto format = numberFormatFromKey(j[0].get<std::string>());
    if (!format)
        in.fail("precision", "unknown number format '" + j[0].get<std::string>() + "'");
    return GemmPrecision { *format, j[1].get<bool>(), j[2].get<bool>() };
}

json flopsToJson(const FlopsByPrecision& f)
{
    json j = json::array();
    for (const auto& p : f)
        j.push_back(
            { { "key", p.key }, { "precision", precisionToJson(p.known ? std::optional(p.precision) : std::nullopt) },
                { "flops", p.flops } });
    return j;
}

FlopsByPrecision flopsFromJson(const json& j, const Reader& in)
{
    if (!j.is_array())
        in.fail("by_precision", "not an array");
    FlopsByPrecision f;
    for (const json& p : j) {
        const auto precision = precisionFromJson(in.at(p, "precision"), in);
        PrecisionFlops entry { in.get<std::string>(p, "key"), precision.value_or(GemmPrecision {}),
            precision.has_value(), in.get<double>(p, "flops") };
        f.push_back(entry);
    }
    return f;
}

json kernelWorkToJson(const KernelWork& k)
{
    return { { "name", k.name }, { "category", std::string(categoryKey(k.category)) }, { "count", k.count },
        { "ns", k.ns }, { "flops", k.flops }, { "bytes", k.bytes }, { "precision", precisionToJson(k.precision) } };
}

KernelWork kernelWorkFromJson(const json& j, const Reader& in)
{
    KernelWork k;
    k.name = in.get<std::string>(j, "name");
    k.category = category(j, "category", in);
    k.count = in.get<int64_t>(j, "count");
    k.ns = in.get<int64_t>(j, "ns");
    k.flops = in.get<double>(j, "flops");
    k.bytes = in.get<double>(j, "bytes");
    k.precision = precisionFromJson(in.at(j, "precision"), in);
    return k;
}

json opFlopsToSummary(const OpFlops& f)
{
    json steps = json::array();
    for (const auto& s : f.perStep)
        steps.push_back(flopsToJson(s));
    json categories = json::array();
    for (const auto& c : f.categories)
        categories.push_back(kernelWorkToJson(c));
    json kernels = json::array();
    for (const auto& k : f.kernels)
        kernels.push_back(kernelWorkToJson(k));
    json problems = json::array();
    for (const auto& p : f.problems)
        problems.push_back({ { "op", p.op }, { "shapes", p.shapes }, { "kernel", p.kernel },
            { "category", std::string(categoryKey(p.category)) }, { "kind", std::string(opKindKey(p.kind)) },
            { "precision", precisionToJson(p.precision) }, { "calls", p.calls }, { "ns", p.ns }, { "flops", p.flops },
            { "bytes", p.bytes } });
    return { { "records_shapes", f.recordsShapes }, { "matmul_flops", f.matmulFlops },
        { "grouped_gemm_flops", f.groupedGemmFlops }, { "attention_flops", f.attentionFlops },
        { "attention_recomputed_flops", f.attentionRecomputedFlops }, { "convolution_flops", f.convolutionFlops },
        { "elementwise_bytes", f.elementwiseBytes }, { "normalization_bytes", f.normalizationBytes },
        { "ops_with_shapes", f.opsWithShapes }, { "ops_without_shapes", f.opsWithoutShapes },
        { "ops_with_impossible_shapes", f.opsWithImpossibleShapes }, { "ops_without_kernels", f.opsWithoutKernels },
        { "backward", f.backward }, { "by_precision", flopsToJson(f.byPrecision) },
        { "in_steps", flopsToJson(f.inSteps) }, { "in_steps_executed", flopsToJson(f.inStepsExecuted) },
        { "per_step", steps }, { "outside_steps_flops", f.outsideStepsFlops }, { "matrix_kernel_ns", f.matrixKernelNs },
        { "unattributed_matrix_ns", f.unattributedMatrixNs }, { "categories", categories }, { "kernels", kernels },
        { "problems", problems }, { "computation_kernels", f.computationKernels },
        { "computation_ns", f.computationNs }, { "kernels_without_work", f.kernelsWithoutWork },
        { "ns_without_work", f.nsWithoutWork }, { "longest_without_work", f.longestWithoutWork } };
}

OpKind opKindFromKey(const std::string& key, const Reader& in)
{
    for (int k = 0; k < kOpKindCount; ++k)
        if (opKindKey(static_cast<OpKind>(k)) == key)
            return static_cast<OpKind>(k);
    in.fail("kind", "unknown operator kind '" + key + "'");
}

OpFlops opFlopsFromSummary(const json& j, const Reader& in)
{
    OpFlops f;
    f.recordsShapes = in.get<bool>(j, "records_shapes");
    f.matmulFlops = in.get<double>(j, "matmul_flops");
    f.groupedGemmFlops = in.get<double>(j, "grouped_gemm_flops");
    f.attentionFlops = in.get<double>(j, "attention_flops");
    if (j.contains("attention_recomputed_flops")) // version 5: counted among attention_flops before
        f.attentionRecomputedFlops = in.get<double>(j, "attention_recomputed_flops");
    f.convolutionFlops = in.get<double>(j, "convolution_flops");
    f.elementwiseBytes = in.get<double>(j, "elementwise_bytes");
    f.normalizationBytes = in.get<double>(j, "normalization_bytes");
    f.opsWithShapes = in.get<int64_t>(j, "ops_with_shapes");
    f.opsWithoutShapes = in.get<int64_t>(j, "ops_without_shapes");
    if (j.contains("ops_with_impossible_shapes")) // added within version 3: absent from the summaries made before
        f.opsWithImpossibleShapes = in.get<int64_t>(j, "ops_with_impossible_shapes");
    f.opsWithoutKernels = in.get<int64_t>(j, "ops_without_kernels");
    f.backward = in.get<bool>(j, "backward");
    f.byPrecision = flopsFromJson(in.at(j, "by_precision"), in);
    f.inSteps = flopsFromJson(in.at(j, "in_steps"), in);
    // Version 5; before it the steps' model FLOPs counted what the kernels executed, recomputation included.
    f.inStepsExecuted = j.contains("in_steps_executed") ? flopsFromJson(in.at(j, "in_steps_executed"), in) : f.inSteps;
    for (const json& s : in.array(j, "per_step"))
        f.perStep.push_back(flopsFromJson(s, in));
    f.outsideStepsFlops = in.get<double>(j, "outside_steps_flops");
    if (j.contains("matrix_kernel_ns")) { // version 3 on
        f.matrixKernelNs = in.get<int64_t>(j, "matrix_kernel_ns");
        f.unattributedMatrixNs = in.get<int64_t>(j, "unattributed_matrix_ns");
    }
    for (const json& c : in.array(j, "categories"))
        f.categories.push_back(kernelWorkFromJson(c, in));
    for (const json& k : in.array(j, "kernels"))
        f.kernels.push_back(kernelWorkFromJson(k, in));
    for (const json& p : in.array(j, "problems")) {
        OpProblem o;
        o.op = in.get<std::string>(p, "op");
        o.shapes = in.get<std::string>(p, "shapes");
        o.kernel = in.get<std::string>(p, "kernel");
        o.category = category(p, "category", in);
        o.kind = opKindFromKey(in.get<std::string>(p, "kind"), in);
        o.precision = precisionFromJson(in.at(p, "precision"), in);
        o.calls = in.get<int64_t>(p, "calls");
        o.ns = in.get<int64_t>(p, "ns");
        o.flops = in.get<double>(p, "flops");
        o.bytes = in.get<double>(p, "bytes");
        f.problems.push_back(std::move(o));
    }
    if (j.contains("computation_kernels")) { // added within version 2: absent from the summaries made before
        f.computationKernels = in.get<int64_t>(j, "computation_kernels");
        f.computationNs = in.get<int64_t>(j, "computation_ns");
        f.kernelsWithoutWork = in.get<int64_t>(j, "kernels_without_work");
        f.nsWithoutWork = in.get<int64_t>(j, "ns_without_work");
        f.longestWithoutWork = in.get<std::string>(j, "longest_without_work");
    }
    return f;
}

json stepPathToJson(const StepPath& s)
{
    return { { "step", s.step }, { "span_ns", s.spanNs }, { "share_ns", s.shareNs } };
}

StepPath stepPathFromJson(const json& j, const Reader& in)
{
    StepPath s;
    s.step = in.get<int64_t>(j, "step");
    s.spanNs = in.get<int64_t>(j, "span_ns");
    const json& shares = in.array(j, "share_ns");
    if (shares.size() != s.shareNs.size())
        in.fail("share_ns", "expected " + std::to_string(s.shareNs.size()) + " entries");
    for (size_t k = 0; k < s.shareNs.size(); ++k) {
        if (!shares[k].is_number_integer())
            in.fail("share_ns", "not an integer");
        s.shareNs[k] = shares[k].get<int64_t>();
    }
    return s;
}

PathKind pathKindFromKey(const std::string& key, const Reader& in)
{
    for (PathKind k : { PathKind::Kernel, PathKind::Launch, PathKind::Host, PathKind::Sync, PathKind::Idle })
        if (pathKindKey(k) == key)
            return k;
    in.fail("kind", "unknown path segment kind '" + key + "'");
}

json criticalPathToSummary(const CriticalPath& p)
{
    json steps = json::array();
    for (const auto& s : p.steps)
        steps.push_back(stepPathToJson(s));
    json chain = json::array();
    for (const auto& s : p.chain)
        chain.push_back(
            { { "kind", std::string(pathKindKey(s.kind)) }, { "category", std::string(categoryKey(s.category)) },
                { "start_ns", s.startNs }, { "end_ns", s.endNs }, { "label", s.label }, { "count", s.count } });
    return { { "steps", steps }, { "total", stepPathToJson(p.total) }, { "chain_step", p.chainStep },
        { "chain", chain }, { "labels", p.labels },
        { "host_lead",
            { { "synchronisations", p.hostLead.synchronisations }, { "launches_timed", p.hostLead.launchesTimed },
                { "median_launch_lead_ns", p.hostLead.medianLaunchLeadNs } } } };
}

CriticalPath criticalPathFromSummary(const json& j, const Reader& in)
{
    CriticalPath p;
    for (const json& s : in.array(j, "steps"))
        p.steps.push_back(stepPathFromJson(s, in));
    p.total = stepPathFromJson(in.at(j, "total"), in);
    p.chainStep = in.get<int64_t>(j, "chain_step");
    if (j.contains("host_lead")) { // added within version 3: absent from the summaries made before
        const json& lead = in.at(j, "host_lead");
        p.hostLead.synchronisations = in.get<int64_t>(lead, "synchronisations");
        p.hostLead.launchesTimed = in.get<int64_t>(lead, "launches_timed");
        p.hostLead.medianLaunchLeadNs = in.get<int64_t>(lead, "median_launch_lead_ns");
        if (p.hostLead.synchronisations < 0 || p.hostLead.launchesTimed < 0
            || !isTraceTime(p.hostLead.medianLaunchLeadNs))
            in.fail(
                "host_lead", "a negative count or a lead beyond any trace's clock: not a summary this program wrote");
    }
    for (const json& c : in.array(j, "chain")) {
        PathSegment s;
        s.kind = pathKindFromKey(in.get<std::string>(c, "kind"), in);
        s.category = category(c, "category", in);
        s.startNs = in.get<int64_t>(c, "start_ns");
        s.endNs = in.get<int64_t>(c, "end_ns");
        s.label = in.get<uint32_t>(c, "label");
        s.count = in.get<int64_t>(c, "count");
        p.chain.push_back(s);
    }
    for (const json& l : in.array(j, "labels")) {
        if (!l.is_string())
            in.fail("labels", "not a string");
        p.labels.push_back(l.get<std::string>());
    }
    for (const auto& s : p.chain)
        if (s.label >= p.labels.size())
            in.fail("chain", "a label index beyond the labels");
    return p;
}

} // namespace

json workToJson(const RankAnalysis& r)
{
    return { { "op_flops", opFlopsToSummary(r.opFlops) }, { "critical_path", criticalPathToSummary(r.criticalPath) } };
}

void workFromJson(const json& work, const Reader& in, RankAnalysis& r)
{
    r.opFlops = opFlopsFromSummary(in.at(work, "op_flops"), in);
    r.criticalPath = criticalPathFromSummary(in.at(work, "critical_path"), in);
}

} // namespace mfu::trace
