#pragma once
// The critical path of a step: the chain of kernels, launches, host work and synchronisations that bounded it, after
// Holistic Trace Analysis's critical-path analysis (Meta, `CriticalPathAnalysis`): a step's events form a graph
// whose edges are a stream's order, a kernel's launch, a host thread's order and a synchronisation's wait on the
// GPU, and the longest path through it is what made the step as long as it was.
//
// Here the path is walked back from the step's end, always along the dependency that became ready last, which is
// the longest path when every edge is tight:
//   * a kernel (or memcpy, memset) waited either for the activity before it on its stream to end, or for its launch
//     to be issued on the host, or (cross-stream event waits, which traces do not always record) for an activity on
//     another stream of its GPU that ended just before it started (within 10 us). The one that came last is its
//     predecessor; the gap before the kernel is idle (a stream's or another stream's predecessor) or launch latency
//     (its launch).
//   * a host thread at some time had been running since the last synchronisation on it (cudaDeviceSynchronize,
//     cudaStreamSynchronize, cudaEventSynchronize, a synchronous cudaMemcpy) that waited for the GPU; before that
//     the GPU bounded it: the path goes to the activity whose end released the wait. Host time is split by the
//     thread's outermost CPU operators.
//   * the time after the step's last activity to the end of its window (the next step's first kernel) is idle.
// Each instant of the step window is on the path exactly once, so the kinds' times add up to the window:
// GPU compute (computation kernels), communication, memory (memcpy/memset), launch and host (host time, launch
// latency, the wake-up after a synchronisation) and idle.
//
// Limits: one host thread per path (the launching thread; work handed between threads is not followed), and the
// cross-stream rule is a guess where cudaStreamWaitEvent is not in the trace. A trace that records no
// synchronisation (filters and samplers drop them) keeps the walk on the host back to the step's start; the path
// then says so (hostTimeCaveat) when the host evidently ran ahead of its GPU.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/trace/steps.h"
#include "core/trace/timeline.h"

namespace mfu::trace {

enum class PathKind : uint8_t { Kernel, Launch, Host, Sync, Idle };
std::string_view pathKindKey(PathKind k); // "kernel", "launch", "host", "sync", "idle"

// Where the path's time went, by what bounded it.
enum class PathShare : uint8_t { GpuCompute, Communication, Memory, LaunchHost, Idle };
inline constexpr int kPathShareCount = 5;
std::string_view pathShareKey(PathShare s); // "gpu_compute", "communication", "memory", "launch_host", "idle"
std::string_view pathShareLabel(PathShare s); // "GPU compute", ...

struct PathSegment {
    PathKind kind = PathKind::Idle;
    KernelCategory category = KernelCategory::Other; // for kernels
    int64_t startNs = 0; // absolute in CriticalPath::chain (the file's time origin + its clock)
    int64_t endNs = 0;
    uint32_t label = 0; // index into CriticalPath::labels: the kernel, runtime call or CPU operator, or why idle
    int64_t count = 1; // consecutive segments of one kind and label, merged
    PathShare share() const;
    int64_t durationNs() const { return endNs - startNs; }
};

struct StepPath {
    int64_t step = 0;
    int64_t spanNs = 0;
    std::array<int64_t, kPathShareCount> shareNs {};
    double share(PathShare s) const
    {
        return spanNs > 0 ? static_cast<double>(shareNs[static_cast<size_t>(s)]) / static_cast<double>(spanNs) : 0.0;
    }
};

// How far the host ran ahead of its GPU in the analysed steps, and whether the trace shows it ever waited.
struct HostLead {
    int64_t synchronisations = 0; // synchronising runtime calls (cudaStreamSynchronize, ...) in the analysed steps
    int64_t launchesTimed = 0; // activities of the analysed steps whose launch is recorded
    int64_t medianLaunchLeadNs = 0; // median of (start - launch end) over them: how long launched work queued
};

struct CriticalPath {
    std::vector<StepPath> steps; // every analysed step
    HostLead hostLead;
    StepPath total; // summed over them
    int64_t chainStep = 0; // the step whose chain is kept: the one of median duration
    std::vector<PathSegment> chain; // in time order
    std::vector<std::string> labels; // each distinct label of the chain once (kernel names are long)
    const std::string& labelOf(const PathSegment& s) const { return labels[s.label]; }
};

// A host whose kernels queued this long after their launch (median) was ahead of its GPU, not holding it.
inline constexpr int64_t kHostAheadLeadNs = 1'000'000;

// Empty, or why the path's host time is only as recorded: the path is mostly host time, the trace records no
// synchronisation in its steps, and launched work queued a median of kHostAheadLeadNs or more. Sampled and filtered
// traces (Holistic Trace Analysis's trace filter) drop the waits that made such a host slow.
std::string hostTimeCaveat(const CriticalPath& path);

// Needs the activities classified and the plan's steps.
CriticalPath criticalPath(const Timeline& timeline, const StepPlan& plan);

} // namespace mfu::trace
