#pragma once
// Training steps in a timeline, and which GPU activities belong to which step.
//
// Sources, in order of preference:
//  1. ProfilerStep#N annotations on the CPU thread (user_annotation): the step as the training loop lived it. An
//     activity belongs to the step during which the CPU launched it (its runtime call with the same correlation id:
//     cudaLaunchKernel, cuLaunchKernel(Ex), cudaGraphLaunch, memcpy/memset calls, NCCL launches; its own start
//     when the launch is missing), so the kernels a CUDA graph replays belong to the step that launched the graph.
//     PyTorch 2.11 writes each ProfilerStep a second time on the GPU stream (gpu_user_annotation) covering a
//     fraction of the step (0 ms to a third of it): those are only compared with the launches, never used.
//  2. ProfilerStep#N annotations on the GPU stream, when the CPU has none: an activity belongs to the annotation
//     it starts in.
//  3. None: steps inferred from the recurring kernel sequence (core/trace/step_inference.h); a step's window runs
//     from its first kernel to the next step's first kernel.
//  4. No repetition either: the whole trace is one step.
// Each step gets a GPU window; windows tile the analysed span: window i runs from the first activity of step i to
// the first activity of step i+1, so the idle time between steps (data loading, host work) belongs to a step. Each
// step also has its GPU work window: from the first to the last end of the activities it launched.
// A last step is left out only when the trace shows it incomplete: it launched no GPU work, or fewer activities
// than 90% of the median of the steps before it (the profiler stopped inside it). Holistic Trace Analysis always
// leaves the last step out; its span is hta_span.h.
//
// Annotations that cannot all be steps (two ProfilerStep#N with the same N at different times, one inside another,
// or two that overlap) are resolved and said in the plan's warnings: the first of a repeated number is kept, an
// inner one is left out, an overlapping one ends where the next begins.
#include <cstdint>
#include <string>
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
    // The activities the step launched (CPU annotations) or that start in it: their count, the first start and
    // the last end (both the window start when it has none).
    int64_t activityCount = 0;
    int64_t workStartNs = 0;
    int64_t workEndNs = 0;
    int64_t annotationDurationNs() const { return annotationEndNs - annotationStartNs; }
    int64_t windowDurationNs() const { return windowEndNs - windowStartNs; }
    int64_t workDurationNs() const { return workEndNs - workStartNs; }
};

// How the GPU-side ProfilerStep annotations relate to the steps the CPU annotations and the launches give.
enum class GpuStepAnnotations {
    None, // the trace has none, or no CPU annotations to compare them with
    Agree, // each covers at least 90% of its step's GPU work window
    Partial, // some cover less (PyTorch 2.11 writes them 0 ms long, or over a fraction of the step)
};
std::string_view gpuStepAnnotationsKey(GpuStepAnnotations g); // "none", "agree", "partial"

struct StepPlan {
    StepSource source = StepSource::WholeTrace;
    std::vector<Step> steps; // kept steps, in time order
    bool droppedLastStep = false;
    // Why these steps and not others, in one or two sentences (which annotations, what was left out and why).
    std::string selection;
    GpuStepAnnotations gpuAnnotations = GpuStepAnnotations::None;
    std::vector<std::string> warnings; // annotations that could not all be steps, and how they were resolved
    std::vector<int> activityStep; // per Timeline::activities index: index into steps, or -1 (outside / dropped)
};

// ProfilerStep#N -> N; false for any other name.
bool profilerStepNumber(std::string_view name, int64_t& number);

StepPlan planSteps(const Timeline& timeline);

} // namespace mfu::trace
