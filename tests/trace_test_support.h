#pragma once
// Helpers shared by the trace tests: tiny Kineto traces written in the test, gzip compression, in-memory reading.
#include <cstdint>
#include <string>
#include <vector>

#include <zlib.h>

#include "core/trace/byte_source.h"
#include "core/trace/kineto_reader.h"

namespace trace_test {

// One Kineto kernel event; ts/dur are written exactly as given (the format's microsecond text).
inline std::string kernel(const std::string& name, const std::string& ts, const std::string& dur, int stream = 7,
    long long correlation = -1, const std::string& cat = "kernel", int device = 0)
{
    std::string args = "\"device\": " + std::to_string(device) + ", \"stream\": " + std::to_string(stream);
    if (correlation >= 0)
        args += ", \"correlation\": " + std::to_string(correlation);
    return "{\"ph\": \"X\", \"cat\": \"" + cat + "\", \"name\": \"" + name + "\", \"pid\": " + std::to_string(device)
        + ", \"tid\": " + std::to_string(stream) + ", \"ts\": " + ts + ", \"dur\": " + dur + ", \"args\": {" + args
        + "}}";
}

inline std::string annotation(const std::string& name, const std::string& ts, const std::string& dur, bool onGpu)
{
    return std::string("{\"ph\": \"X\", \"cat\": \"") + (onGpu ? "gpu_user_annotation" : "user_annotation")
        + "\", \"name\": \"" + name + "\", \"pid\": 1, \"tid\": 1, \"ts\": " + ts + ", \"dur\": " + dur + "}";
}

inline std::string launch(long long correlation, const std::string& ts)
{
    return "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
           "\"ts\": "
        + ts + ", \"dur\": 1, \"args\": {\"correlation\": " + std::to_string(correlation) + "}}";
}

inline std::string traceOf(const std::vector<std::string>& events, const std::string& extraTopLevel = "")
{
    std::string s
        = "{\"schemaVersion\": 1, " + extraTopLevel + (extraTopLevel.empty() ? "" : ", ") + "\"traceEvents\": [";
    for (size_t i = 0; i < events.size(); ++i)
        s += (i ? ",\n" : "\n") + events[i];
    return s + "\n]}";
}

inline std::string gzip(const std::string& plain)
{
    z_stream z {};
    deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&z, static_cast<uLong>(plain.size())) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(plain.data()));
    z.avail_in = static_cast<uInt>(plain.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

inline mfu::trace::Timeline read(const std::string& bytes, const std::string& name = "test.json")
{
    auto source = mfu::trace::memorySource(bytes, name);
    return mfu::trace::readKinetoTrace(*source);
}

} // namespace trace_test
