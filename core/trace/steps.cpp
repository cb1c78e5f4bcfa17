#include "core/trace/steps.h"

#include <algorithm>
#include <charconv>
#include <limits>

#include "core/trace/step_inference.h"

namespace mfu::trace {

std::string_view stepSourceLabel(StepSource s)
{
    switch (s) {
    case StepSource::GpuAnnotation:
        return "GPU step annotations";
    case StepSource::CpuAnnotation:
        return "CPU step annotations";
    case StepSource::Inferred:
        return "inferred from the recurring kernel sequence";
    case StepSource::WholeTrace:
        return "the whole trace";
    }
    return "the whole trace";
}

std::string_view stepSourceKey(StepSource s)
{
    switch (s) {
    case StepSource::GpuAnnotation:
        return "gpu_annotation";
    case StepSource::CpuAnnotation:
        return "cpu_annotation";
    case StepSource::Inferred:
        return "inferred";
    case StepSource::WholeTrace:
        return "whole_trace";
    }
    return "whole_trace";
}

bool profilerStepNumber(std::string_view name, int64_t& number)
{
    constexpr std::string_view prefix = "ProfilerStep#";
    if (name.substr(0, prefix.size()) != prefix)
        return false;
    const char* begin = name.data() + prefix.size();
    const char* end = name.data() + name.size();
    const auto [ptr, ec] = std::from_chars(begin, end, number);
    return ec == std::errc() && ptr == end && begin != end;
}

std::string_view gpuStepAnnotationsKey(GpuStepAnnotations g)
{
    switch (g) {
    case GpuStepAnnotations::None:
        return "none";
    case GpuStepAnnotations::Agree:
        return "agree";
    case GpuStepAnnotations::Partial:
        return "partial";
    }
    return "none";
}

namespace {

std::string stepName(int64_t n)
{
    return "ProfilerStep#" + std::to_string(n);
}

// Every ProfilerStep#N annotation on one side (CPU thread or GPU stream), sorted by start, the longer first.
std::vector<Step> rawStepAnnotations(const Timeline& t, bool onGpu)
{
    std::vector<Step> steps;
    for (const Annotation& a : t.annotations) {
        int64_t n = 0;
        if (a.onGpu == onGpu && profilerStepNumber(t.names.name(a.name), n))
            steps.push_back({ n, a.startNs, a.endNs, 0, 0 });
    }
    std::sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) {
        return a.annotationStartNs != b.annotationStartNs ? a.annotationStartNs < b.annotationStartNs
                                                          : a.annotationEndNs > b.annotationEndNs;
    });
    return steps;
}

// GPU annotations: several streams carry the same ProfilerStep; keep the widest range of each number.
std::vector<Step> gpuStepAnnotations(const Timeline& t)
{
    std::vector<Step> steps;
    for (const Step& a : rawStepAnnotations(t, true)) {
        auto same = std::find_if(steps.begin(), steps.end(), [&a](const Step& s) { return s.number == a.number; });
        if (same == steps.end()) {
            steps.push_back(a);
            continue;
        }
        same->annotationStartNs = std::min(same->annotationStartNs, a.annotationStartNs);
        same->annotationEndNs = std::max(same->annotationEndNs, a.annotationEndNs);
    }
    std::sort(steps.begin(), steps.end(),
        [](const Step& a, const Step& b) { return a.annotationStartNs < b.annotationStartNs; });
    return steps;
}

// CPU annotations as disjoint steps in time order. A loop has one step at a time: a number seen before is left
// out, an annotation inside the previous one is left out, and one that overlaps the next ends where the next
// begins; each is said.
std::vector<Step> cpuStepAnnotations(const Timeline& t, std::vector<std::string>& warnings)
{
    std::vector<Step> steps;
    for (const Step& a : rawStepAnnotations(t, false)) {
        const bool repeated
            = std::any_of(steps.begin(), steps.end(), [&a](const Step& s) { return s.number == a.number; });
        if (repeated) {
            warnings.push_back(stepName(a.number)
                + " is annotated more than once on the CPU at different times: the first is the step, the others "
                  "are left out");
            continue;
        }
        if (!steps.empty() && a.annotationStartNs < steps.back().annotationEndNs) {
            Step& previous = steps.back();
            if (a.annotationEndNs <= previous.annotationEndNs) {
                warnings.push_back(stepName(a.number) + " lies inside " + stepName(previous.number)
                    + " on the CPU: it is left out, its work counted in the outer step");
                continue;
            }
            warnings.push_back(stepName(previous.number) + " and " + stepName(a.number)
                + " overlap on the CPU: the first is taken to end where the second begins");
            previous.annotationEndNs = a.annotationStartNs;
        }
        steps.push_back(a);
    }
    return steps;
}

