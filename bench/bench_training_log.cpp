// Training-log parse speed: generates torchtitan (ANSI colours, tps/tflops/mfu) and Megatron-LM (iteration lines
// with every field) logs of several sizes, then times in the same run:
//   1. the baseline: std::getline over the file, nothing parsed (the floor for any line-based reader);
//   2. parseTrainingLog streaming from an std::ifstream;
//   3. parseTrainingLog from the whole file read into memory first (what the window and the CLI did before).
// Prints MB/s and lines/s on CPU time (best of three) and peak RSS (VmHWM, each measurement in its own forked
// process), then parse / getline.
// Usage: bench_training_log [SIZE_MB...] [--dir FOLDER]   (default sizes 1 10 50)
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "core/logs/training_log.h"
#include "process_measure.h"

namespace {

const char kEsc = '\x1b';

std::string colour(const char* code, const std::string& text)
{
    return std::string(1, kEsc) + "[" + code + "m" + text + kEsc + "[39m";
}

// A torchtitan step line as a 2025 build prints it (colours around every field).
std::string torchtitanLine(int64_t step)
{
    char buf[512];
    std::snprintf(buf, sizeof buf, "[titan] 2025-03-14 10:%02d:%02d,%03d - root - INFO - ",
        static_cast<int>(step / 60 % 60), static_cast<int>(step % 60), static_cast<int>(step % 1000));
    std::string line = buf;
    std::snprintf(buf, sizeof buf, "step: %lld", static_cast<long long>(step));
    line += colour("31", buf) + "  ";
    std::snprintf(buf, sizeof buf, "loss: %.5f", 11.0 - static_cast<double>(step % 997) * 0.001);
    line += colour("32", buf) + "  ";
    line += colour("33", "grad_norm:  0.4821") + "  ";
    line += colour("33", "memory: 48.87GiB(51.44%)") + "  ";
    std::snprintf(buf, sizeof buf, "tps: %d,%03d", 4 + static_cast<int>(step % 3), static_cast<int>(step % 1000));
    line += colour("34", buf) + "  ";
    line += colour("36", "tflops: 253.41") + "  ";
    line += colour("35", "mfu: 25.62%");
    return line + "\n";
}

std::string megatronLine(int64_t step, int64_t total)
{
    char buf[768];
    std::snprintf(buf, sizeof buf,
        " [2025-03-14 10:%02d:%02d] iteration %8lld/%8lld | consumed samples: %12lld | elapsed time per iteration "
        "(ms): %.1f | throughput per GPU (TFLOP/s/GPU): %.1f | learning rate: 2.999E-04 | global batch size:   128 | "
        "lm loss: %.6E | loss scale: 1.0 | grad norm: 0.512 | number of skipped iterations:   0 | number of nan "
        "iterations:   0 |\n",
        static_cast<int>(step / 60 % 60), static_cast<int>(step % 60), static_cast<long long>(step),
        static_cast<long long>(total), static_cast<long long>(step * 128), 1234.5 + static_cast<double>(step % 17),
        401.2 - static_cast<double>(step % 7), 5.123456 - static_cast<double>(step % 991) * 1e-4);
    return buf;
}

// Writes about `megabytes` of log: a few header lines, then step lines.
uint64_t writeLog(const std::string& path, bool megatron, double megabytes, uint64_t& lines)
{
    std::ofstream out(path, std::ios::binary);
    std::string header = megatron ? "using world size: 64, data-parallel size: 8\n  seq_length ....... 4096\n"
                                  : "[titan] Training starts at step 1, with local batch size 8, global batch size "
                                    "512, sequence length 8192\n";
    out << header;
    uint64_t bytes = header.size();
    lines = 2;
    const auto target = static_cast<uint64_t>(megabytes * 1e6);
    const int64_t totalSteps = static_cast<int64_t>(target / (megatron ? 420 : 230)) + 1;
    for (int64_t step = 1; bytes < target; ++step, ++lines) {
        const std::string line = megatron ? megatronLine(step, totalSteps) : torchtitanLine(step);
        out << line;
        bytes += line.size();
    }
    return bytes;
}

struct Timing {
    double cpu = 0;
    double peakMiB = 0;
};

// Best of `repeats` on CPU time, in a forked child so the peak RSS is this measurement's own.
Timing measure(const char* label, uint64_t bytes, uint64_t lines, const std::function<size_t()>& body, int repeats = 3)
{
    return bench::inForkedChild<Timing>([&] {
        double cpu = 1e300;
        size_t result = 0;
        for (int i = 0; i < repeats; ++i) {
            bench::resetPeakRss();
            const double c0 = bench::cpuSeconds();
            result = body();
            cpu = std::min(cpu, bench::cpuSeconds() - c0);
        }
        const double peak = bench::peakRssMiB();
        std::printf("  %-34s cpu %7.3f s %8.1f MB/s %6.2f Mlines/s | peak RSS %6.1f MiB | %zu\n", label, cpu,
            static_cast<double>(bytes) / cpu / 1e6, static_cast<double>(lines) / cpu / 1e6, peak, result);
        return Timing { cpu, peak };
    });
}

} // namespace

int main(int argc, char** argv)
{
    std::vector<double> sizes;
    std::string dir = (std::filesystem::temp_directory_path() / "bench_training_log").string();
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--dir" && i + 1 < argc)
            dir = argv[++i];
        else
            sizes.push_back(std::stod(arg));
    }
    if (sizes.empty())
        sizes = { 1, 10, 50 };
    std::filesystem::create_directories(dir);
    for (const bool megatron : { false, true }) {
        for (const double mb : sizes) {
            const std::string path = dir + "/" + (megatron ? "megatron" : "torchtitan") + "_"
                + std::to_string(static_cast<int>(mb)) + "mb.log";
            uint64_t lines = 0;
            const uint64_t bytes = writeLog(path, megatron, mb, lines);
            std::printf("%s, %.1f MB, %llu lines (last figure: lines read / steps parsed)\n",
                megatron ? "megatron" : "torchtitan", static_cast<double>(bytes) / 1e6,
                static_cast<unsigned long long>(lines));
            const Timing base = measure("baseline: std::getline only", bytes, lines, [&] {
                std::ifstream in(path, std::ios::binary);
                std::string line;
                size_t n = 0;
                while (std::getline(in, line))
                    ++n;
                return n;
            });
            const Timing stream = measure("parseTrainingLog, streaming", bytes, lines, [&] {
                std::ifstream in(path, std::ios::binary);
                return mfu::trace::parseTrainingLog(in, path).steps.size();
            });
            measure("parseTrainingLog, whole file first", bytes, lines, [&] {
                std::ifstream file(path, std::ios::binary);
                std::stringstream whole;
                whole << file.rdbuf();
                std::istringstream in(whole.str());
                return mfu::trace::parseTrainingLog(in, path).steps.size();
            });
            std::printf("  streaming parse / getline: %.1fx the time\n\n", stream.cpu / base.cpu);
            std::filesystem::remove(path);
        }
    }
    return 0;
}
