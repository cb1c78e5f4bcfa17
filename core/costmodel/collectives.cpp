#include "core/costmodel/collectives.h"

#include <algorithm>

namespace mfu {

double ringBytesPerGpu(Collective c, double bufferBytes, int n)
{
    if (n <= 1)
        return 0.0;
    const double share = static_cast<double>(n - 1) / static_cast<double>(n);
    return c == Collective::AllReduce ? 2.0 * share * bufferBytes : share * bufferBytes;
}

int ringSteps(Collective c, int n)
{
    if (n <= 1)
        return 0;
    return c == Collective::AllReduce ? 2 * (n - 1) : n - 1;
}

int CommGroup::membersPerDomain(int domainGpus) const
{
    if (stride >= domainGpus)
        return 1;
    return std::max(1, std::min(size, domainGpus / std::max(1, stride)));
}

namespace {

// At the model's own links (trafficScale 1).
double modelledSeconds(Collective c, double bufferBytes, const CommGroup& group, const LinkTiers& tiers)
{
    const int n = group.size;
    const double bytes = ringBytesPerGpu(c, bufferBytes, n);
    const int steps = ringSteps(c, n);
    if (!group.crossesDomain(tiers.domainGpus))
        return bytes / tiers.scaleUpBytesPerSec + steps * tiers.scaleUpLatency;

    const int local = group.membersPerDomain(tiers.domainGpus);
    if (c == Collective::AllToAll) {
        // Bytes for peers inside the domain go over NVLink, the rest through this GPU's NIC, concurrently.
        const double localShare = static_cast<double>(local - 1) / static_cast<double>(n - 1);
        const double inside = bytes * localShare / tiers.scaleUpBytesPerSec;
        const double outside = bytes * (1.0 - localShare) / tiers.scaleOutBytesPerSec;
        return std::max(inside, outside) + tiers.scaleOutLatency * (n - 1);
    }
    // Rings: each ring crosses every domain boundary through one NIC; `local` members can run one ring each, and
    // their hops inside the domain ride the scale-up link. With one member per domain every hop is a NIC's (a GPU
    // without NVLink, such as L40S, is a domain of its own and has no scale-up link to cap it).
    const int rings = std::max(1, std::min(local, tiers.crossDomainRings));
    const double bandwidth
        = local > 1 ? std::min(tiers.scaleUpBytesPerSec, tiers.scaleOutBytesPerSec * rings) : tiers.scaleOutBytesPerSec;
    return bytes / bandwidth + steps * tiers.scaleOutLatency;
}

} // namespace

double collectiveSeconds(Collective c, double bufferBytes, const CommGroup& group, const LinkTiers& tiers)
{
    const int n = group.size;
    if (n <= 1 || bufferBytes <= 0)
        return 0.0;
    return tiers.trafficScale * modelledSeconds(c, bufferBytes, group, tiers);
}

} // namespace mfu