// Index of the step whose annotation contains t, or -1.
int containingStep(const std::vector<Step>& steps, int64_t t)
{
    auto it = std::upper_bound(
        steps.begin(), steps.end(), t, [](int64_t v, const Step& s) { return v < s.annotationStartNs; });
    if (it == steps.begin())
        return -1;
    --it;
    return t < it->annotationEndNs || (t == it->annotationStartNs) ? static_cast<int>(it - steps.begin()) : -1;
}

// On the GPU clock an activity belongs to the window it starts in, so counts and times agree.
void assignByStart(const Timeline& t, const std::vector<Step>& steps, StepPlan& plan)
{
    for (size_t i = 0; i < t.activities.size(); ++i) {
        const int64_t start = t.activities[i].startNs;
        auto it = std::upper_bound(
            steps.begin(), steps.end(), start, [](int64_t v, const Step& st) { return v < st.windowStartNs; });
        int s = -1;
        if (it != steps.begin() && start < std::prev(it)->windowEndNs)
            s = static_cast<int>(std::prev(it) - steps.begin());
        plan.activityStep[i] = s;
    }
}

// Each step's activities (by plan.activityStep): count, first start, last end.
void measureStepWork(const Timeline& t, const std::vector<int>& activityStep, std::vector<Step>& steps)
{
    for (Step& s : steps) {
        s.activityCount = 0;
        s.workStartNs = std::numeric_limits<int64_t>::max();
        s.workEndNs = std::numeric_limits<int64_t>::min();
    }
    for (size_t i = 0; i < t.activities.size(); ++i) {
        if (activityStep[i] < 0)
            continue;
        Step& s = steps[static_cast<size_t>(activityStep[i])];
        ++s.activityCount;
        s.workStartNs = std::min(s.workStartNs, t.activities[i].startNs);
        s.workEndNs = std::max(s.workEndNs, t.activities[i].endNs);
    }
    for (Step& s : steps)
        if (s.activityCount == 0)
            s.workStartNs = s.workEndNs = s.windowStartNs;
}

// Why the last of two or more steps is incomplete, or "" when nothing in the trace says so: it launched fewer
// activities than 90% of the median of the steps before it (the profiler stopped inside it; a
// training loop launches the same work every step).
std::string incompleteLastStep(const std::vector<Step>& steps)
{
    if (steps.size() < 2)
        return {};
    const Step& last = steps.back();
    std::vector<int64_t> counts;
    for (size_t i = 0; i + 1 < steps.size(); ++i)
        counts.push_back(steps[i].activityCount);
    std::nth_element(counts.begin(), counts.begin() + static_cast<std::ptrdiff_t>(counts.size() / 2), counts.end());
    const int64_t median = counts[counts.size() / 2];
    if (median == 0 || static_cast<double>(last.activityCount) >= 0.9 * static_cast<double>(median))
        return {};
    if (last.activityCount == 0)
        return stepName(last.number) + " launched no GPU work";
    return stepName(last.number) + " has " + std::to_string(last.activityCount) + " GPU activities against a median of "
        + std::to_string(median) + " in the steps before it";
}

std::string stepList(const std::vector<Step>& steps)
{
    if (steps.empty())
        return "no step";
    if (steps.size() == 1)
        return stepName(steps.front().number);
    return std::to_string(steps.size()) + " steps, " + stepName(steps.front().number) + " to #"
        + std::to_string(steps.back().number);
}

// Leaves the last step out when the trace shows it incomplete, and says which steps are analysed and why.
void keepSteps(std::vector<Step> steps, std::string_view what, StepPlan& plan)
{
    const std::string incomplete = incompleteLastStep(steps);
    std::string selection = std::string(what) + ": " + stepList(steps);
    if (!incomplete.empty()) {
        steps.pop_back();
        plan.droppedLastStep = true;
        const int dropped = static_cast<int>(steps.size());
        for (int& s : plan.activityStep)
            if (s == dropped)
                s = -1;
        selection += "; the last is left out as incomplete (" + incomplete + ")";
    } else if (steps.size() >= 2) {
        selection += ", all complete";
    }
    plan.selection = std::move(selection);
    plan.steps = std::move(steps);
}

