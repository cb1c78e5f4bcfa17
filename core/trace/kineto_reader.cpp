#include "core/trace/kineto_reader.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <unordered_map>

#include "core/errors.h"
#include "core/io/document_kind.h"
#include "core/trace/json_scanner.h"
#include "core/trace/trace_facts.h"
#include "core/trace/trace_time.h"
#include "core/trace/weight_casts.h"

namespace mfu::trace {

namespace {

enum class EventCat : uint8_t { Skip, Kernel, Memcpy, Memset, Runtime, CpuAnnotation, GpuAnnotation, CpuOp };

EventCat eventCat(std::string_view cat)
{
    if (cat == "kernel" || cat == "Kernel")
        return EventCat::Kernel;
    if (cat == "gpu_memcpy" || cat == "Memcpy")
        return EventCat::Memcpy;
    if (cat == "gpu_memset" || cat == "Memset")
        return EventCat::Memset;
    if (cat == "cuda_runtime" || cat == "Runtime" || cat == "cuda_driver")
        return EventCat::Runtime;
    if (cat == "user_annotation")
        return EventCat::CpuAnnotation;
    if (cat == "gpu_user_annotation")
        return EventCat::GpuAnnotation;
    if (cat == "cpu_op" || cat == "Operator")
        return EventCat::CpuOp;
    return EventCat::Skip;
}

enum class EventKey : uint8_t { Ph, Cat, Name, Ts, Dur, Pid, Tid, Args, Other };

// Dispatch on length first: this runs for every key of every event.
EventKey eventKey(std::string_view k)
{
    switch (k.size()) {
    case 2:
        return k == "ph" ? EventKey::Ph : k == "ts" ? EventKey::Ts : EventKey::Other;
    case 3:
        return k == "cat" ? EventKey::Cat
            : k == "dur"  ? EventKey::Dur
            : k == "pid"  ? EventKey::Pid
            : k == "tid"  ? EventKey::Tid
                          : EventKey::Other;
    case 4:
        return k == "name" ? EventKey::Name : k == "args" ? EventKey::Args : EventKey::Other;
    default:
        return EventKey::Other;
    }
}

// Trailing integer of "stream 7" / "GPU 0"; -1 when there is none.
int64_t trailingInteger(std::string_view s)
{
    size_t i = s.size();
    while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
        --i;
    int64_t v = -1;
    std::from_chars(s.data() + i, s.data() + s.size(), v);
    return v;
}

struct Event {
    char ph = 0;
    EventCat cat = EventCat::Skip;
    std::string name;
    bool catKnown = false;
    bool hasTs = false;
    bool hasDur = false;
    int64_t tsNs = 0;
    int64_t durNs = 0;
    int64_t pid = -1;
    int64_t tid = -1;
    int64_t device = -1;
    int64_t stream = -1;
    int64_t correlation = -1;
    NameId opName = 0; // of a cpu_op, once its name is known
    OpKind opKind = OpKind::None;
    bool opKindKnown = false;
    bool opEmbedding = false; // a forward embedding lookup (isEmbeddingLookup): its token ids' shape is kept
    bool opCast = false; // a cast (isCastOperator): an FP32 matrix it casts to 16 bits is kept
    // A communication kernel's message (CollectiveMessage): elements in and out, bytes per element, group size.
    int64_t inElements = -1, outElements = -1;
    int32_t elementBytes = 0;
    int64_t groupSize = 0;
    KernelCategory collectiveKind = KernelCategory::CommOther;
};

struct OperatorName {
    NameId id = 0;
    OpKind kind = OpKind::None;
    bool embedding = false;
    bool cast = false;
};

struct TransparentHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view> {}(s); }
};

enum class ArgKey : uint8_t {
    Device,
    Stream,
    Correlation,
    InputDims,
    InputType,
    ConcreteInputs,
    InElements,
    OutElements,
    ElementType,
    GroupSize,
    CollectiveName,
    Other
};

