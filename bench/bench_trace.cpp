// Trace import speed: generates Kineto-like traces of several sizes (cpu_op, cuda_runtime, kernels, flow events,
// ProfilerStep annotations, with the argument payloads real files carry), then times in the same run:
//   1. the streaming reader (core/trace), plain and gzip (inflate on a second thread, and on the reading thread);
//   2. baselines: nlohmann::json::parse into a DOM (what a simple importer does), nlohmann::json::accept (a SAX
//      pass that builds nothing: the floor for any nlohmann-based reader) and zlib inflate alone (plain zlib into a
//      scratch buffer, nothing parsed: the floor for gzip), plus the reader's own gzip ByteSource with no parsing.
// Prints MB/s, events/s and peak RSS (VmHWM, reset between runs through /proc/self/clear_refs), then the ratios that
// say whether gzip costs anything beyond decompression.
// Usage: bench_trace [SIZE_MB...] [--dir FOLDER] [--no-dom] [--file TRACE.json.gz...]   (default sizes 50 200)
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <malloc.h>

#include <nlohmann/json.hpp>
#include <zlib.h>

#include "core/trace/kineto_reader.h"
#include "core/trace/trace_loader.h"
#include "process_measure.h"
#include "synthetic_trace.h"

using bench::generate;
using bench::Generated;
using bench::gzipFile;