// Inferred steps: window j runs from step j's first kernel (or the memory copies/sets directly before it, such as
// the batch's host-to-device copy) to step j+1's; the last ends with the last activity that starts in it. Kernels
// before the first step (the end of an iteration the profiler caught) belong to none.
StepPlan inferredPlan(const Timeline& t, const InferredSteps& inferred)
{
    StepPlan plan;
    plan.source = StepSource::Inferred;
    plan.activityStep.assign(t.activities.size(), -1);
    std::vector<Step> steps;
    for (size_t j = 0; j < inferred.startActivities.size(); ++j) {
        size_t first = inferred.startActivities[j];
        const size_t floor = j > 0 ? inferred.startActivities[j - 1] + 1 : 0;
        while (first > floor && t.activities[first - 1].kind != ActivityKind::Kernel)
            --first;
        Step s;
        s.number = static_cast<int64_t>(j) + 1;
        s.windowStartNs = t.activities[first].startNs;
        steps.push_back(s);
    }
    for (size_t j = 0; j + 1 < steps.size(); ++j)
        steps[j].windowEndNs = steps[j + 1].windowStartNs;
    Step& last = steps.back();
    last.windowEndNs = last.windowStartNs;
    for (size_t i = inferred.startActivities.back(); i < t.activities.size(); ++i)
        last.windowEndNs = std::max(last.windowEndNs, t.activities[i].endNs);
    for (Step& s : steps) {
        s.annotationStartNs = s.windowStartNs;
        s.annotationEndNs = s.windowEndNs;
    }
    assignByStart(t, steps, plan);
    measureStepWork(t, plan.activityStep, steps);
    keepSteps(std::move(steps), "no ProfilerStep annotations; steps inferred from the recurring kernel sequence", plan);
    return plan;
}

StepPlan wholeTracePlan(const Timeline& t)
{
    StepPlan plan;
    plan.source = StepSource::WholeTrace;
    plan.activityStep.assign(t.activities.size(), -1);
    if (t.activities.empty()) { // nothing ran on a GPU: no step to measure, not one step of nothing
        plan.selection = "no ProfilerStep annotations and no GPU activity: no step to measure";
        return plan;
    }
    plan.selection = "no ProfilerStep annotations and no recurring kernel sequence: the whole trace is one step";
    Step whole;
    whole.annotationStartNs = whole.windowStartNs = t.activities.front().startNs;
    int64_t end = whole.annotationStartNs;
    for (const auto& a : t.activities)
        end = std::max(end, a.endNs);
    whole.annotationEndNs = whole.windowEndNs = end;
    plan.activityStep.assign(t.activities.size(), 0);
    std::vector<Step> steps { whole };
    measureStepWork(t, plan.activityStep, steps);
    plan.steps = std::move(steps);
    return plan;
}

// Windows tile: each starts at its first activity (its annotation start when it has none, or on the GPU stream)
// and ends where the next begins; the last ends with its last activity or annotation.
void tileWindows(std::vector<Step>& steps, const std::vector<int64_t>& firstStart, const std::vector<int64_t>& lastEnd,
    bool gpuClock)
{
    constexpr int64_t kNone = std::numeric_limits<int64_t>::max();
    for (size_t s = 0; s < steps.size(); ++s) {
        int64_t start = gpuClock || firstStart[s] == kNone ? steps[s].annotationStartNs : firstStart[s];
        if (s > 0)
            start = std::max(start, steps[s - 1].windowStartNs);
        steps[s].windowStartNs = start;
    }
    for (size_t s = 0; s + 1 < steps.size(); ++s)
        steps[s].windowEndNs = steps[s + 1].windowStartNs;
    Step& last = steps.back();
    last.windowEndNs
        = std::max({ last.windowStartNs, lastEnd.back(), gpuClock ? last.annotationEndNs : last.windowStartNs });
}

// Whether the GPU-side annotations cover the GPU work of the steps of the same number.
GpuStepAnnotations compareGpuAnnotations(const std::vector<Step>& gpu, const std::vector<Step>& steps)
{
    if (gpu.empty())
        return GpuStepAnnotations::None;
    for (const Step& s : steps) {
        auto g = std::find_if(gpu.begin(), gpu.end(), [&s](const Step& a) { return a.number == s.number; });
        if (g == gpu.end() || s.activityCount == 0)
            continue;
        const int64_t covered
            = std::min(g->annotationEndNs, s.workEndNs) - std::max(g->annotationStartNs, s.workStartNs);
        if (static_cast<double>(std::max<int64_t>(covered, 0)) < 0.9 * static_cast<double>(s.workDurationNs()))
            return GpuStepAnnotations::Partial;
    }
    return GpuStepAnnotations::Agree;
}