ArgKey argKey(std::string_view k)
{
    switch (k.size()) {
    case 5:
        return k == "dtype" ? ArgKey::ElementType : ArgKey::Other;
    case 6:
        return k == "device" ? ArgKey::Device : k == "stream" ? ArgKey::Stream : ArgKey::Other;
    case 10:
        return k == "Input Dims" ? ArgKey::InputDims
            : k == "Input type"  ? ArgKey::InputType
            : k == "Group size"  ? ArgKey::GroupSize
                                 : ArgKey::Other;
    case 11:
        return k == "correlation" ? ArgKey::Correlation : ArgKey::Other;
    case 13:
        return k == "In msg nelems" ? ArgKey::InElements : ArgKey::Other;
    case 14:
        return k == "Out msg nelems" ? ArgKey::OutElements : ArgKey::Other;
    case 15:
        return k == "Concrete Inputs" ? ArgKey::ConcreteInputs
            : k == "Collective name"  ? ArgKey::CollectiveName
                                      : ArgKey::Other;
    default:
        return ArgKey::Other;
    }
}

// The collective a "Collective name" names (PyTorch's record_param_comms names: "allreduce", "all_gather",
// "_allgather_base", "reduce_scatter_tensor", "all_to_all", "all_to_allv", "alltoall_base", "broadcast", "send",
// ...); CommOther when not known.
KernelCategory collectiveKindOf(std::string_view name)
{
    const auto has = [&](std::string_view part) { return name.find(part) != std::string_view::npos; };
    if (has("all_to_all") || has("alltoall"))
        return KernelCategory::CommAllToAll;
    if (has("allreduce") || has("all_reduce"))
        return KernelCategory::CommAllReduce;
    if (has("allgather") || has("all_gather"))
        return KernelCategory::CommAllGather;
    if (has("reduce_scatter") || has("reducescatter"))
        return KernelCategory::CommReduceScatter;
    if (has("broadcast"))
        return KernelCategory::CommBroadcast;
    if (has("send") || has("recv"))
        return KernelCategory::CommSendRecv;
    return KernelCategory::CommOther;
}

// Bytes per element of a collective's dtype as PyTorch names it beside NCCL kernels ("Float", "BFloat16", ...); 0 when
// not known.
int32_t elementBytesOf(std::string_view dtype)
{
    if (dtype == "Float" || dtype == "Int" || dtype == "float" || dtype == "int")
        return 4;
    if (dtype == "BFloat16" || dtype == "Half" || dtype == "Short")
        return 2;
    if (dtype == "Double" || dtype == "Long" || dtype == "ComplexFloat")
        return 8;
    if (dtype == "Byte" || dtype == "Char" || dtype == "Bool" || dtype.starts_with("Float8"))
        return 1;
    return 0;
}

// Messages whose correlation id another message shares (kernels a CUDA graph replays share their launch's) cannot
// say which kernel moved what: all of them are dropped. `messages` sorted by correlation.
void dropSharedCorrelations(std::vector<CollectiveMessage>& messages)
{
    std::vector<CollectiveMessage> kept;
    kept.reserve(messages.size());
    for (size_t i = 0; i < messages.size();) {
        size_t j = i + 1;
        while (j < messages.size() && messages[j].correlation == messages[i].correlation)
            ++j;
        if (j == i + 1)
            kept.push_back(messages[i]);
        i = j;
    }
    messages.swap(kept);
}

class KinetoReader {
public:
    explicit KinetoReader(ByteSource& source)
        : m_in(source)
    {
        m_timeline.sourceFile = source.name();
        m_timeline.format = "kineto-json";
    }

