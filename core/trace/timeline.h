#pragma once
// What a profiler trace leaves after reading: the GPU activities (kernels, memory copies, memsets) and the
// annotations (ProfilerStep#N on the CPU thread or the GPU stream), with names interned once.
//
// Time is int64 nanoseconds on the file's own clock (`ts` x 1000, converted from the decimal text exactly).
// Newer Kineto files write `ts` relative to `baseTimeNanoseconds`; absolute time = timeOriginNs + startNs.
// Absolute nanoseconds (~1.7e18) exceed double precision, so nothing here is stored as a double.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/trace/kernel_category.h"
#include "core/trace/op_flops.h"
#include "core/trace/weight_casts.h"

namespace mfu::trace {

using NameId = uint32_t;

// Interns strings: kernel names repeat thousands of times, and classification runs once per distinct name.
class NameTable {
public:
    NameId intern(std::string_view name);
    const std::string& name(NameId id) const { return m_names[id]; }
    size_t size() const { return m_names.size(); }

private:
    struct Hash {
        using is_transparent = void;
        size_t operator()(std::string_view s) const { return std::hash<std::string_view> {}(s); }
    };
    std::vector<std::string> m_names;
    std::unordered_map<std::string, NameId, Hash, std::equal_to<>> m_ids;
};

enum class ActivityKind : uint8_t { Kernel, Memcpy, Memset };

struct GpuActivity {
    int64_t startNs = 0;
    int64_t endNs = 0;
    int64_t correlation = -1; // links the kernel to its CPU launch (cuda_runtime event); -1 when absent
    NameId name = 0;
    int32_t device = 0;
    int32_t stream = 0;
    ActivityKind kind = ActivityKind::Kernel;
    KernelCategory category = KernelCategory::Other; // set by classify()
    int64_t durationNs() const { return endNs - startNs; }
};

struct Annotation {
    int64_t startNs = 0;
    int64_t endNs = 0;
    NameId name = 0;
    bool onGpu = false; // gpu_user_annotation (on a stream) vs user_annotation (on a CPU thread)
};

// What a CUDA runtime or driver call does to the host thread that makes it.
enum class RuntimeKind : uint8_t {
    Launch, // puts work on a stream and returns (cudaLaunchKernel, cudaMemcpyAsync, cudaMemsetAsync, ...)
    Sync, // waits for the GPU (cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize, cudaMemcpy)
    Other, // cudaFuncSetAttribute, cudaStreamIsCapturing, ...
};
RuntimeKind runtimeKindOf(std::string_view name);

// A CPU-side runtime call with a correlation id (cudaLaunchKernel, cudaMemcpyAsync, cudaStreamSynchronize...): when
// it happened, for assigning kernels to steps, and on which host thread, for FLOP attribution (the operator holding
// it there is the one that launched the kernel) and the critical path.
struct Launch {
    int64_t correlation = 0;
    int64_t startNs = 0;
    int64_t endNs = 0;
    NameId name = 0;
    int32_t thread = 0; // index into Timeline::threads
    RuntimeKind kind = RuntimeKind::Launch;
};

// A CPU operator (cpu_op event, e.g. aten::mm): its host time, and the work its recorded shapes give.
struct CpuOp {
    static constexpr uint32_t kNoWork = UINT32_MAX;
    int64_t startNs = 0;
    int64_t endNs = 0;
    NameId name = 0;
    int32_t thread = 0; // index into Timeline::threads
    uint32_t work = kNoWork; // index into Timeline::opWork for an operator of a counted family (op_flops.h)
};

// The work of one problem of an operator of a counted family (the operator with the same dims, types and concrete
// inputs: every call of it shares the record), and its shapes as text ("[8944, 1024], [1024, 1024]") for telling the
// problems of one operator apart (roofline marks).
struct OpWorkRecord {
    OpWork work;
    NameId shapes = 0;
};

// A forward embedding lookup (aten::embedding, or an Inductor kernel that fuses one) and the shape of the token ids
// it was given: the trace's own record of how many tokens a micro-step fed the model (core/trace/trace_facts.h).
struct EmbeddingLookup {
    int64_t startNs = 0;
    int32_t thread = 0; // index into Timeline::threads
    int64_t tokens = 0; // elements of the integer input: batch x sequence
    int64_t rows = 0; // all dims but the last: the sequences ([8, 4096] -> 8)
    int64_t columns = 0; // the last dim: tokens per sequence ([8, 4096] -> 4096)
    int64_t tableRows = 0; // aten::embedding's weight [rows, width]: its vocabulary; 0 when not recorded as such
};

// The message a communication kernel moved, as PyTorch records it beside NCCL kernels (args "In msg nelems", "Out
// msg nelems", "dtype", "Group size"): the larger of its input and output buffers (the whole tensor of an all-gather
// or a reduce-scatter), and the ranks of its group. Found by the kernel's correlation id.
struct CollectiveMessage {
    int64_t correlation = -1;
    double bytes = 0;
    int32_t groupSize = 0; // 0 when not recorded
    // The collective PyTorch says it ran ("Collective name"): an all-to-all runs as NCCL send/receive kernels, which
    // the kernel's name alone would call a send/receive. CommOther when not recorded or not known.
    KernelCategory kind = KernelCategory::CommOther;
};

struct Timeline {
    std::string sourceFile;
    std::string format; // "kineto-json"
    NameTable names;
    std::vector<GpuActivity> activities; // sorted by startNs after reading
    std::vector<Annotation> annotations; // sorted by startNs after reading
    std::vector<Launch> launches; // sorted by correlation after reading
    std::vector<CpuOp> cpuOps; // sorted by startNs after reading, of two starting together the longer first
    std::vector<OpWorkRecord> opWork; // one per distinct problem, referenced by CpuOp::work
    std::vector<int64_t> threads; // the tid of each thread index
    std::vector<EmbeddingLookup> embeddingLookups; // in reading order; only from operators with recorded shapes
    std::vector<MatrixCast> fp32MatrixCasts; // sorted by startNs after reading (weight_casts.h)
    int64_t castsRead = 0; // cast operators whose types (and an eager cast's dtype) were recorded
    // The 2-D operands of the matrix products (aten::mm, addmm, ...), [rows, columns], sorted and unique.
    std::vector<std::pair<int64_t, int64_t>> matmulOperands;
    std::vector<CollectiveMessage> collectiveMessages; // sorted by correlation after reading
    bool recordsShapes = false; // some cpu_op carries `Input Dims`

    // The index of a host thread id in `threads`, added when new (a file has a handful of threads).
    int32_t threadIndex(int64_t tid);
    int64_t timeOriginNs = 0; // baseTimeNanoseconds, 0 when the file's ts are absolute
    std::optional<std::string> gpuName; // deviceProperties of the device the activities ran on
    std::optional<int> rank; // distributedInfo.rank
    std::optional<int> worldSize;
    std::vector<std::string> warnings; // documented repairs, e.g. events dropped for a negative duration
    uint64_t bytesRead = 0; // of the file as stored (compressed size for gzip)
};

// The message a communication kernel moved (collectiveMessages, by its correlation id), nullptr when not recorded.
const CollectiveMessage* collectiveMessageOf(const Timeline& t, const GpuActivity& a);

// When the CPU launched an activity (its cudaLaunchKernel / cudaMemcpyAsync, matched by correlation id), or the
// activity's own start when no launch is recorded. Steps and HTA's span both assign kernels by launch time.
int64_t launchTime(const Timeline& t, const GpuActivity& a);
// When the CPU launched an activity, or nullopt when the trace holds no launch for it.
std::optional<int64_t> recordedLaunchTime(const Timeline& t, const GpuActivity& a);

} // namespace mfu::trace