constexpr int64_t kNoLaunch = std::numeric_limits<int64_t>::min();

// When the CPU launched each activity, for CPU-annotated steps. An activity the trace records no launch for counts
// at its own start, except before the first activity whose launch it does record: that is the tail of work launched
// before the profiler started recording (the GPU runs behind the host), which no profiled step launched
// (kNoLaunch). TraceLens's H100 trace starts with 509 such kernels.
std::vector<int64_t> cpuLaunchTimes(const Timeline& t)
{
    std::vector<int64_t> launched(t.activities.size(), kNoLaunch);
    int64_t firstLaunched = std::numeric_limits<int64_t>::max();
    for (size_t i = 0; i < t.activities.size(); ++i)
        if (const auto when = recordedLaunchTime(t, t.activities[i])) {
            launched[i] = *when;
            firstLaunched = std::min(firstLaunched, t.activities[i].startNs);
        }
    for (size_t i = 0; i < t.activities.size(); ++i)
        if (launched[i] == kNoLaunch && (t.launches.empty() || t.activities[i].startNs >= firstLaunched))
            launched[i] = t.activities[i].startNs;
    return launched;
}

StepPlan annotatedPlan(const Timeline& t, std::vector<Step> steps, StepSource source)
{
    StepPlan plan;
    plan.source = source;
    plan.activityStep.assign(t.activities.size(), -1);
    const bool gpuClock = source == StepSource::GpuAnnotation;
    constexpr int64_t kNone = std::numeric_limits<int64_t>::max();
    std::vector<int64_t> firstStart(steps.size(), kNone);
    std::vector<int64_t> lastEnd(steps.size(), std::numeric_limits<int64_t>::min());
    const std::vector<int64_t> launched = gpuClock ? std::vector<int64_t> {} : cpuLaunchTimes(t);
    for (size_t i = 0; i < t.activities.size(); ++i) {
        const GpuActivity& a = t.activities[i];
        const int s = gpuClock         ? containingStep(steps, a.startNs)
            : launched[i] == kNoLaunch ? -1
                                       : containingStep(steps, launched[i]);
        plan.activityStep[i] = s;
        if (s >= 0) {
            firstStart[static_cast<size_t>(s)] = std::min(firstStart[static_cast<size_t>(s)], a.startNs);
            lastEnd[static_cast<size_t>(s)] = std::max(lastEnd[static_cast<size_t>(s)], a.endNs);
        }
    }
    tileWindows(steps, firstStart, lastEnd, gpuClock);
    if (gpuClock)
        assignByStart(t, steps, plan);
    measureStepWork(t, plan.activityStep, steps);
    plan.steps = std::move(steps);
    return plan;
}

} // namespace

StepPlan planSteps(const Timeline& t)
{
    std::vector<std::string> warnings;
    std::vector<Step> cpu = cpuStepAnnotations(t, warnings);
    const std::vector<Step> gpu = gpuStepAnnotations(t);
    StepPlan plan;
    if (!cpu.empty()) {
        plan = annotatedPlan(t, std::move(cpu), StepSource::CpuAnnotation);
        plan.gpuAnnotations = compareGpuAnnotations(gpu, plan.steps);
        std::vector<Step> steps = std::move(plan.steps);
        keepSteps(
            std::move(steps), "CPU ProfilerStep annotations, each GPU activity in the step that launched it", plan);
        if (plan.gpuAnnotations == GpuStepAnnotations::Partial)
            plan.selection += "; the GPU-side copies cover only part of their steps and are not used";
    } else if (!gpu.empty()) {
        plan = annotatedPlan(t, gpu, StepSource::GpuAnnotation);
        std::vector<Step> steps = std::move(plan.steps);
        keepSteps(std::move(steps), "GPU ProfilerStep annotations (the trace has no CPU ones)", plan);
    } else if (const auto inferred = inferSteps(t)) {
        plan = inferredPlan(t, *inferred);
    } else {
        plan = wholeTracePlan(t);
    }
    plan.warnings = std::move(warnings);
    return plan;
}

} // namespace mfu::trace
