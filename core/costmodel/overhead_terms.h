#pragma once
// Fixed costs (docs/cost-model.md, constants perLayerOverhead and perStepOverheadSeconds): kernel launches and host
// work per layer and pass, per micro-batch; data loading, logging and clipping once per step.
#include "core/costmodel/step_context.h"

namespace mfu {

// The share of a layer's launch and host overhead that CUDA graphs replay in one launch: none; per module, the
// captured scopes' share (an assumption, not yet validated: Megatron-Core's attn, moe_router and moe_preprocess
// scopes hold about half of a transformer layer's kernels, the GEMM-and-norm rest launched as before); the full
// iteration, all of it. The per-step overhead (data loading, logging, clipping) stays: a graph does not replay it.
inline constexpr double kModuleGraphLaunchShare = 0.5;
double graphedLaunchShare(CudaGraphs graphs);

// Per micro-batch: forward and backward passes over the stage's layers, and the recomputed forward under
// checkpointing, less what CUDA graphs replay.
double launchOverheadTime(const StepContext& x);

// Whether the scenario's MoE layers wait for the host at each dispatch (ExpertHostSync, Auto resolved).
bool moeDispatchWaitsForHost(const Scenario& s);
// The forward passes a micro-batch waits for the host in: 1 and the recomputed ones (0 when its MoE layers never
// wait): the recomputed forward of full checkpointing, or of Megatron's moe module, dispatches again (its mlp module,
// the dense MLP, does not). The first is the forward's; the recomputed ones run inside the backward.
double moeHostStallPasses(const StepContext& x);

// Per micro-batch: how long the GPU waits for the CPU in the forward passes of the stage's MoE layers. After each
// dispatch synchronises, the CPU issues the layer's kernels at moeLayerHostSeconds a layer (less what CUDA graphs
// replay) and the GPU runs them no faster, so a forward pass takes the longer of the two. Backward needs no copy to
// the host (its sizes are the forward's), and the CPU runs ahead. Each forward is set against the GPU time it
// issues: forwardGpuSeconds, the stage's forward pass on the GPU (its kernels and its waits on exposed
// communication), and recomputeGpuSeconds, the recomputed forwards inside the backward (the kernels they repeat and
// their own waits). The recomputed modules of selective checkpointing are not the whole forward: a faster attention
// shortens the forward, not what the host waits beside when it recomputes the MoE layers.
struct MoeHostStall {
    double forward = 0;
    double recompute = 0;
    double total() const { return forward + recompute; }
};
// hostScale: a calibration's overhead factor, which stretches the host's issue time (1: the model's).
MoeHostStall moeHostStall(
    const StepContext& x, double forwardGpuSeconds, double recomputeGpuSeconds, double hostScale = 1.0);

} // namespace mfu
