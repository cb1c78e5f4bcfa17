// Soak: open, analyse and close a large trace many times and check that memory does not grow (a leak, or a cache
// that keeps every trace, would show as RSS climbing with each round). The first rounds warm the allocator; the
// RSS after round WARMUP is the baseline, and the last round may exceed it by at most max(16 MiB, 5%).
// Prints RSS per round. Exit 0 when memory is flat, 1 when it grew, 2 on bad usage.
// Usage: bench_trace_soak --rules presets/kernels/kernel_rules.json [--trace FILE] [--size-mb N] [--rounds N]
//        (default: a generated 64 MB trace, 50 rounds; scripts/soak_trace.sh runs it)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <malloc.h>

#include "core/trace/analysis.h"
#include "core/trace/kernel_rules.h"
#include "core/trace/trace_loader.h"

namespace {

// Resident set size in bytes, from /proc/self/statm (pages).
double rssBytes()
{
    std::ifstream statm("/proc/self/statm");
    long pages = 0, resident = 0;
    statm >> pages >> resident;
    return static_cast<double>(resident) * 4096.0;
}

// A Kineto trace of about sizeMb megabytes: ProfilerStep annotations on the GPU stream, each step a mix of GEMM,
// attention, elementwise and NCCL kernels on two streams.
void writeTrace(const std::filesystem::path& path, int sizeMb)
{
    const char* const kernels[] = { "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", "flash_fwd_kernel",
        "triton_poi_fused_add_mul_silu_0", "ncclDevKernel_AllGather_RING_LL", "vectorized_elementwise_kernel" };
    std::ofstream out(path);
    out << R"({"schemaVersion":1,"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3"}],"traceEvents":[)";
    const long target = static_cast<long>(sizeMb) * 1024 * 1024;
    long ts = 0;
    int step = 0;
    bool first = true;
    while (static_cast<long>(out.tellp()) < target) {
        const long stepStart = ts;
        out << (first ? "" : ",") << R"({"ph":"X","cat":"gpu_user_annotation","name":"ProfilerStep#)" << step
            << R"(","pid":0,"tid":7,"ts":)" << stepStart << R"(,"dur":100000,"args":{"device":0,"stream":7}})";
        first = false;
        for (int k = 0; k < 1000; ++k) {
            const int kind = k % 5;
            const int stream = kind == 3 ? 20 : 7;
            out << R"(,{"ph":"X","cat":"kernel","name":")" << kernels[kind] << R"(","pid":0,"tid":)" << stream
                << R"(,"ts":)" << ts << R"(,"dur":)" << 80 + kind * 7 << R"(,"args":{"device":0,"stream":)" << stream
                << R"(,"grid":[132,1,1],"block":[256,1,1],"correlation":)" << step * 1000 + k << "}}";
            ts += 100;
        }
        ts = stepStart + 100000;
        ++step;
    }
    out << "]}\n";
}

} // namespace

int main(int argc, char* argv[])
{
    std::filesystem::path tracePath;
    std::string rulesPath;
    int sizeMb = 64;
    int rounds = 50;
    for (int i = 1; i < argc; ++i) {
        const bool hasValue = i + 1 < argc;
        if (!std::strcmp(argv[i], "--rules") && hasValue)
            rulesPath = argv[++i];
        else if (!std::strcmp(argv[i], "--trace") && hasValue)
            tracePath = argv[++i];
        else if (!std::strcmp(argv[i], "--size-mb") && hasValue)
            sizeMb = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--rounds") && hasValue)
            rounds = std::atoi(argv[++i]);
        else {
            std::fprintf(stderr, "usage: bench_trace_soak --rules FILE [--trace FILE] [--size-mb N] [--rounds N]\n");
            return 2;
        }
    }
    const int warmup = 5;
    if (rulesPath.empty() || sizeMb < 1 || rounds <= warmup) {
        std::fprintf(stderr, "bench_trace_soak: --rules is required, --size-mb must be >= 1, --rounds > %d\n", warmup);
        return 2;
    }
    const bool generated = tracePath.empty();
    if (generated) {
        tracePath = std::filesystem::temp_directory_path() / "mfu_soak_trace.json";
        writeTrace(tracePath, sizeMb);
    }
    const auto rules = mfu::trace::KernelRules::fromFile(rulesPath);
    std::printf("soak: %s (%.1f MB), %d rounds\n", tracePath.c_str(),
        static_cast<double>(std::filesystem::file_size(tracePath)) / 1e6, rounds);

    double baseline = 0;
    double last = 0;
    for (int round = 1; round <= rounds; ++round) {
        {
            std::vector<mfu::trace::Timeline> timelines = mfu::trace::loadRun({ tracePath });
            const auto analysis = mfu::trace::analyzeRun(timelines, rules);
            if (analysis.ranks.empty() || analysis.ranks.front().steps.empty()) {
                std::fprintf(stderr, "soak: round %d analysed no steps\n", round);
                return 1;
            }
        }
        malloc_trim(0); // give freed pages back, so RSS shows what is still held
        last = rssBytes();
        if (round == warmup)
            baseline = last;
        std::printf("round %2d: RSS %.1f MiB\n", round, last / 1048576.0);
    }
    if (generated)
        std::filesystem::remove(tracePath);
    const double allowed = std::max(16.0 * 1048576.0, 0.05 * baseline);
    std::printf("soak: RSS after round %d %.1f MiB, after round %d %.1f MiB (growth %.1f MiB, allowed %.1f MiB)\n",
        warmup, baseline / 1048576.0, rounds, last / 1048576.0, (last - baseline) / 1048576.0, allowed / 1048576.0);
    if (last - baseline > allowed) {
        std::printf("soak: FAIL: memory grew across rounds\n");
        return 1;
    }
    std::printf("soak: OK\n");
    return 0;
}
