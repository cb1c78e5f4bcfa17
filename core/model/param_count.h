#pragma once
// Parameter counting from a ModelSpec. Conventions (TorchTitan's, which the PaLM formula expects):
// - embedding = input token embedding (+ learned position embeddings). An untied LM head is NOT embedding: it is
//   a real matmul and stays in non_embedding. A tied LM head is the embedding matrix, counted once.
// - active = parameters a token touches: shared weights plus expertsPerToken routed experts (== total when dense).
#include <cstdint>

#include "core/model/model_spec.h"

namespace mfu {

struct ParameterCounts {
    int64_t total = 0;
    int64_t embedding = 0;
    int64_t nonEmbedding = 0; // total - embedding
    int64_t active = 0; // MoE: per-token active parameters; dense: == total
    int64_t activeNonEmbedding = 0; // active - embedding
    // Parts, for the per-component view (totals over all layers).
    int64_t attention = 0; // every layer's token mixer: attention (+ sparse indexer), linear attention or Mamba
    int64_t ffn = 0; // dense FFN + all experts + shared experts + routers
    int64_t norms = 0; // norms, and hyper-connection mixing weights (hyperConnectionParams)
    int64_t lmHead = 0; // 0 when tied
};

// Manifold-constrained hyper-connections' weights (ModelSpec::hyperConnections); 0 for a plain residual.
int64_t hyperConnectionParams(const ModelSpec& spec);

// For a bare model, total = active = nonEmbedding = the given count and embedding = 0.
ParameterCounts countParameters(const ModelSpec& spec);

} // namespace mfu