namespace {

struct Timing {
    double cpu = 0; // seconds, best of the repeats
    double wall = 0;
    double peakMiB = 0;
};

// Throughput on CPU time is the figure to compare: on a shared machine wall time includes waiting for a core.
// Best of `repeats` runs (the least disturbed by other processes). Each measurement runs in a forked child so its
// peak RSS is its own, not memory an earlier baseline left in the allocator; the child hands its timing back
// through a shared page.
Timing measure(const char* label, uint64_t bytes, uint64_t events, const std::function<void()>& body, int repeats = 3)
{
    return bench::inForkedChild<Timing>([&] {
        double cpu = 1e300;
        double wall = 1e300;
        double peak = 0;
        for (int i = 0; i < repeats; ++i) {
            bench::resetPeakRss();
            const double c0 = bench::cpuSeconds();
            const auto t0 = std::chrono::steady_clock::now();
            body();
            wall = std::min(wall, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
            cpu = std::min(cpu, bench::cpuSeconds() - c0);
            peak = std::max(peak, bench::peakRssMiB());
        }
        std::printf("  %-44s cpu %7.3f s %8.1f MB/s %6.2f Mev/s | wall %7.3f s %8.1f MB/s | peak RSS %7.1f MiB\n",
            label, cpu, bytes / cpu / 1e6, events / cpu / 1e6, wall, bytes / wall / 1e6, peak);
        return Timing { cpu, wall, peak };
    });
}

// Plain zlib, independent of the reader's ByteSource: 1 MiB of compressed input at a time inflated into a 1 MiB
// scratch buffer that is overwritten every round. Returns the decompressed size.
uint64_t inflateOnly(const std::string& path)
{
    std::FILE* f = std::fopen(path.c_str(), "rb");
    std::vector<unsigned char> in(1 << 20);
    std::vector<unsigned char> out(1 << 20);
    z_stream z {};
    inflateInit2(&z, 16 + MAX_WBITS);
    uint64_t total = 0;
    int rc = Z_OK;
    while (rc != Z_STREAM_END) {
        if (z.avail_in == 0) {
            z.avail_in = static_cast<uInt>(std::fread(in.data(), 1, in.size(), f));
            z.next_in = in.data();
            if (z.avail_in == 0)
                break;
        }
        z.next_out = out.data();
        z.avail_out = static_cast<uInt>(out.size());
        rc = inflate(&z, Z_NO_FLUSH);
        total += out.size() - z.avail_out;
        if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
            break;
    }
    inflateEnd(&z);
    std::fclose(f);
    return total;
}

// gzip read time over decompress-only time; the extra time gzip costs over plain JSON divided by the inflate time
// (1.0 = decompression is the only extra cost), on CPU time with inflate on the reading thread; and the wall time
// of gzip reading with inflate on a second thread over the plain read's (1.0 = decompression fully hidden).
void printRatios(const Timing& plain, const Timing& gzip, const Timing& gzipOneThread, const Timing& inflateAlone)
{
    std::printf("  => CPU: gzip read (one thread) / inflate only = %.2f; (gzip read (one thread) - plain read) / "
                "inflate only = %.2f\n",
        gzipOneThread.cpu / inflateAlone.cpu, (gzipOneThread.cpu - plain.cpu) / inflateAlone.cpu);
    std::printf("  => wall: gzip read / inflate only = %.2f; gzip read / plain read = %.2f (one thread: %.2f)\n",
        gzip.wall / inflateAlone.wall, gzip.wall / plain.wall, gzipOneThread.wall / plain.wall);
}

// A real trace file (gzip): the reader, the reader's gzip source alone and plain zlib alone.
void benchFile(const std::string& path)
{
    const uint64_t jsonBytes = inflateOnly(path);
    const auto timeline = mfu::trace::loadTrace(path);
    const uint64_t events = timeline.activities.size();
    std::printf("real file %s: %.1f MB gzip, %.1f MB JSON (%.1f:1), %llu GPU activities (Mev/s below count those)\n",
        path.c_str(), std::filesystem::file_size(path) / 1e6, jsonBytes / 1e6,
        static_cast<double>(jsonBytes) / static_cast<double>(std::filesystem::file_size(path)),
        static_cast<unsigned long long>(events));
    const int repeats = 10;
    const Timing gzip = measure(
        "streaming reader, gzip (MB/s of JSON)", jsonBytes, events, [&] { (void)mfu::trace::loadTrace(path); },
        repeats);
    const Timing gzipOneThread = measure(
        "streaming reader, gzip, inflate on the same thread", jsonBytes, events,
        [&] { (void)mfu::trace::readKinetoTrace(*mfu::trace::openTraceFile(path)); }, repeats);
    const Timing inflateAlone = measure(
        "baseline: zlib inflate only (MB/s of JSON)", jsonBytes, events, [&] { (void)inflateOnly(path); }, repeats);
    std::printf("  => CPU: gzip read (one thread) / inflate only = %.2f; wall: gzip read / inflate only = %.2f\n",
        gzipOneThread.cpu / inflateAlone.cpu, gzip.wall / inflateAlone.wall);
}

std::string readAll(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

} // namespace

int main(int argc, char** argv)
{
    std::vector<uint64_t> sizesMb;
    std::vector<std::string> files;
    std::filesystem::path dir = std::filesystem::temp_directory_path();
    bool dom = true;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (std::strcmp(argv[i], "--file") == 0 && i + 1 < argc)
            files.push_back(argv[++i]);
        else if (std::strcmp(argv[i], "--no-dom") == 0)
            dom = false;
        else
            sizesMb.push_back(std::stoull(argv[i]));
    }
    if (sizesMb.empty() && files.empty())
        sizesMb = { 50, 200 };
    for (const std::string& file : files)
        benchFile(file);
    for (uint64_t mb : sizesMb) {
        const std::string plain = (dir / ("bench_trace_" + std::to_string(mb) + "MB.json")).string();
        const std::string gz = plain + ".gz";
        const Generated g = generate(plain, mb * 1000 * 1000);
        gzipFile(plain, gz);
        const uint64_t gzBytes = std::filesystem::file_size(gz);
        std::printf("trace of %.1f MB (%.1f MB gzip), %llu events\n", g.bytes / 1e6, gzBytes / 1e6,
            static_cast<unsigned long long>(g.events));
        size_t kernels = 0; // keeps the reads observable (counted inside the measuring child)
        const Timing plainRead = measure("streaming reader, plain", g.bytes, g.events,
            [&] { kernels += mfu::trace::loadTrace(plain).activities.size(); });
        const Timing gzipRead = measure("streaming reader, gzip (MB/s of JSON)", g.bytes, g.events,
            [&] { kernels += mfu::trace::loadTrace(gz).activities.size(); });
        const Timing gzipOneThread = measure("streaming reader, gzip, inflate on the same thread", g.bytes, g.events,
            [&] { kernels += mfu::trace::readKinetoTrace(*mfu::trace::openTraceFile(gz)).activities.size(); });
        const Timing inflateAlone = measure("baseline: zlib inflate only (MB/s of JSON)", g.bytes, g.events,
            [&] { kernels += inflateOnly(gz) > 0 ? 0 : 1; });
        measure("reader's gzip ByteSource alone, no parse", g.bytes, g.events, [&] {
            auto source = mfu::trace::openTraceFile(gz);
            std::vector<char> out(1 << 20);
            while (source->read(out.data(), out.size()) > 0) { }
        });
        measure(
            "baseline: nlohmann accept (SAX, no tree)", g.bytes, g.events,
            [&] {
                const std::string text = readAll(plain);
                if (!nlohmann::json::accept(text))
                    std::printf("  (invalid JSON?)\n");
            },
            1);
        if (dom)
            measure(
                "baseline: nlohmann DOM parse", g.bytes, g.events,
                [&] {
                    const nlohmann::json doc = nlohmann::json::parse(readAll(plain));
                    kernels += doc["traceEvents"].size() > 0 ? 0 : 1;
                },
                1);
        printRatios(plainRead, gzipRead, gzipOneThread, inflateAlone);
        std::printf("  (GPU activities in the trace: %zu)\n", mfu::trace::loadTrace(plain).activities.size());
        std::filesystem::remove(plain);
        std::filesystem::remove(gz);
    }
    return 0;
}
