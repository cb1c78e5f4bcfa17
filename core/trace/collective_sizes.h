#pragma once
// What each kind of collective moved and how fast, from the message sizes PyTorch records beside NCCL kernels
// (CollectiveCall::messageBytes): per kind and group size, the calls, their sizes and bus bandwidth, in NCCL's
// convention (nccl-tests' PERFORMANCE.md): the bytes each rank's links carry per second, the message over the
// kernel's time times 2(n-1)/n for an all-reduce, (n-1)/n for an all-gather, reduce-scatter or all-to-all, 1 for a
// broadcast or a send/receive. A kernel's time includes waiting for the group's slowest rank to arrive, so one rank's
// figures are the links' speed at best: its best call comes closest.
#include <cstdint>
#include <string>
#include <vector>

#include "core/trace/analysis.h"

namespace mfu::trace {

// NCCL's bus-bandwidth factor of a collective kind over n ranks (1 when n is not recorded).
double busBandwidthFactor(KernelCategory kind, int n);

struct CollectiveSizeStat {
    KernelCategory kind = KernelCategory::CommOther;
    int groupSize = 0; // 0: not recorded
    int64_t calls = 0;
    double bytesMin = 0, bytesMax = 0, bytesTotal = 0;
    double seconds = 0; // the calls' kernel time, summed
    double busBandwidthMedian = 0; // bytes per second
    double busBandwidthBest = 0;
};

// Per kind and group size, the calls whose message the trace recorded, the longest first.
std::vector<CollectiveSizeStat> collectiveSizeStats(const std::vector<CollectiveCall>& calls);

// One kind in words, the same in the Trace panel, `trace` and its JSON (`summary`): "All-reduce over 2 ranks: 15
// calls of 8.2-31.5 MB, bus bandwidth 5.8 GB/s median, 13.0 GB/s best (waits for other ranks included)".
std::string collectiveSizeText(const CollectiveSizeStat& c);

} // namespace mfu::trace
