#pragma once
// Overlap of communication with the compute it runs beside: what the compute cannot hide, plus a share of what it
// could that stays exposed anyway (late issue, stream ordering, SMs given to communication).
#include <algorithm>
#include <array>
#include <cstddef>

#include "core/costmodel/collectives.h"

namespace mfu {

inline double exposedAfterOverlap(double comm, double compute, double exposedShare)
{
    return std::max(0.0, comm - compute) + std::min(comm, compute) * exposedShare;
}

// Communication per micro-batch (or per step, where a term says so): all of it, and what stays on the critical path.
struct CommTime {
    double total = 0;
    double exposed = 0;
};

// What a stream beside the kernels occupies: NVLink inside the scale-up domain, the NICs across it, the host link
// (PCIe or C2C), the CPU.
enum class Link { ScaleUp, ScaleOut, HostLink, Cpu };

inline Link linkOf(const CommGroup& group, const LinkTiers& tiers)
{
    return group.crossesDomain(tiers.domainGpus) ? Link::ScaleOut : Link::ScaleUp;
}

// One pass of a micro-batch (its forward or its backward) on one GPU, as the streams beside its kernels are added
// one after another. A stream hides behind the whole pass so far: the kernels and what the GPU already waits for
// on other links (the NICs keep sending while the GPU waits for the CPU or for NVLink), less what streams on its own
// link already sent in it. Streams on separate links then cost what the busiest of them does, streams on one link
// what their bytes together do; summing what each would cost alone charged the same compute window twice, and less
// compute made a slower step.
class PassAccount {
public:
    explicit PassAccount(double kernelSeconds = 0)
        : m_span(kernelSeconds)
    {
    }
    // The pass so far: its kernels and every wait added.
    double span() const { return m_span; }
    // What a stream on `link` can still hide behind.
    double windowOn(Link link) const { return std::max(0.0, m_span - m_sent[index(link)]); }
    // A stream that kept `link` busy for `busySeconds` in this pass, of which `exposedSeconds` the GPU waited.
    void add(Link link, double busySeconds, double exposedSeconds)
    {
        m_sent[index(link)] += busySeconds;
        m_span += exposedSeconds;
    }

private:
    static size_t index(Link link) { return static_cast<size_t>(link); }
    double m_span;
    std::array<double, 4> m_sent {};
};

} // namespace mfu
