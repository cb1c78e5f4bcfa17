#include "core/trace/collective_sizes.h"

#include <algorithm>
#include <map>
#include <utility>

#include "core/number_format.h"

namespace mfu::trace {

double busBandwidthFactor(KernelCategory kind, int n)
{
    if (n < 2)
        return 1.0;
    const double share = static_cast<double>(n - 1) / n;
    switch (kind) {
    case KernelCategory::CommAllReduce:
        return 2.0 * share;
    case KernelCategory::CommAllGather:
    case KernelCategory::CommReduceScatter:
    case KernelCategory::CommAllToAll:
        return share;
    default:
        return 1.0;
    }
}

std::vector<CollectiveSizeStat> collectiveSizeStats(const std::vector<CollectiveCall>& calls)
{
    std::map<std::pair<int, int>, std::vector<const CollectiveCall*>> groups;
    for (const CollectiveCall& c : calls)
        if (c.messageBytes > 0 && c.durationNs > 0)
            groups[{ static_cast<int>(c.category), c.groupSize }].push_back(&c);
    std::vector<CollectiveSizeStat> out;
    for (const auto& [key, members] : groups) {
        CollectiveSizeStat s;
        s.kind = static_cast<KernelCategory>(key.first);
        s.groupSize = key.second;
        s.calls = static_cast<int64_t>(members.size());
        s.bytesMin = members.front()->messageBytes;
        std::vector<double> bandwidths;
        for (const CollectiveCall* c : members) {
            const double seconds = static_cast<double>(c->durationNs) * 1e-9;
            s.bytesMin = std::min(s.bytesMin, c->messageBytes);
            s.bytesMax = std::max(s.bytesMax, c->messageBytes);
            s.bytesTotal += c->messageBytes;
            s.seconds += seconds;
            bandwidths.push_back(c->messageBytes / seconds * busBandwidthFactor(s.kind, s.groupSize));
        }
        std::sort(bandwidths.begin(), bandwidths.end());
        const size_t n = bandwidths.size();
        s.busBandwidthMedian = n % 2 ? bandwidths[n / 2] : 0.5 * (bandwidths[n / 2 - 1] + bandwidths[n / 2]);
        s.busBandwidthBest = bandwidths.back();
        out.push_back(s);
    }
    std::sort(out.begin(), out.end(), [](const CollectiveSizeStat& a, const CollectiveSizeStat& b) {
        return a.seconds != b.seconds
            ? a.seconds > b.seconds
            : std::pair(static_cast<int>(a.kind), a.groupSize) < std::pair(static_cast<int>(b.kind), b.groupSize);
    });
    return out;
}

std::string collectiveSizeText(const CollectiveSizeStat& c)
{
    const auto mb = [](double bytes) { return formatNumber(bytes / 1e6, bytes < 1e6 ? 3 : 1); };
    const auto gbps = [](double bytesPerSec) { return formatNumber(bytesPerSec / 1e9, 1) + " GB/s"; };
    return std::string(categoryLabel(c.kind))
        + (c.groupSize > 0 ? " over " + std::to_string(c.groupSize) + " ranks" : std::string()) + ": "
        + formatNumber(static_cast<double>(c.calls)) + (c.calls == 1 ? " call of " : " calls of ")
        + (c.bytesMin == c.bytesMax ? mb(c.bytesMin) : mb(c.bytesMin) + "-" + mb(c.bytesMax)) + " MB, bus bandwidth "
        + gbps(c.busBandwidthMedian) + " median, " + gbps(c.busBandwidthBest)
        + " best (waits for other ranks included)";
}

} // namespace mfu::trace
