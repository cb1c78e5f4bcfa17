#pragma once
// Activation checkpointing's extra forward work per micro-batch (docs/cost-model.md, "Recompute"): full checkpointing
// repeats each layer's forward (matmuls, attention, a third of the elementwise work, the vision encoder's forward);
// selective (TorchTitan's op-level SAC) repeats the matmuls it did not keep and the elementwise work; MLA rebuilds its
// up-projections before backward unless full checkpointing already repeats them.
#include "core/costmodel/attention_terms.h"
#include "core/costmodel/compute_terms.h"
#include "core/costmodel/memory_bound_terms.h"

namespace mfu {

double recomputeTime(
    const StepContext& x, const MatmulTime& matmul, const AttentionTime& attention, const MemoryBoundTime& memoryBound);

} // namespace mfu
