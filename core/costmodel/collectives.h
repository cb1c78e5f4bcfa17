#pragma once
// Collective communication time: message size over the bandwidth of the tier the group crosses, plus a latency term
// per ring step. Ring algorithms (NCCL's default for large messages) move, per GPU:
//   all-reduce            2 (n-1)/n x buffer
//   all-gather, reduce-scatter, all-to-all   (n-1)/n x buffer (buffer = the full, unsharded tensor)
// and take (n-1) steps (2 (n-1) for all-reduce), each paying the link latency.
// Tiers: a group inside one scale-up domain (NVLink/NVSwitch) runs at the scale-up bandwidth; a group spanning
// domains runs its inter-domain share over the members' NICs. Ring collectives route one ring per NIC rail, so up to
// `crossDomainRings` members per domain drive their NICs at once (capped by the scale-up link); an all-to-all sends
// every cross-domain byte through the sender's own NIC.
#include "core/costmodel/constants.h"

namespace mfu {

enum class Collective { AllReduce, AllGather, ReduceScatter, AllToAll };

// Bytes each GPU sends for a collective over n ranks on a buffer of `bufferBytes` (the whole tensor).
double ringBytesPerGpu(Collective c, double bufferBytes, int n);
// Sequential steps of the ring algorithm (latency multiplier).
int ringSteps(Collective c, int n);

struct LinkTiers {
    double scaleUpBytesPerSec = 0; // achieved, one direction, per GPU
    double scaleOutBytesPerSec = 0;
    double scaleUpLatency = 0;
    double scaleOutLatency = 0;
    int domainGpus = 1;
    int crossDomainRings = 8;
    // What a calibration from a trace measured the collectives to take over what the model gives them (its
    // communication factor, fitted as traffic: core/calibration/trace_calibration.h): every collective's time,
    // bandwidth and latency alike, is stretched by it before the overlap decides what stays exposed. 1: the model.
    double trafficScale = 1;
};

// A communication group: n ranks, consecutive members `stride` ranks apart (ranks are laid out TP innermost).
struct CommGroup {
    int size = 1;
    int stride = 1;
    bool crossesDomain(int domainGpus) const { return size > 1 && static_cast<long long>(size) * stride > domainGpus; }
    // Members that share one scale-up domain (1 when the stride already spans a domain).
    int membersPerDomain(int domainGpus) const;
};

// Seconds for one collective of `bufferBytes` over `group`.
double collectiveSeconds(Collective c, double bufferBytes, const CommGroup& group, const LinkTiers& tiers);

} // namespace mfu
