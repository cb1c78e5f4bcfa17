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

namespace {

std::vector<Step> stepAnnotations(const Timeline& t, bool onGpu)
{
    std::vector<Step> steps;
    for (const Annotation& a : t.annotations) {
        int64_t n = 0;
        if (a.onGpu != onGpu || !profilerStepNumber(t.names.name(a.name), n))
            continue;
        // A step annotated twice (several GPU streams carry the same ProfilerStep): keep the widest.
        auto same = std::find_if(steps.begin(), steps.end(), [n](const Step& s) { return s.number == n; });
        if (same != steps.end()) {
            same->annotationStartNs = std::min(same->annotationStartNs, a.startNs);
            same->annotationEndNs = std::max(same->annotationEndNs, a.endNs);
            continue;
        }
        steps.push_back({ n, a.startNs, a.endNs, 0, 0 });
    }
    std::sort(steps.begin(), steps.end(),
        [](const Step& a, const Step& b) { return a.annotationStartNs < b.annotationStartNs; });
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

// As in HTA, with two or more steps the last is dropped: the profiler usually stops inside it.
void keepSteps(std::vector<Step> steps, StepPlan& plan)
{
    if (steps.size() >= 2) {
        steps.pop_back();
        plan.droppedLastStep = true;
        const int dropped = static_cast<int>(steps.size());
        for (int& s : plan.activityStep)
            if (s == dropped)
                s = -1;
    }
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
    keepSteps(std::move(steps), plan);
    return plan;
}

} // namespace

StepPlan planSteps(const Timeline& t)
{
    StepPlan plan;
    plan.activityStep.assign(t.activities.size(), -1);
    std::vector<Step> steps = stepAnnotations(t, true);
    plan.source = StepSource::GpuAnnotation;
    if (steps.empty()) {
        steps = stepAnnotations(t, false);
        plan.source = StepSource::CpuAnnotation;
    }
    if (steps.empty()) {
        if (const auto inferred = inferSteps(t))
            return inferredPlan(t, *inferred);
        plan.source = StepSource::WholeTrace;
        if (t.activities.empty())
            return plan;
        Step whole;
        whole.annotationStartNs = whole.windowStartNs = t.activities.front().startNs;
        int64_t end = whole.annotationStartNs;
        for (const auto& a : t.activities)
            end = std::max(end, a.endNs);
        whole.annotationEndNs = whole.windowEndNs = end;
        plan.steps.push_back(whole);
        plan.activityStep.assign(t.activities.size(), 0);
        return plan;
    }

    // Assign each activity to a step (GPU annotations: by its start; CPU annotations: by its launch).
    constexpr int64_t kNone = std::numeric_limits<int64_t>::max();
    std::vector<int64_t> firstStart(steps.size(), kNone);
    std::vector<int64_t> lastEnd(steps.size(), std::numeric_limits<int64_t>::min());
    for (size_t i = 0; i < t.activities.size(); ++i) {
        const GpuActivity& a = t.activities[i];
        const int64_t when = plan.source == StepSource::GpuAnnotation ? a.startNs : launchTime(t, a);
        const int s = containingStep(steps, when);
        plan.activityStep[i] = s;
        if (s >= 0) {
            firstStart[static_cast<size_t>(s)] = std::min(firstStart[static_cast<size_t>(s)], a.startNs);
            lastEnd[static_cast<size_t>(s)] = std::max(lastEnd[static_cast<size_t>(s)], a.endNs);
        }
    }
    // Windows tile: each starts at its first activity (its annotation start when it has none, or on the GPU
    // stream) and ends where the next begins; the last ends with its last activity or annotation.
    for (size_t s = 0; s < steps.size(); ++s) {
        int64_t start = plan.source == StepSource::GpuAnnotation || firstStart[s] == kNone ? steps[s].annotationStartNs
                                                                                           : firstStart[s];
        if (s > 0)
            start = std::max(start, steps[s - 1].windowStartNs);
        steps[s].windowStartNs = start;
    }
    for (size_t s = 0; s + 1 < steps.size(); ++s)
        steps[s].windowEndNs = steps[s + 1].windowStartNs;
    Step& last = steps.back();
    last.windowEndNs = std::max({ last.windowStartNs, lastEnd.back(),
        plan.source == StepSource::GpuAnnotation ? last.annotationEndNs : last.windowStartNs });

    if (plan.source == StepSource::GpuAnnotation)
        assignByStart(t, steps, plan);
    keepSteps(std::move(steps), plan);
    return plan;
}

} // namespace mfu::trace