    Timeline read()
    {
        const char first = m_in.peek();
        if (first == '[') {
            readEvents(true);
        } else if (first == '{') {
            readTopObject();
        } else {
            if (first == 0)
                m_in.fail("empty file");
            // Text that is no JSON is most often a training log of a format the log reader does not know (a
            // Hugging Face Trainer's, say): say how such a log is read, not only what a trace would begin with.
            const bool text
                = first == '*' || first == '#' || (first >= 'A' && first <= 'Z') || (first >= 'a' && first <= 'z');
            if (text)
                m_in.fail("not a JSON trace (expected '{' or '['), and not a training log of a format this product "
                          "recognises (torchtitan, Megatron-LM, nanoGPT, nanotron): read another log with a line "
                          "pattern (--log-pattern and --log-groups on the command line, the log pattern row in the "
                          "window's Trace panel)");
            m_in.fail("not a JSON trace (expected '{' or '[')");
        }
        if (!m_in.atEnd())
            m_in.fail("unexpected content after the end of the trace");
        if (!m_sawEvents) { // read to its end: whole JSON, not a cut-off trace
            std::string isInstead;
            if (m_sawHfConfigKey)
                isInstead = " but " + describeDocumentKind(DocumentKind::HfConfig)
                    + " (a model: --model, or open it in the window)";
            throw InputError(m_in.sourceName() + ": no traceEvents array: not a Chrome/Kineto trace" + isInstead);
        }
        finish();
        return std::move(m_timeline);
    }

private:
    void readTopObject()
    {
        m_in.beginObject();
        while (m_in.nextMember()) {
            // Compare the key before any other scanner call: the view lives only until then.
            const std::string_view key = m_in.key();
            const bool events = key == "traceEvents";
            const bool devices = key == "deviceProperties";
            const bool distributed = key == "distributedInfo";
            const bool baseTime = key == "baseTimeNanoseconds";
            // The keys documentKindOf tells a config.json by (the reader streams: no document to give it).
            m_sawHfConfigKey = m_sawHfConfigKey || key == "model_type" || key == "architectures";
            if (events)
                readEvents(false);
            else if (devices && m_in.peek() == '[')
                readDeviceProperties();
            else if (distributed && m_in.peek() == '{')
                readDistributedInfo();
            else if (baseTime)
                m_timeline.timeOriginNs = traceTime(integer("baseTimeNanoseconds"), "baseTimeNanoseconds");
            else
                m_in.skipValue();
        }
    }

    // Chrome's JSON Array Format allows the closing ']' to be missing (a trace written by a process that died).
    void readEvents(bool topLevel)
    {
        m_sawEvents = true;
        m_in.beginArray();
        for (;;) {
            if (topLevel && m_in.peek() == 0)
                break;
            if (!m_in.nextElement())
                break;
            if (topLevel && m_in.peek() == 0)
                break;
            readEvent();
        }
    }

