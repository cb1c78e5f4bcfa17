#include "core/trace/trace_flops.h"

#include "core/trace/launch_finder.h"
#include "core/trace/sorted_search.h"

#include <algorithm>
#include <span>
#include <tuple>
#include <unordered_map>

namespace mfu::trace {

namespace {

constexpr int32_t kNone = -1;

// Operators nest on their thread: each one's parent (the enclosing one that started last), and each thread's
// operators in start order. Timeline::cpuOps is sorted by start, an enclosing operator before the ones it holds.
struct OpTree {
    std::vector<int32_t> parent;
    std::vector<std::vector<int32_t>> byThread;

    explicit OpTree(const Timeline& t)
    {
        const auto& ops = t.cpuOps;
        parent.assign(ops.size(), kNone);
        byThread.resize(t.threads.size());
        std::vector<std::vector<int32_t>> stacks(t.threads.size());
        for (size_t i = 0; i < ops.size(); ++i) {
            const CpuOp& op = ops[i];
            if (op.thread < 0 || static_cast<size_t>(op.thread) >= stacks.size())
                continue;
            auto& stack = stacks[static_cast<size_t>(op.thread)];
            while (!stack.empty() && ops[static_cast<size_t>(stack.back())].endNs <= op.startNs)
                stack.pop_back();
            // One that outlasts the operator on top of the stack overlaps it without nesting (clock noise): it
            // still belongs inside the innermost operator that started before it and has not ended.
            parent[i] = stack.empty() ? kNone : stack.back();
            stack.push_back(static_cast<int32_t>(i));
            byThread[static_cast<size_t>(op.thread)].push_back(static_cast<int32_t>(i));
        }
    }

