#include "core/costmodel/overhead_terms.h"

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

} // namespace mfu
