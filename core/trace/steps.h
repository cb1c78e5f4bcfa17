#pragma once
// Training steps in a timeline, and which GPU activities belong to which step.
//
// Sources, in order of preference:
//  1. ProfilerStep#N annotations on the GPU stream (gpu_user_annotation): already on the GPU clock.
//  2. ProfilerStep#N annotations on the CPU thread: an activity belongs to the step during which it was launched
//     (its cuda_runtime launch, matched by correlation id; its own start when the launch is missing).
//  3. None: steps inferred from the recurring kernel sequence (core/trace/step_inference.h); a step's window runs
//     from its first kernel to the next step's first kernel.
//  4. No repetition either: the whole trace is one step.
// Each step gets a GPU window; windows tile the analysed span: window i runs from the first activity of step i to
// the first activity of step i+1, so the idle time between steps (data loading, host work) belongs to a step.
// As in HTA, with two or more steps the last one is dropped: the profiler often stops in the middle of it.
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/trace/timeline.h"

namespace mfu::trace {

enum class StepSource { GpuAnnotation, CpuAnnotation, Inferred, WholeTrace };
std::string_view stepSourceKey(StepSource s); // "gpu_annotation", "cpu_annotation", "inferred", "whole_trace"
// In words, for reports: "GPU step annotations", "CPU step annotations", "inferred from the recurring kernel
// sequence", "the whole trace".
std::string_view stepSourceLabel(StepSource s);

struct Step {
    int64_t number = 0; // N of ProfilerStep#N (1, 2, ... when inferred; 0 for the whole trace)
    int64_t annotationStartNs = 0; // file clock (add Timeline::timeOriginNs for absolute time); = window if inferred
    int64_t annotationEndNs = 0;
    int64_t windowStartNs = 0; // GPU window, file clock
    int64_t windowEndNs = 0;
    int64_t annotationDurationNs() const { return annotationEndNs - annotationStartNs; }
    int64_t windowDurationNs() const { return windowEndNs - windowStartNs; }
};

struct StepPlan {
    StepSource source = StepSource::WholeTrace;
    std::vector<Step> steps; // kept steps, in time order
    bool droppedLastStep = false;
    std::vector<int> activityStep; // per Timeline::activities index: index into steps, or -1 (outside / dropped)
};

// ProfilerStep#N -> N; false for any other name.
bool profilerStepNumber(std::string_view name, int64_t& number);

StepPlan planSteps(const Timeline& timeline);

} // namespace mfu::trace
