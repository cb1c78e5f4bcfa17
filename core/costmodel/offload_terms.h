#pragma once
// Offload to host memory (docs/cost-model.md, "Offload to host memory"): what crosses the GPU's host link (PCIe,
// NVLink-C2C) and what the CPU computes, per step.
// - Activation offload: the offloaded share of each micro-batch's saved activations goes to the host during forward
//   and comes back ahead of backward, on the copy engines beside the compute: the copies out overlap the forward and
//   the copies back the backward (exposedAfterOverlap with hostOffloadExposedFraction); under 1F1B both directions
//   of the full-duplex link run at once beside a forward and a backward.
// - Optimizer offload (Megatron-Core's HybridDeviceOptimizer, torch FSDP's CPUOffload): the offloaded share's FP32
//   gradients go down, the CPU updates its master weights and moments at cpuOptimizerBytesPerSec, and the FP32
//   weights come back; the GPU updates the rest meanwhile, so the step waits for the slower of the two. Under torch
//   FSDP the FP32 parameter and gradient shards live in host memory: each all-gather copies the rank's shard of the
//   unit in and each reduce-scatter copies its gradient shard out (fsdpHostShardShare, data_parallel_comm,
//   step_memory), so the step's own copy is not charged again.
#include "core/costmodel/overlap.h"
#include "core/costmodel/step_context.h"

namespace mfu {

// PCIe Gen5 x16, per direction: the host link of HGX H100, H200 and B200 (64 GB/s; 128 GB/s both ways in NVIDIA's
// datasheets), assumed where a hardware preset states none.
inline constexpr double kDefaultHostLinkBytesPerSec = 64e9;

// The host link's bytes per second, per GPU and direction, at hostLinkEfficiency.
double hostLinkBytesPerSec(const StepContext& x);

// One micro-batch's activation traffic to the host and back: offloadedBytes each way (per GPU), the copies out
// overlapped with the forward, the copies back with the backward (under 1F1B, both with both).
struct HostOffloadComm : CommTime {
    double forwardExposed = 0; // of exposed: what the copies out add to the forward
};
HostOffloadComm activationOffloadComm(
    const StepContext& x, double offloadedBytes, double forwardSeconds, double backwardSeconds);

struct OptimizerOffload {
    double gpuSeconds = 0; // the GPU's update of the share it keeps
    double hostSeconds = 0; // gradients down, the CPU update, weights up
    double stepSeconds() const { return gpuSeconds > hostSeconds ? gpuSeconds : hostSeconds; }
};

// torch FSDP's CPUOffload (optimizer_offload_fraction under torch FSDP; FSDP2's CPUOffloadPolicy moves the whole
// shard, 1): the share of each rank's FP32 parameter and gradient shards kept in host memory and copied over the host
// link at every all-gather and reduce-scatter. 0 under Megatron-FSDP, ZeRO-1 and DDP, whose optimizer copies its
// offloaded shard once a step.
double fsdpHostShardShare(const Scenario& s);

// The optimizer step with optimizerOffloadFraction of it on the CPU; gpuOptimizerSeconds is the whole update on
// the GPU (optimizerTime).
OptimizerOffload optimizerOffload(const StepContext& x, double gpuOptimizerSeconds);

} // namespace mfu