    // The innermost operator on `thread` that holds time `at`, or kNone. `search` finds in byThread[thread].
    template <typename Search> int32_t holding(const Timeline& t, int32_t thread, int64_t at, Search& search) const
    {
        if (thread < 0 || static_cast<size_t>(thread) >= byThread.size())
            return kNone;
        const auto& list = byThread[static_cast<size_t>(thread)];
        // The last operator starting at or before `at`, then out through the ones holding it.
        const size_t after = search.lowerBound(at + 1);
        if (after == 0)
            return kNone;
        for (int32_t o = list[after - 1]; o != kNone; o = parent[static_cast<size_t>(o)])
            if (t.cpuOps[static_cast<size_t>(o)].endNs >= at)
                return o;
        return kNone;
    }
};

const OpWork* workOf(const Timeline& t, const CpuOp& op)
{
    return op.work == CpuOp::kNoWork ? nullptr : &t.opWork[op.work].work;
}

std::optional<GemmPrecision> precisionOf(const OpWork& w)
{
    if (!w.precision)
        return std::nullopt;
    GemmPrecision p;
    p.format = *w.precision;
    p.microscaled = w.microscaled;
    return p;
}

// Which operators count (each counted operator once), and the whole-file totals.
std::vector<uint8_t> decideCounted(const Timeline& t, const std::vector<int32_t>& parent, OpFlops& out)
{
    const auto& ops = t.cpuOps;
    std::vector<uint8_t> hasModelInside(ops.size(), 0);
    std::vector<uint8_t> hasWorkInside(ops.size(), 0);
    for (size_t i = 0; i < ops.size(); ++i) {
        const OpWork* w = workOf(t, ops[i]);
        if (!w)
            continue;
        const bool model = isModelWork(w->kind);
        for (int32_t p = parent[i]; p != kNone; p = parent[static_cast<size_t>(p)]) {
            auto& slot = hasWorkInside[static_cast<size_t>(p)];
            if (slot && (!model || hasModelInside[static_cast<size_t>(p)]))
                break; // every ancestor above already knows
            slot = 1;
            if (model)
                hasModelInside[static_cast<size_t>(p)] = 1;
        }
    }
    std::vector<uint8_t> counted(ops.size(), 0);
    for (size_t i = 0; i < ops.size(); ++i) {
        const OpWork* w = workOf(t, ops[i]);
        if (!w)
            continue;
        if (isModelWork(w->kind)) {
            if (hasModelInside[i])
                continue; // counted through the operators inside it
            if (!w->known) {
                ++out.opsWithoutShapes;
                out.opsWithImpossibleShapes += w->impossible ? 1 : 0;
                continue;
            }
            counted[i] = 1;
            ++out.opsWithShapes;
            out.backward = out.backward || w->backward;
            switch (w->kind) {
            case OpKind::Matmul:
                out.matmulFlops += w->flops;
                break;
            case OpKind::GroupedGemm:
                out.groupedGemmFlops += w->flops;
                break;
            case OpKind::Attention:
                out.attentionFlops += w->modelFlops();
                out.attentionRecomputedFlops += w->recomputedFlops;
                break;
            case OpKind::Convolution:
                out.convolutionFlops += w->flops;
                break;
            default:
                break;
            }
        } else if (w->known && !hasWorkInside[i]) {
            counted[i] = 1;
            (w->kind == OpKind::Normalization ? out.normalizationBytes : out.elementwiseBytes) += w->bytes;
        }
    }
    return counted;
}

// The counted operator each activity ran for, or kNone: the launch's thread and time name the innermost operator
// it ran inside (the one whose External id it carries), and the innermost counted family above that owns it.
std::vector<int32_t> ownersOf(const Timeline& t, const OpTree& tree, const std::vector<uint8_t>& counted)
{
    std::vector<int32_t> owner(t.activities.size(), kNone);
    // Kernels in start order launch in nearly rising correlation order.
    LaunchFinder launches(t.launches);
    const auto startOf = [&t](int32_t o) { return t.cpuOps[static_cast<size_t>(o)].startNs; };
    std::vector<SortedSearch<std::vector<int32_t>, decltype(startOf)>> threadSearch;
    for (const auto& list : tree.byThread)
        threadSearch.emplace_back(list, startOf);
    for (size_t i = 0; i < t.activities.size(); ++i) {
        const Launch* launch = launches.of(t.activities[i]);
        if (!launch || launch->thread < 0 || static_cast<size_t>(launch->thread) >= threadSearch.size())
            continue;
        for (int32_t o
             = tree.holding(t, launch->thread, launch->startNs, threadSearch[static_cast<size_t>(launch->thread)]);
             o != kNone; o = tree.parent[static_cast<size_t>(o)]) {
            if (t.cpuOps[static_cast<size_t>(o)].work == CpuOp::kNoWork)
                continue;
            if (counted[static_cast<size_t>(o)])
                owner[i] = o;
            break;
        }
    }
    return owner;
}

bool isMatrixKernel(KernelCategory c)
{
    return c == KernelCategory::Gemm || c == KernelCategory::AttentionFwd || c == KernelCategory::AttentionBwd;
}

// Per counted operator: its activities, its precision refined by its main matrix kernel.
struct Attribution {
    std::vector<double> flops; // per activity: what its kernels executed
    std::vector<double> modelFlops; // per activity: the part that is model work (no recomputation)
    std::vector<double> bytes;
    std::vector<std::optional<GemmPrecision>> opPrecision; // per op
};

Attribution attribute(
    const Timeline& t, const std::vector<int32_t>& owner, const std::vector<uint8_t>& counted, OpFlops& out)
{
    const size_t n = t.activities.size();
    Attribution at;
    at.flops.assign(n, 0);
    at.modelFlops.assign(n, 0);
    at.bytes.assign(n, 0);
    at.opPrecision.assign(t.cpuOps.size(), std::nullopt);
    // What each kernel's name says of its precision, read once per name.
    std::unordered_map<NameId, std::optional<GemmPrecision>> fromName;
    auto kernelPrecision = [&](NameId name) -> const std::optional<GemmPrecision>& {
        auto [it, added] = fromName.try_emplace(name);
        if (added)
            it->second = gemmPrecisionFromKernelName(t.names.name(name));
        return it->second;
    };
    // Each operator's activities, in one array (offsets per operator): no allocation per operator.
    std::vector<size_t> firstOf(t.cpuOps.size() + 1, 0);
    for (size_t i = 0; i < n; ++i)
        if (owner[i] != kNone)
            ++firstOf[static_cast<size_t>(owner[i]) + 1];
    for (size_t o = 0; o < t.cpuOps.size(); ++o)
        firstOf[o + 1] += firstOf[o];
    std::vector<size_t> grouped(firstOf.back());
    std::vector<size_t> fill(firstOf.begin(), firstOf.end() - 1);
    for (size_t i = 0; i < n; ++i)
        if (owner[i] != kNone)
            grouped[fill[static_cast<size_t>(owner[i])]++] = i;
    for (size_t o = 0; o < t.cpuOps.size(); ++o) {
        const OpWork* w = workOf(t, t.cpuOps[o]);
        if (!w || !counted[o])
            continue;
        const std::span<const size_t> acts(grouped.data() + firstOf[o], firstOf[o + 1] - firstOf[o]);
        const bool model = isModelWork(w->kind);
        int64_t matrixNs = 0;
        size_t longestMatrix = SIZE_MAX;
        for (size_t i : acts) {
            const GpuActivity& a = t.activities[i];
            if (isMatrixKernel(a.category)) {
                matrixNs += a.durationNs();
                if (longestMatrix == SIZE_MAX || a.durationNs() > t.activities[longestMatrix].durationNs())
                    longestMatrix = i;
            }
        }
        std::optional<GemmPrecision> precision = precisionOf(*w);
        if (model && longestMatrix != SIZE_MAX)
            precision = refineGemmPrecision(precision, kernelPrecision(t.activities[longestMatrix].name));
        at.opPrecision[o] = precision;
        if (model)
            addFlops(out.byPrecision, precision, w->modelFlops());
        // Matrix work goes to the operator's matrix kernels (not the memset that clears a workspace); without one
        // (a kernel of a name no rule knows) to its kernels that are not copies or fills, never to a memset alone
        // (a sampled trace that kept an aten::mm's memset but not its GEMM made a memset of 158 TFLOPS). Other
        // work goes to all of its activities; weighted by time, equally among activities of no recorded length.
        auto takes = [&](const GpuActivity& a) {
            if (!model)
                return true;
            return matrixNs > 0 ? isMatrixKernel(a.category) : !isMemory(a.category);
        };
        int64_t poolNs = 0;
        size_t poolSize = 0;
        for (size_t i : acts)
            if (takes(t.activities[i])) {
                poolNs += t.activities[i].durationNs();
                ++poolSize;
            }
        if (model && poolSize == 0 && !acts.empty())
            ++out.opsWithoutKernels;
        for (size_t i : acts) {
            const GpuActivity& a = t.activities[i];
            if (!takes(a))
                continue;
            const double part = poolNs > 0 ? static_cast<double>(a.durationNs()) / static_cast<double>(poolNs)
                                           : 1.0 / static_cast<double>(poolSize);
            at.flops[i] += w->flops * part;
            if (model)
                at.modelFlops[i] += w->modelFlops() * part;
            at.bytes[i] += w->bytes * part;
        }
        if (model && acts.empty())
            ++out.opsWithoutKernels;
    }
    return at;
}

// FLOPs per precision in a fixed array by GemmPrecision::code() (the last slot for none): no search per kernel.
class PrecisionTally {
public:
    static constexpr size_t kSlots = kNumberFormatCount * 4 + 1;
    void add(const std::optional<GemmPrecision>& p, double flops) { m_flops[p ? p->code() : kSlots - 1] += flops; }
    FlopsByPrecision flops() const
    {
        FlopsByPrecision out;
        for (size_t c = 0; c + 1 < kSlots; ++c)
            if (m_flops[c] != 0)
                addFlops(
                    out, GemmPrecision { static_cast<NumberFormat>(c / 4), (c & 2) != 0, (c & 1) != 0 }, m_flops[c]);
        if (m_flops[kSlots - 1] != 0)
            addFlops(out, std::nullopt, m_flops[kSlots - 1]);
        return out;
    }

private:
    std::array<double, kSlots> m_flops {};
};

void addWork(KernelWork& k, const GpuActivity& a, double flops, double bytes)
{
    ++k.count;
    k.ns += a.durationNs();
    k.flops += flops;
    k.bytes += bytes;
}

std::optional<GemmPrecision> mainPrecision(const FlopsByPrecision& f)
{
    const PrecisionFlops* best = nullptr;
    for (const auto& p : f)
        if (p.known && p.flops > 0 && (!best || p.flops > best->flops))
            best = &p;
    return best ? std::optional(best->precision) : std::nullopt;
}

} // namespace

void addFlops(FlopsByPrecision& into, std::optional<GemmPrecision> precision, double flops)
{
    // A handful of precisions: a scan by value; the key is spelled only when a precision is new.
    for (auto& p : into)
        if (p.known == precision.has_value() && (!precision || p.precision == *precision)) {
            p.flops += flops;
            return;
        }
    const std::string key = precision ? precision->key() : "unknown";
    auto it = std::lower_bound(
        into.begin(), into.end(), key, [](const PrecisionFlops& p, const std::string& k) { return p.key < k; });
    into.insert(it, { key, precision.value_or(GemmPrecision {}), precision.has_value(), flops });
}

double totalFlops(const FlopsByPrecision& f)
{
    double sum = 0;
    for (const auto& p : f)
        sum += p.flops;
    return sum;
}

namespace {

// The GEMM and attention kernel time of the analysed steps, and how much of it got no model FLOPs.
void tallyMatrixTime(const Timeline& t, const StepPlan& plan, const std::vector<double>* modelFlops, OpFlops& out)
{
    for (size_t i = 0; i < t.activities.size(); ++i) {
        const GpuActivity& a = t.activities[i];
        if (i >= plan.activityStep.size() || plan.activityStep[i] < 0 || !isMatrixKernel(a.category))
            continue;
        out.matrixKernelNs += a.durationNs();
        if (!modelFlops || !((*modelFlops)[i] > 0))
            out.unattributedMatrixNs += a.durationNs();
    }
}

// The computation kernels of the analysed steps, and those that `hasWork` says got no FLOPs or bytes.
template <typename HasWork>
void tallyKernelsWithoutWork(const Timeline& t, const StepPlan& plan, OpFlops& out, HasWork hasWork)
{
    std::unordered_map<NameId, int64_t> withoutWorkNs;
    for (size_t i = 0; i < t.activities.size() && i < plan.activityStep.size(); ++i) {
        const GpuActivity& a = t.activities[i];
        if (plan.activityStep[i] < 0 || a.kind != ActivityKind::Kernel || !isComputation(a.category))
            continue;
        ++out.computationKernels;
        out.computationNs += a.durationNs();
        if (hasWork(i))
            continue;
        ++out.kernelsWithoutWork;
        out.nsWithoutWork += a.durationNs();
        withoutWorkNs[a.name] += a.durationNs();
    }
    const auto longest
        = std::max_element(withoutWorkNs.begin(), withoutWorkNs.end(), [&t](const auto& a, const auto& b) {
              return a.second != b.second ? a.second < b.second : t.names.name(a.first) > t.names.name(b.first);
          });
    if (longest != withoutWorkNs.end())
        out.longestWithoutWork = t.names.name(longest->first);
}

} // namespace

namespace {

// The autograd engine's own ranges ("autograd::engine::evaluate_function: MmBackward0") mark a backward pass
// whatever it ran: a model of plain GEMMs (a recommender's MLPs: HTA's sampled traces, whose fbgemm kernels are
// named split_embedding_backward_...) has no backward operator of its own to show it, and read as inference.
bool recordsAutogradBackward(const Timeline& t)
{
    constexpr std::string_view kEngine = "autograd::engine::evaluate_function";
    for (NameId id = 0; id < t.names.size(); ++id)
        if (t.names.name(id).starts_with(kEngine))
            return true;
    return false;
}

} // namespace

OpFlops countOpFlops(const Timeline& t, const StepPlan& plan, size_t maxProblems)
{
    OpFlops out;
    out.recordsShapes = t.recordsShapes;
    out.perStep.resize(plan.steps.size());
    if (t.cpuOps.empty()) {
        tallyMatrixTime(t, plan, nullptr, out);
        tallyKernelsWithoutWork(t, plan, out, [](size_t) { return false; });
        return out;
    }
    const OpTree tree(t);
    const std::vector<uint8_t> counted = decideCounted(t, tree.parent, out);
    out.backward = out.backward || recordsAutogradBackward(t);
    const std::vector<int32_t> owner = ownersOf(t, tree, counted);
    const Attribution at = attribute(t, owner, counted, out);
    tallyMatrixTime(t, plan, &at.modelFlops, out);

    // Per kernel name: a slot in `byKernel` (and its precisions), found through the name's id.
    std::vector<int32_t> slotOf(t.names.size(), -1);
    std::vector<KernelWork> byKernel;
    std::vector<NameId> kernelNames;
    std::vector<PrecisionTally> kernelPrecisions;
    auto slot = [&](NameId name) -> size_t {
        int32_t& s = slotOf[name];
        if (s < 0) {
            s = static_cast<int32_t>(byKernel.size());
            byKernel.emplace_back();
            kernelNames.push_back(name);
            kernelPrecisions.emplace_back();
        }
        return static_cast<size_t>(s);
    };
    std::array<KernelWork, kKernelCategoryCount> byCategory {};
    std::array<PrecisionTally, kKernelCategoryCount> categoryPrecisions {};
    PrecisionTally inSteps;
    PrecisionTally inStepsExecuted;
    std::vector<PrecisionTally> perStep(plan.steps.size());
    // Problems by (operator name, shapes, precision code; 255 for none).
    struct ProblemKey {
        NameId op, shapes;
        int precision;
        bool operator==(const ProblemKey&) const = default;
    };
    struct ProblemHash {
        size_t operator()(const ProblemKey& k) const
        {
            return std::hash<uint64_t> {}((static_cast<uint64_t>(k.op) << 32) ^ k.shapes)
                ^ static_cast<size_t>(k.precision);
        }
    };
    struct ProblemTally {
        OpProblem problem;
        int code = 255;
        std::vector<std::pair<NameId, int64_t>> kernelNs; // its kernels' time by name
    };
    std::unordered_map<ProblemKey, ProblemTally, ProblemHash> problems; // nodes: pointers to tallies stay valid
    std::vector<ProblemTally*> tallyOfRecord(t.opWork.size(), nullptr);
    std::vector<uint8_t> callCounted(t.cpuOps.size(), 0); // an operator is one call of its problem
    double inStepsModel = 0;
    tallyKernelsWithoutWork(
        t, plan, out, [&](size_t i) { return owner[i] != kNone && (at.flops[i] > 0 || at.bytes[i] > 0); });
    for (size_t i = 0; i < t.activities.size(); ++i) {
        const int step = i < plan.activityStep.size() ? plan.activityStep[i] : -1;
        if (owner[i] == kNone || step < 0)
            continue;
        const GpuActivity& a = t.activities[i];
        const auto o = static_cast<size_t>(owner[i]);
        const CpuOp& op = t.cpuOps[o];
        const OpWorkRecord& record = t.opWork[op.work];
        const auto& precision = at.opPrecision[o];
        const size_t kernelSlot = slot(a.name);
        if (at.modelFlops[i] > 0) {
            inSteps.add(precision, at.modelFlops[i]);
            perStep[static_cast<size_t>(step)].add(precision, at.modelFlops[i]);
            kernelPrecisions[kernelSlot].add(precision, at.modelFlops[i]);
            categoryPrecisions[static_cast<size_t>(a.category)].add(precision, at.modelFlops[i]);
            inStepsModel += at.modelFlops[i];
            inStepsExecuted.add(precision, at.flops[i]); // a matrix operator's: all it executed
        }
        KernelWork& k = byKernel[kernelSlot];
        k.category = a.category;
        addWork(k, a, at.flops[i], at.bytes[i]);
        addWork(byCategory[static_cast<size_t>(a.category)], a, at.flops[i], at.bytes[i]);
        // Through the operator's work record (one per distinct problem) to its tally: one hash lookup per record.
        ProblemTally*& cached = tallyOfRecord[op.work];
        const int code = precision ? precision->code() : 255;
        if (!cached || cached->code != code)
            cached = &problems[ProblemKey { op.name, record.shapes, code }];
        ProblemTally& tally = *cached;
        tally.code = code;
        OpProblem& p = tally.problem;
        if (p.calls == 0) {
            p.op = t.names.name(op.name);
            p.shapes = t.names.name(record.shapes);
            p.kind = record.work.kind;
            p.gemm = record.work.gemm;
            p.attention = record.work.attention;
            p.causal = record.work.causal;
            p.backward = record.work.backward;
            p.precision = precision;
        }
        if (!callCounted[o]) {
            callCounted[o] = 1;
            ++p.calls;
        }
        p.ns += a.durationNs();
        p.flops += at.flops[i];
        p.bytes += at.bytes[i];
        auto kernel = std::find_if(tally.kernelNs.begin(), tally.kernelNs.end(),
            [&a](const std::pair<NameId, int64_t>& seen) { return seen.first == a.name; });
        if (kernel == tally.kernelNs.end())
            tally.kernelNs.emplace_back(a.name, a.durationNs());
        else
            kernel->second += a.durationNs();
    }
    out.outsideStepsFlops = std::max(0.0, out.modelFlops() - inStepsModel);
    out.inSteps = inSteps.flops();
    out.inStepsExecuted = inStepsExecuted.flops();
    for (size_t step = 0; step < perStep.size(); ++step)
        out.perStep[step] = perStep[step].flops();

    for (size_t i = 0; i < byKernel.size(); ++i) {
        KernelWork& k = byKernel[i];
        k.name = t.names.name(kernelNames[i]);
        k.precision = mainPrecision(kernelPrecisions[i].flops());
        if (!k.precision && k.category == KernelCategory::Gemm)
            k.precision = gemmPrecisionFromKernelName(k.name);
        out.kernels.push_back(k);
    }
    std::sort(out.kernels.begin(), out.kernels.end(), [](const KernelWork& a, const KernelWork& b) {
        return a.flops != b.flops ? a.flops > b.flops : a.name < b.name;
    });
    for (int c = 0; c < kKernelCategoryCount; ++c) {
        KernelWork& k = byCategory[static_cast<size_t>(c)];
        if (k.count == 0)
            continue;
        k.category = static_cast<KernelCategory>(c);
        k.name = std::string(categoryKey(k.category));
        k.precision = mainPrecision(categoryPrecisions[static_cast<size_t>(c)].flops());
        out.categories.push_back(k);
    }
    for (auto& [key, tally] : problems) {
        const auto longest = std::max_element(tally.kernelNs.begin(), tally.kernelNs.end(),
            [](const auto& a, const auto& b) { return a.second < b.second; });
        OpProblem& p = tally.problem;
        p.kernel = t.names.name(longest->first);
        p.category = byKernel[static_cast<size_t>(slotOf[longest->first])].category;
        out.problems.push_back(std::move(p));
    }
    std::sort(out.problems.begin(), out.problems.end(), [](const OpProblem& a, const OpProblem& b) {
        return a.ns != b.ns ? a.ns > b.ns : std::tie(a.op, a.shapes) < std::tie(b.op, b.shapes);
    });
    if (out.problems.size() > maxProblems)
        out.problems.resize(maxProblems);
    return out;
}

std::vector<ActivityWork> activityWork(const Timeline& t)
{
    std::vector<ActivityWork> work(t.activities.size());
    if (t.cpuOps.empty())
        return work;
    OpFlops tallies; // the file's totals, which a per-activity view does not need
    const OpTree tree(t);
    const std::vector<uint8_t> counted = decideCounted(t, tree.parent, tallies);
    const std::vector<int32_t> owner = ownersOf(t, tree, counted);
    const Attribution at = attribute(t, owner, counted, tallies);
    for (size_t i = 0; i < work.size(); ++i) {
        work[i].flops = at.flops[i];
        work[i].modelFlops = at.modelFlops[i];
        work[i].bytes = at.bytes[i];
        if (owner[i] != kNone && at.modelFlops[i] > 0)
            work[i].precision = at.opPrecision[static_cast<size_t>(owner[i])];
    }
    return work;
}

std::optional<TraceMfu> traceMfu(const FlopsByPrecision& flops, double seconds, const HardwareSpec& hardware)
{
    if (!(seconds > 0))
        return std::nullopt;
    TraceMfu m;
    m.seconds = seconds;
    double peakSeconds = 0; // the time the FLOPs take at the peak of their precision
    for (const auto& p : flops) {
        if (!(p.flops > 0))
            continue;
        // FLOPs of no known precision are counted at the MFU peak (the BF16 one).
        const NumberFormat format = p.known ? p.precision.format : hardware.mfuPeakFormat();
        const PeakAt peak = densePeakAt(hardware, format);
        if (!(peak.flopsPerSecond > 0))
            return std::nullopt;
        if (peak.fallback || !p.known)
            m.fallbacks.push_back(p.key + " counted at the " + std::string(numberFormatLabel(peak.format)) + " peak");
        peakSeconds += p.flops / peak.flopsPerSecond;
        m.flops += p.flops;
    }
    if (!(m.flops > 0))
        return std::nullopt;
    m.mfu = peakSeconds / seconds;
    m.equivalentPeakFlops = m.flops / peakSeconds;
    return m;
}

} // namespace mfu::trace
