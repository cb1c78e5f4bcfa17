#pragma once
// The waterfall from peak to achieved MFU: what each part of the step costs in MFU points. A step that did nothing
// but model FLOPs at the BF16 dense peak would reach 100%; every second spent elsewhere (or on kernels below peak)
// takes its share of the step away:
//   loss(component) = 100 x time(component) / step time        for memory-bound work, recompute, each exposed
//                                                               communication kind, the pipeline bubble, overheads
//   loss(compute)   = 100 x (matmul + attention) / step - MFU   kernels below peak (negative when FP8 GEMMs beat the
//                                                               BF16 peak MFU is quoted against)
// so 100 - sum(losses) = achieved MFU exactly.
#include <string>
#include <vector>

#include "core/costmodel/step_prediction.h"

namespace mfu {

struct MfuLoss {
    std::string key; // "compute", "memory_bound", "recompute", "comm_<kind>", "pipeline_bubble", "overhead"
    std::string label; // "Matmul/attention below peak", "Exposed FSDP all-gather", ...
    double points = 0; // MFU percentage points lost (100 = the whole peak)
};

struct MfuWaterfall {
    double peakPoints = 100;
    std::vector<MfuLoss> losses; // compute first, then the step's other parts; zero-time parts are left out
    double achievedPoints = 0; // 100 x MFU
};

MfuWaterfall mfuWaterfall(const StepPrediction& prediction);

} // namespace mfu
