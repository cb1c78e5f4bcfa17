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

namespace {

const char* const kKernelNames[] = {
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_"
    "cublas",
    "nvjet_tst_192x192_64x4_2x1_v_bz_coopB_TNT",
    "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
    "cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false, true, "
    "false, false, true, true, false, false>(pytorch_flash::Flash_fwd_params)",
    "void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<pytorch_flash::Flash_bwd_kernel_traits<128, 64, "
    "128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t>, true, false, false, false, false, true>(pytorch_flash::"
    "Flash_bwd_params)",
    "triton_poi_fused__to_copy_add_mul_silu_0",
    "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_1",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, "
    "3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)",
    "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
    "TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4>, float*, double>()",
};

struct Generated {
    uint64_t bytes = 0;
    uint64_t events = 0;
};

// Writes about targetBytes of trace; timestamps are fractional microseconds as Kineto writes since 2024.
Generated generate(const std::string& path, uint64_t targetBytes)
{
    std::FILE* f = std::fopen(path.c_str(), "wb");
    std::vector<char> buffer(1 << 20);
    std::setvbuf(f, buffer.data(), _IOFBF, buffer.size());
    std::fprintf(f,
        "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\", "
        "\"totalGlobalMem\": 85018279936, \"computeMajor\": 9, \"computeMinor\": 0, \"numSms\": 132}],\n"
        "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 8},\n"
        "  \"traceEvents\": [\n");
    Generated g;
    double cpu = 1428625731608.106;
    double gpu = cpu + 50.0;
    int64_t correlation = 1000;
    int step = 1;
    double stepStart = cpu;
    while (static_cast<uint64_t>(std::ftell(f)) < targetBytes) {
        for (int k = 0; k < 10; ++k, ++correlation) {
            const int which = static_cast<int>(correlation % 10);
            const double kdur = which == 0 ? 812.417 : which < 4 ? 355.25 : 6.912;
            std::fprintf(f,
                "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 25286, \"tid\": 25286, \"ts\": "
                "%.3f, \"dur\": 14.207, \"args\": {\"External id\": %lld, \"Record function id\": 0, \"Ev Idx\": %lld, "
                "\"Input Dims\": [[16, 2048, 1024], [1024, 2816]], \"Input type\": [\"c10::BFloat16\", "
                "\"c10::BFloat16\"], \"Input Strides\": [[2097152, 1024, 1], [1, 1024]], \"Concrete Inputs\": [\"\", "
                "\"\"]}},\n",
                cpu, static_cast<long long>(correlation), static_cast<long long>(correlation));
            std::fprintf(f,
                "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 25286, \"tid\": "
                "25286, \"ts\": %.3f, \"dur\": 4.113, \"args\": {\"External id\": %lld, \"cbid\": 211, "
                "\"correlation\": %lld}},\n",
                cpu + 2.0, static_cast<long long>(correlation), static_cast<long long>(correlation));
            std::fprintf(f,
                "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": %d, \"ts\": %.3f, "
                "\"dur\": %.3f, \"args\": {\"External id\": %lld, \"queued\": 0, \"device\": 0, \"context\": 1, "
                "\"stream\": %d, \"correlation\": %lld, \"registers per thread\": 168, \"shared memory\": 0, "
                "\"blocks per SM\": 1.0, \"warps per SM\": 8.0, \"grid\": [132, 1, 1], \"block\": [384, 1, 1], "
                "\"est. achieved occupancy %%\": 0}},\n",
                kKernelNames[which], which >= 7 && which < 9 ? 20 : 7, gpu, kdur, static_cast<long long>(correlation),
                which >= 7 && which < 9 ? 20 : 7, static_cast<long long>(correlation));
            std::fprintf(f,
                "{\"ph\": \"s\", \"id\": %lld, \"pid\": 25286, \"tid\": 25286, \"ts\": %.3f, \"cat\": \"ac2g\", "
                "\"name\": \"ac2g\"},\n{\"ph\": \"f\", \"id\": %lld, \"pid\": 0, \"tid\": 7, \"ts\": %.3f, \"cat\": "
                "\"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"},\n",
                static_cast<long long>(correlation), cpu + 2.0, static_cast<long long>(correlation), gpu);
            g.events += 5;
            cpu += 20.5;
            gpu += kdur + 1.25;
        }
        if (correlation % 2000 == 0) {
            std::fprintf(f,
                "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\", \"pid\": 25286, "
                "\"tid\": 25286, \"ts\": %.3f, \"dur\": %.3f, \"args\": {\"External id\": 1}},\n",
                step++, stepStart, cpu - stepStart);
            stepStart = cpu;
            ++g.events;
        }
    }
    std::fprintf(f,
        "{\"ph\": \"i\", \"cat\": \"Trace\", \"name\": \"end\", \"pid\": 0, \"tid\": 0, \"ts\": %.3f, "
        "\"s\": \"g\"}\n  ],\n  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": "
        "1751410836000000000\n}\n",
        cpu);
    ++g.events;
    g.bytes = static_cast<uint64_t>(std::ftell(f));
    std::fclose(f);
    return g;
}

void gzipFile(const std::string& from, const std::string& to)
{
    std::ifstream in(from, std::ios::binary);
    gzFile out = gzopen(to.c_str(), "wb6");
    std::vector<char> chunk(1 << 20);
    while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0)
        gzwrite(out, chunk.data(), static_cast<unsigned>(in.gcount()));
    gzclose(out);
}

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