    int64_t integer(const char* what)
    {
        if (m_in.peek() == '"')
            m_in.fail(std::string(what) + " must be a number, found a string");
        const std::string_view text = m_in.number();
        int64_t v = 0;
        if (smallNonNegative(text, v))
            return v;
        const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc() || ptr != text.data() + text.size())
            m_in.fail(std::string(what) + " must be an integer that fits 64 bits, found " + std::string(text));
        return v;
    }

    // Most integers here (ids, dims) are short runs of digits: read them without from_chars' general path.
    static bool smallNonNegative(std::string_view text, int64_t& v)
    {
        if (text.empty() || text.size() > 18)
            return false;
        int64_t n = 0;
        for (const char c : text) {
            if (c < '0' || c > '9')
                return false;
            n = n * 10 + (c - '0');
        }
        v = n;
        return true;
    }

    int64_t microsecondsAsNs(const char* what)
    {
        const char c = m_in.peek();
        if (c != '-' && (c < '0' || c > '9'))
            m_in.fail(std::string(what) + " must be a number");
        const std::string_view text = m_in.number();
        int64_t ns = 0;
        if (!scaledDecimal(text, 3, ns))
            m_in.fail(std::string(what) + " out of range: " + std::string(text.substr(0, 40)));
        return traceTime(ns, what);
    }

    // A time within core/trace/trace_time.h's range, so that no sum or difference of two can wrap.
    int64_t traceTime(int64_t ns, const char* what)
    {
        if (!isTraceTime(ns))
            m_in.fail(std::string(what) + " " + std::to_string(ns) + " ns is beyond any trace's clock (at most "
                + std::to_string(kTraceTimeLimitNs) + " ns either side of zero)");
        return ns;
    }

    // rank and world_size: an int, not the low 32 bits of a larger figure (2^32 + 8 is not 8 ranks).
    int countWithin(int64_t minimum, int64_t maximum, const char* what)
    {
        const int64_t v = integer(what);
        if (v < minimum || v > maximum)
            m_in.fail(std::string(what) + " " + std::to_string(v) + " is beyond any cluster (" + std::to_string(minimum)
                + " to " + std::to_string(maximum) + ")");
        return static_cast<int>(v);
    }

    // pid/tid: integer or string; a string yields its trailing integer ("stream 7" -> 7) or -1.
    int64_t idValue(const char* what)
    {
        const char c = m_in.peek();
        if (c == '"')
            return trailingInteger(m_in.string());
        if (c == '-' || (c >= '0' && c <= '9'))
            return integer(what);
        m_in.fail(std::string(what) + " must be an integer or a string");
    }

    // A number that must be an integer, or -1 when it is not one (shapes are metadata: an odd one is not an error).
    int64_t integerOrInvalid()
    {
        const std::string_view text = m_in.number();
        int64_t v = -1;
        if (smallNonNegative(text, v))
            return v;
        const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        return ec == std::errc() && ptr == text.data() + text.size() ? v : -1;
    }

    bool atNumber()
    {
        const char c = m_in.peek();
        return c == '-' || (c >= '0' && c <= '9');
    }

    // "Input Dims": per input a list of dims, [] for a non-tensor, or a list of lists for a tensor list (kept as one
    // dim: its elements).
    void readInputDims()
    {
        OpArgs& a = m_args;
        a.hasDims = true;
        m_in.beginArray();
        while (m_in.nextElement()) {
            if (m_in.peek() == '[') {
                m_in.beginArray();
                bool list = false;
                double listElements = 0;
                while (m_in.nextElement()) {
                    if (atNumber()) {
                        a.dims.push_back(integerOrInvalid());
                    } else if (m_in.peek() == '[') {
                        list = true;
                        double elements = 1;
                        m_in.beginArray();
                        while (m_in.nextElement())
                            elements *= atNumber() ? static_cast<double>(integerOrInvalid()) : (m_in.skipValue(), 0.0);
                        listElements += elements;
                    } else {
                        m_in.skipValue();
                    }
                }
                if (list)
                    a.dims.push_back(static_cast<int64_t>(listElements));
            } else {
                m_in.skipValue();
            }
            a.dimsEnd.push_back(static_cast<uint32_t>(a.dims.size()));
        }
    }

    void readInputTypes()
    {
        m_in.beginArray();
        while (m_in.nextElement())
            m_args.types.push_back(
                m_in.peek() == '"' ? scalarTypeFromName(m_in.string()) : (m_in.skipValue(), ScalarType::Unknown));
    }

    void readConcreteInputs()
    {
        m_in.beginArray();
        while (m_in.nextElement()) {
            if (m_in.peek() == '"')
                m_args.concrete.emplace_back(m_in.string());
            else if (atNumber())
                m_args.concrete.emplace_back(m_in.number());
            else
                m_in.skipValue(), m_args.concrete.emplace_back();
        }
    }

    // A kernel's collective message arguments (Event::inElements, ...); false for any other key, or a value of another
    // type, which the caller skips.
    bool readCollectiveArg(ArgKey key, Event& e)
    {
        switch (key) {
        case ArgKey::InElements:
        case ArgKey::OutElements:
        case ArgKey::GroupSize: {
            if (!atNumber())
                return false;
            // Not an integer of 64 bits (E notation, a fraction, an overflow): not a message size, ignored.
            const std::string_view text = m_in.number();
            int64_t n = -1;
            if (const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
                ec != std::errc() || ptr != text.data() + text.size() || n < 0)
                n = -1;
            (key == ArgKey::InElements ? e.inElements : key == ArgKey::OutElements ? e.outElements : e.groupSize) = n;
            return true;
        }
        case ArgKey::ElementType:
            if (m_in.peek() != '"')
                return false;
            e.elementBytes = elementBytesOf(m_in.string());
            return true;
        case ArgKey::CollectiveName:
            if (m_in.peek() != '"')
                return false;
            e.collectiveKind = collectiveKindOf(m_in.string());
            return true;
        default:
            return false;
        }
    }

    void readArgs(Event& e)
    {
        if (m_in.peek() != '{') {
            m_in.skipValue();
            return;
        }
        // An object's keys have no order: a file rewritten with sorted keys puts "args" before "cat" and "name",
        // so an event whose category is not known yet may still be an operator.
        const bool op = e.cat == EventCat::CpuOp || !e.catKnown;
        // Shapes are read for operators of a counted family, or when the name is not known yet (args first).
        const bool shapes = op && (!e.opKindKnown || e.opKind != OpKind::None || e.opEmbedding || e.opCast);
        const bool concrete = op
            && (!e.opKindKnown || needsConcreteInputs(e.opKind) || e.opCast
                || isInductorKernel(m_timeline.names.name(e.opName)));
        m_in.beginObject();
        while (m_in.nextMember()) {
            const ArgKey key = argKey(m_in.key());
            if (key == ArgKey::InputDims && shapes && m_in.peek() == '[') {
                readInputDims();
                continue;
            }
            if (key == ArgKey::InputType && shapes && m_in.peek() == '[') {
                readInputTypes();
                continue;
            }
            if (key == ArgKey::ConcreteInputs && concrete && m_in.peek() == '[') {
                readConcreteInputs();
                continue;
            }
            if ((e.cat == EventCat::Kernel || !e.catKnown) && readCollectiveArg(key, e))
                continue;
            int64_t* target = key == ArgKey::Device ? &e.device
                : key == ArgKey::Stream             ? &e.stream
                : key == ArgKey::Correlation        ? &e.correlation
                                                    : nullptr;
            if (target && atNumber())
                *target = integer(key == ArgKey::Device ? "args.device"
                        : key == ArgKey::Stream         ? "args.stream"
                                                        : "args.correlation");
            else
                m_in.skipValue();
        }
    }

    void readEvent()
    {
        Event& e = m_event;
        e.ph = 0;
        e.cat = EventCat::Skip;
        e.name.clear();
        e.hasTs = e.hasDur = e.catKnown = false;
        e.pid = e.tid = e.device = e.stream = e.correlation = -1;
        e.opKind = OpKind::None;
        e.opKindKnown = false;
        e.opEmbedding = false;
        e.opCast = false;
        e.inElements = e.outElements = -1;
        e.elementBytes = 0;
        e.groupSize = 0;
        e.collectiveKind = KernelCategory::CommOther;
        m_args.clear();
        if (m_in.peek() != '{')
            m_in.fail("trace event must be an object");
        m_in.beginObject();
        while (m_in.nextMember()) {
            switch (eventKey(m_in.key())) {
            case EventKey::Ph: {
                const std::string_view ph = m_in.string();
                e.ph = ph.size() == 1 ? ph[0] : '?';
                break;
            }
            case EventKey::Cat:
                if (m_in.peek() == '"') {
                    e.cat = eventCat(m_in.string());
                    e.catKnown = true;
                } else {
                    m_in.skipValue();
                }
                break;
            case EventKey::Name:
                // Most events (cpu_op, python_function) are not kept: skip copying their names.
                if (m_in.peek() == '"' && e.catKnown && e.cat == EventCat::CpuOp) {
                    lookUpOperator(e, m_in.string()); // straight from the buffer: one hash, no copy
                } else if (m_in.peek() == '"' && !(e.catKnown && e.cat == EventCat::Skip)) {
                    e.name.assign(m_in.string());
                } else {
                    m_in.skipValue();
                }
                break;
            case EventKey::Ts:
                e.tsNs = microsecondsAsNs("ts");
                e.hasTs = true;
                break;
            case EventKey::Dur:
                e.durNs = microsecondsAsNs("dur");
                e.hasDur = true;
                break;
            case EventKey::Pid:
                e.pid = idValue("pid");
                break;
            case EventKey::Tid:
                e.tid = idValue("tid");
                break;
            case EventKey::Args:
                if (e.catKnown && e.cat == EventCat::Skip)
                    m_in.skipValue();
                else
                    readArgs(e);
                break;
            case EventKey::Other:
                m_in.skipValue();
                break;
            }
        }
        if (e.ph == 'X' && e.cat != EventCat::Skip)
            keep(e);
    }

    void keep(Event& e)
    {
        if (!e.hasTs)
            m_in.fail("event '" + e.name.substr(0, 60) + "' has no ts");
        if (!traceEndNs(e.tsNs, std::max<int64_t>(e.durNs, 0))) {
            ++m_endsPastClock; // ts + dur past the clock's range: dropped, never wrapped into a negative span
            return;
        }
        if (e.cat == EventCat::Runtime) {
            if (e.correlation >= 0)
                keepRuntime(e);
            return;
        }
        if (!e.hasDur)
            m_in.fail("event '" + e.name.substr(0, 60) + "' has no dur");
        if (e.durNs < 0) {
            ++m_negativeDurations;
            return;
        }
        if (e.cat == EventCat::CpuOp) {
            keepOp(e);
            return;
        }
        if (e.cat == EventCat::CpuAnnotation || e.cat == EventCat::GpuAnnotation) {
            m_timeline.annotations.push_back(
                { e.tsNs, e.tsNs + e.durNs, m_timeline.names.intern(e.name), e.cat == EventCat::GpuAnnotation });
            return;
        }
        GpuActivity a;
        a.startNs = e.tsNs;
        a.endNs = e.tsNs + e.durNs;
        a.correlation = e.correlation;
        a.name = m_timeline.names.intern(e.name);
        a.device = static_cast<int32_t>(e.device >= 0 ? e.device : std::max<int64_t>(e.pid, 0));
        a.stream = static_cast<int32_t>(e.stream >= 0 ? e.stream : std::max<int64_t>(e.tid, 0));
        a.kind = e.cat == EventCat::Kernel ? ActivityKind::Kernel
            : e.cat == EventCat::Memcpy    ? ActivityKind::Memcpy
                                           : ActivityKind::Memset;
        m_timeline.activities.push_back(a);
        const int64_t elements = std::max(e.inElements, e.outElements);
        if (a.kind == ActivityKind::Kernel && elements >= 0 && e.elementBytes > 0 && e.correlation >= 0)
            m_timeline.collectiveMessages.push_back({ e.correlation, static_cast<double>(elements) * e.elementBytes,
                static_cast<int32_t>(std::clamp<int64_t>(e.groupSize, 0, kMaxRanks)), e.collectiveKind });
    }

    void keepRuntime(const Event& e)
    {
        Launch l;
        l.correlation = e.correlation;
        l.startNs = e.tsNs;
        l.endNs = e.tsNs + (e.hasDur ? std::max<int64_t>(e.durNs, 0) : 0);
        // Few distinct runtime calls: remember the last one instead of interning every launch's name.
        if (e.name != m_lastRuntimeName || m_timeline.launches.empty()) {
            m_lastRuntimeName = e.name;
            m_lastRuntimeId = m_timeline.names.intern(e.name);
            m_lastRuntimeKind = runtimeKindOf(e.name);
        }
        l.name = m_lastRuntimeId;
        l.kind = m_lastRuntimeKind;
        l.thread = m_timeline.threadIndex(e.tid);
        m_timeline.launches.push_back(l);
    }

    void keepOp(Event& e)
    {
        CpuOp op;
        op.startNs = e.tsNs;
        op.endNs = e.tsNs + e.durNs;
        if (!e.opKindKnown) // the name came before the category
            lookUpOperator(e, e.name);
        op.name = e.opName;
        op.thread = m_timeline.threadIndex(e.tid);
        if (m_args.hasDims)
            m_timeline.recordsShapes = true;
        if (e.opKind != OpKind::None)
            op.work = problemOf(op.name, e.opKind);
        if (e.opEmbedding && m_args.hasDims)
            keepEmbeddingLookup(op);
        if (e.opCast && castRecordsItsTypes(m_timeline.names.name(op.name), m_args)) {
            ++m_timeline.castsRead;
            if (auto cast = castOfFp32Matrix(m_timeline.names.name(op.name), m_args)) {
                cast->startNs = op.startNs;
                m_timeline.fp32MatrixCasts.push_back(*cast);
            }
        }
        m_timeline.cpuOps.push_back(op);
    }

    // The token ids of an embedding lookup are its integer input ([batch, sequence] of int64): the weight and an
    // Inductor kernel's other buffers are floating point.
    void keepEmbeddingLookup(const CpuOp& op)
    {
        // No step feeds a model 2^40 tokens at once: a larger product is a corrupt shape, not a batch.
        constexpr int64_t kMaxLookupTokens = int64_t { 1 } << 40;
        for (size_t i = 0; i < m_args.inputs(); ++i) {
            const ScalarType t = m_args.type(i);
            const auto dims = m_args.shape(i);
            if ((t != ScalarType::Int64 && t != ScalarType::Int32) || dims.empty())
                continue;
            EmbeddingLookup l;
            l.startNs = op.startNs;
            l.thread = op.thread;
            l.tokens = 1;
            l.rows = 1;
            for (size_t d = 0; d < dims.size(); ++d) {
                if (dims[d] <= 0 || l.tokens > kMaxLookupTokens / dims[d])
                    return; // an unreadable, empty or impossible shape says nothing
                l.tokens *= dims[d];
                if (d + 1 < dims.size())
                    l.rows *= dims[d];
            }
            l.columns = dims.back();
            // aten::embedding(weight, indices, ...): a 2-D floating first input is the table, and its rows tell the
            // token embedding (the vocabulary) from a position or token-type one.
            if (const auto table = m_args.shape(0); i > 0 && table.size() == 2 && numberFormatOf(m_args.type(0)))
                l.tableRows = table[0];
            m_timeline.embeddingLookups.push_back(l);
            return;
        }
    }

    // An operator's name id and family, looked up once per distinct name.
    void lookUpOperator(Event& e, std::string_view name)
    {
        auto it = m_operators.find(name);
        if (it == m_operators.end())
            it = m_operators
                     .emplace(std::string(name),
                         OperatorName { m_timeline.names.intern(name), opKindOf(name), isEmbeddingLookup(name),
                             isCastOperator(name) })
                     .first;
        e.opName = it->second.id;
        e.opKind = it->second.kind;
        e.opEmbedding = it->second.embedding;
        e.opCast = it->second.cast;
        e.opKindKnown = true;
    }

    // The work record of the operator being read: one per distinct problem (operator, dims, types and concrete
    // inputs), found by a hash of them, so the FLOP count and the shapes text are made once per problem, not per
    // call (a model's layers repeat the same few problems thousands of times).
    uint32_t problemOf(NameId name, OpKind kind)
    {
        uint64_t h = 1469598103934665603ull; // FNV-1a
        auto mix = [&h](uint64_t v) {
            h ^= v;
            h *= 1099511628211ull;
        };
        mix(name);
        mix(m_args.hasDims ? 1 : 0);
        for (const int64_t d : m_args.dims)
            mix(static_cast<uint64_t>(d));
        for (size_t i = 0; i < m_args.inputs(); ++i)
            mix((static_cast<uint64_t>(m_args.dimsEnd[i]) << 8) ^ static_cast<uint64_t>(m_args.type(i)));
        for (const auto& text : m_args.concrete) {
            for (const char c : text)
                mix(static_cast<unsigned char>(c));
            mix(0x100);
        }
        const auto [it, added] = m_problems.try_emplace(h, 0);
        if (added) {
            it->second = static_cast<uint32_t>(m_timeline.opWork.size());
            m_timeline.opWork.push_back({ opWork(m_timeline.names.name(name), m_args), shapesText() });
            if (kind == OpKind::Matmul)
                keepMatmulOperands();
        }
        return it->second;
    }

    // A matrix product's 2-D operands (a weight among them): what a cast must produce to be a weight's
    // (weight_casts.h). Once per distinct problem, so a few dozen shapes.
    void keepMatmulOperands()
    {
        for (size_t i = 0; i < m_args.inputs(); ++i)
            if (const auto dims = m_args.shape(i); dims.size() == 2 && dims[0] > 0 && dims[1] > 0)
                m_timeline.matmulOperands.push_back({ dims[0], dims[1] });
    }

    // "[8944, 1024], [1024, 1024]": the tensor inputs' dims, to tell the problems of one operator apart.
    NameId shapesText()
    {
        std::string& s = m_shapeText;
        s.clear();
        for (size_t i = 0; i < m_args.inputs(); ++i) {
            const auto dims = m_args.shape(i);
            if (dims.empty())
                continue;
            if (!s.empty())
                s += ", ";
            s += m_args.type(i) == ScalarType::TensorList ? "list of " : "";
            s += '[';
            for (size_t d = 0; d < dims.size(); ++d) {
                if (d)
                    s += ", ";
                char buffer[24];
                const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, dims[d]);
                s.append(buffer, end);
            }
            s += ']';
        }
        return m_timeline.names.intern(s);
    }

    void readDeviceProperties()
    {
        m_in.beginArray();
        while (m_in.nextElement()) {
            if (m_in.peek() != '{') {
                m_in.skipValue();
                continue;
            }
            int64_t id = static_cast<int64_t>(m_deviceNames.size());
            std::string name;
            m_in.beginObject();
            while (m_in.nextMember()) {
                const bool isId = m_in.key() == "id";
                const bool isName = m_in.key() == "name";
                if (isId && m_in.peek() != '"')
                    id = integer("deviceProperties.id");
                else if (isName && m_in.peek() == '"')
                    name.assign(m_in.string());
                else
                    m_in.skipValue();
            }
            if (!name.empty())
                m_deviceNames[id] = name;
        }
    }

    void readDistributedInfo()
    {
        m_in.beginObject();
        while (m_in.nextMember()) {
            const bool isRank = m_in.key() == "rank";
            const bool isWorld = m_in.key() == "world_size";
            const char c = m_in.peek();
            const bool isNumber = c == '-' || (c >= '0' && c <= '9');
            if (isRank && isNumber)
                m_timeline.rank = countWithin(0, kMaxRanks - 1, "distributedInfo.rank");
            else if (isWorld && isNumber)
                m_timeline.worldSize = countWithin(1, kMaxRanks, "distributedInfo.world_size");
            else
                m_in.skipValue();
        }
    }

    void finish()
    {
        Timeline& t = m_timeline;
        auto byStart = [](const auto& a, const auto& b) { return a.startNs < b.startNs; };
        std::stable_sort(t.activities.begin(), t.activities.end(), byStart);
        std::stable_sort(t.annotations.begin(), t.annotations.end(), byStart);
        std::sort(t.launches.begin(), t.launches.end(),
            [](const Launch& a, const Launch& b) { return a.correlation < b.correlation; });
        std::sort(t.collectiveMessages.begin(), t.collectiveMessages.end(),
            [](const CollectiveMessage& a, const CollectiveMessage& b) { return a.correlation < b.correlation; });
        dropSharedCorrelations(t.collectiveMessages);
        // An operator before the ones it holds: of two that start together, the longer first.
        std::stable_sort(t.cpuOps.begin(), t.cpuOps.end(), [](const CpuOp& a, const CpuOp& b) {
            return a.startNs != b.startNs ? a.startNs < b.startNs : a.endNs > b.endNs;
        });
        std::stable_sort(t.fp32MatrixCasts.begin(), t.fp32MatrixCasts.end(), byStart);
        std::sort(t.matmulOperands.begin(), t.matmulOperands.end());
        t.matmulOperands.erase(std::unique(t.matmulOperands.begin(), t.matmulOperands.end()), t.matmulOperands.end());
        if (!m_deviceNames.empty()) {
            // The device this process ran on: the one most activities name; files list every visible GPU.
            std::map<int32_t, size_t> perDevice;
            for (const auto& a : t.activities)
                ++perDevice[a.device];
            auto busiest = std::max_element(
                perDevice.begin(), perDevice.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
            auto it = busiest != perDevice.end() ? m_deviceNames.find(busiest->first) : m_deviceNames.end();
            t.gpuName = it != m_deviceNames.end() ? it->second : m_deviceNames.begin()->second;
        }
        if (m_negativeDurations > 0)
            t.warnings.push_back(
                "dropped " + std::to_string(m_negativeDurations) + " event(s) with a negative duration");
        if (m_endsPastClock > 0)
            t.warnings.push_back("dropped " + std::to_string(m_endsPastClock)
                + " event(s) whose ts + dur lies beyond any trace's clock (a corrupt time)");
    }

    JsonScanner m_in;
    Timeline m_timeline;
    Event m_event;
    OpArgs m_args; // of the cpu_op being read; reused, so reading shapes allocates nothing once warm
    std::string m_shapeText;
    std::unordered_map<std::string, OperatorName, TransparentHash, std::equal_to<>> m_operators;
    std::unordered_map<uint64_t, uint32_t> m_problems; // problem hash -> index into Timeline::opWork
    std::string m_lastRuntimeName;
    NameId m_lastRuntimeId = 0;
    RuntimeKind m_lastRuntimeKind = RuntimeKind::Launch;
    std::map<int64_t, std::string> m_deviceNames;
    size_t m_negativeDurations = 0;
    size_t m_endsPastClock = 0;
    static constexpr int64_t kMaxRanks = 10'000'000; // the most GPUs the command line takes (--gpus)
    bool m_sawEvents = false;
    bool m_sawHfConfigKey = false; // a top-level "model_type" or "architectures": a config.json given as a trace
};

} // namespace

Timeline readKinetoTrace(ByteSource& source)
{
    return KinetoReader(source).read();
}

} // namespace mfu::trace
