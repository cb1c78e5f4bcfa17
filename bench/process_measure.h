#pragma once
// What the benchmarks that report memory share: CPU time, peak RSS (VmHWM) and its reset, and running one
// measurement in a forked child so its peak RSS is its own, not memory an earlier baseline left in the allocator.
#include <cstdio>
#include <fstream>
#include <new>
#include <string>
#include <type_traits>

#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace bench {

inline double cpuSeconds()
{
    rusage u {};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec)
        + static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

inline double peakRssMiB()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmHWM:", 0) == 0)
            return std::stod(line.substr(6)) / 1024.0;
    return 0;
}

// Writing 5 to clear_refs resets VmHWM to the current RSS.
inline void resetPeakRss()
{
    std::ofstream("/proc/self/clear_refs") << "5";
}

// Runs `measure` in a forked child and returns its result, handed back through a shared page (so Result must be
// trivially copyable). What the child prints is flushed before it exits.
template <typename Result, typename Measure> Result inForkedChild(const Measure& measure)
{
    static_assert(std::is_trivially_copyable_v<Result>);
    std::fflush(stdout);
    void* page = mmap(nullptr, sizeof(Result), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    auto* shared = new (page) Result {};
    const pid_t child = fork();
    if (child != 0) {
        int status = 0;
        waitpid(child, &status, 0);
        const Result result = *shared;
        munmap(page, sizeof(Result));
        return result;
    }
    *shared = measure();
    std::fflush(stdout);
    _exit(0);
}

} // namespace bench
