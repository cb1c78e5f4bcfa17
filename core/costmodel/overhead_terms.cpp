#include "core/costmodel/overhead_terms.h"

#include <algorithm>

#include "core/costmodel/cost_model.h"

namespace mfu {

double graphedLaunchShare(CudaGraphs graphs)
{
    switch (graphs) {
    case CudaGraphs::None:
        return 0.0;
    case CudaGraphs::Modules:
        return kModuleGraphLaunchShare;
    case CudaGraphs::FullIteration:
        return 1.0;
    }
    return 0.0;
}

double launchOverheadTime(const StepContext& x)
{
    const CostModelConstants& c = *x.constants;
    const Scenario& s = *x.scenario;
    const double launched = 1.0 - graphedLaunchShare(s.flags.cudaGraphs);
    const double passes = s.activationCheckpointing == ActivationCheckpointing::None ? 2.0
        : s.activationCheckpointing == ActivationCheckpointing::Full                 ? 2.0 + x.fullRecomputeShare
                                                                                     : 3.0;
    return launched * passes * x.layersPerStage
        * (s.flags.compiled ? c.perLayerOverheadSecondsCompiled : c.perLayerOverheadSecondsEager);
}

bool moeDispatchWaitsForHost(const Scenario& s)
{
    const Parallelism& par = s.parallelism;
    switch (par.expertHostSync) {
    case ExpertHostSync::PerLayer:
        return true;
    case ExpertHostSync::None:
        return false;
    case ExpertHostSync::Auto:
        break;
    }
    return par.ep > 1 && par.expertCapacityFactor <= 0 && par.expertDispatcher != ExpertDispatcher::HybridEp
        && s.flags.cudaGraphs != CudaGraphs::FullIteration;
}

double moeHostStallPasses(const StepContext& x)
{
    const Scenario& s = *x.scenario;
    if (!(x.shape->experts > 0) || !moeDispatchWaitsForHost(s))
        return 0.0;
    double passes = 1.0;
    if (s.activationCheckpointing == ActivationCheckpointing::Full)
        passes += x.fullRecomputeShare;
    else if (s.activationCheckpointing == ActivationCheckpointing::Selective
        && (s.flags.recomputeModules & RecomputeMoe))
        passes += 1.0; // Megatron's mlp module is the dense MLP: it repeats no dispatch (expert_parallel_comm.cpp)
    return passes;
}

MoeHostStall moeHostStall(const StepContext& x, double forwardGpuSeconds, double recomputeGpuSeconds, double hostScale)
{
    const double passes = moeHostStallPasses(x);
    if (!(passes > 0))
        return {};
    const double moeLayers = x.layersPerStage * x.shape->moeLayerShare;
    const double hostSeconds = hostScale * (1.0 - graphedLaunchShare(x.scenario->flags.cudaGraphs))
        * x.constants->moeLayerHostSeconds * moeLayers;
    return { std::max(0.0, hostSeconds - forwardGpuSeconds),
        std::max(0.0, (passes - 1.0) * hostSeconds - recomputeGpuSeconds) };
}

} // namespace mfu
