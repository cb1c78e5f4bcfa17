#pragma once
// Attention efficiency by shape, from a trace (docs/cost-model.md, "Calibration from a trace"): an attention kernel's
// efficiency depends on the sequence it runs over and its head size, so a calibration measured at one sequence cannot
// be carried to another on trust. The trace's fused attention calls (SDPA's flash, memory-efficient and cuDNN kernels,
// the flash_attn package) are kept per shape and pass with the time they took; a scenario's own attention calls are
// looked up among them by sequence and head size (shape_match.h), carried by the model's kernel efficiency
// (attention_kernels.h).
#include <optional>
#include <string>
#include <vector>

#include "core/calibration/shape_match.h"
#include "core/scenario/scenario.h"

namespace mfu {

namespace trace {
struct RunAnalysis;
}

// One attention shape of the traced steps, per step and rank: query [batch, heads, seqQ, headDimQk] against seqK keys,
// values of headDimV, one pass (forward or backward), causal or not.
struct AttentionShapeBin {
    double batch = 0, heads = 0, seqQ = 0, seqK = 0, headDimQk = 0, headDimV = 0;
    bool causal = true;
    bool backward = false;
    double callsPerStep = 0;
    double secondsPerStep = 0;
    double flopsPerStep = 0; // the trace's count: a backward pass 2.5 times its forward (core/trace/op_flops.h)
    double flopsPerSecond() const { return secondsPerStep > 0 ? flopsPerStep / secondsPerStep : 0.0; }
};

inline constexpr size_t kMostAttentionShapes = 256;

// The fastest an attention call can run on this GPU: its dense FP8 peak (FP8 attention), else the MFU peak's.
double attentionPeakOf(const HardwareSpec& hardware);

// The fused attention calls of a run's analysed steps (averaged over its ranks), longest first; empty when the trace
// recorded no shapes (or ran attention unfused, or packed: variable-length calls have no recorded lengths). Bins under
// 0.1% of their time are noise and left out; at most kMostAttentionShapes are kept.
std::vector<AttentionShapeBin> attentionShapeBinsOf(const trace::RunAnalysis& run);

// How a scenario's attention calls (one forward and one backward per layer and micro-batch: micro-batch x heads / TP,
// over the sequence / CP) stand against a trace's bins of the traced run `traced`, by sequence, head size and grid
// (128-query tiles, alike from 1,024 on) and matched by pass and mask. nullopt when the scenario's attention is not
// written out here (layers other than full softmax attention, packed documents, an unfused kernel) or the trace has
// no bins.
std::optional<ShapeMatch> matchAttentionShapes(
    const Scenario& s, const Scenario& traced, const std::vector<AttentionShapeBin>& bins);

} // namespace mfu
