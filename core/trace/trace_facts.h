#pragma once
// What a trace establishes about the run beyond its GPU and world size, computed once here for the facts banner
// (core/facts/file_facts.h), the Trace panel's prediction, `trace --json` and the rank summaries:
//
//  - Tokens per step. Every micro-step's forward pass looks its token ids up in the embedding table once, so the
//    ids' shape ([micro-batch, sequence] of int64) is the tokens of a micro-step, and the lookups in a step are its
//    micro-steps (gradient accumulation). The lookup is `aten::embedding` in an eager run; torch.compile fuses it
//    into an Inductor kernel named after it (`triton_per_fused__fused_rms_norm__to_copy_embedding_0`), recorded as
//    an operator with its buffers' shapes, the ids among them. Lookups inside a backward region (an operator named
//    ...Backward on the same thread: activation checkpointing recomputing the forward) are not micro-steps, nor
//    those of a smaller table or fewer ids in the same step (position and token-type embeddings).
//  - Eager or compiled. torch.compile's Inductor generates the elementwise, normalisation and loss kernels as Triton
//    kernels named triton_poi_/triton_red_/triton_per_/triton_for_... (op_flops.h's isInductorKernel); an eager run
//    launches PyTorch's own (at::native::vectorized_elementwise_kernel, ...). A run is compiled when Inductor's
//    kernels ran at least half of that time (an eager optimizer or gradient clipping beside a compiled model stays
//    compiled).
//  - The attention kernel: core/trace/attention_implementation.h.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/trace/weight_casts.h"

namespace mfu::trace {

struct Timeline;
struct StepPlan;
struct RankAnalysis;
struct RunAnalysis;

// aten::embedding, or an Inductor kernel that fuses a forward embedding (its name holds "embedding" and no
// "backward": embedding_dense_backward is the gradient).
bool isEmbeddingLookup(std::string_view opName);

struct RecordedTokens {
    double perStep = 0; // the median over the analysed steps that looked tokens up
    int64_t perMicroStep = 0; // the token ids of one lookup
    int64_t microSteps = 0; // lookups in that step: gradient accumulation
    int64_t seqLen = 0; // the ids' last dim
    int64_t microBatch = 0; // the ids' other dims: sequences per micro-step
    int stepsCounted = 0; // analysed steps with a lookup
    bool varies = false; // the steps looked up different numbers of tokens
};

// From the lookups of the steps the CPU's ProfilerStep annotations delimit (a lookup's time is the host's, so only
// host-side steps hold it); nullopt when the trace recorded no lookup with shapes in them (record_shapes off, a
// pipeline stage without the embedding, CUDA graphs that replay the forward without operators).
std::optional<RecordedTokens> recordedTokens(const Timeline& timeline, const StepPlan& plan);

struct ExecutionMode {
    bool compiled = false;
    // Of the elementwise, normalisation and softmax/loss kernel time of the analysed steps, Inductor's share.
    double inductorShare = 0;
    int64_t inductorKernelCalls = 0;
};
inline constexpr double kCompiledInductorShare = 0.5;

// From the ranks' kernels (pooled); nullopt when no elementwise, normalisation or loss kernel ran.
std::optional<ExecutionMode> executionModeOf(const std::vector<RankAnalysis>& ranks);
std::string executionModeLabel(bool compiled); // "compiled (torch.compile)", "eager"

struct TraceFacts {
    std::optional<RecordedTokens> tokens; // of the first rank that recorded them (each rank its own)
    // The whole step's tokens: a single process's own (one file, no world size above 1). A rank of a larger job
    // embeds its data-parallel group's share, and the trace does not record how many groups there are.
    std::optional<double> tokensPerStep;
    std::optional<ExecutionMode> execution;
    // Autocast over FP32 weights (ranUnderAutocast), from the first rank that can tell; nullopt when none can.
    std::optional<bool> autocast;
    std::optional<Fp32MatrixCasts> casts; // what it was read from
};
TraceFacts traceFacts(const RunAnalysis& run);

// Whether the rank cast FP32 weights to 16 bits every step (weight_casts.h): true when its CPU-annotated steps show
// it; false when they do not and its recorded shapes reach its matrix kernels (no CUDA graph replaying casts the
// trace cannot see); nullopt when it cannot tell (no shapes, no CPU steps, a summary written before).
std::optional<bool> ranUnderAutocast(const RankAnalysis& r);

// The rank's `tokens_per_step_recorded`, `tokens_per_micro_step_recorded`, `micro_steps_recorded`,
// `seq_len_recorded`, `micro_batch_recorded` (null when none), `compiled` and `compiled_share` (null when no
// elementwise kernel ran), `fp32_matrix_casts_per_step` and `autocast` (null when it recorded no shapes in
// CPU-annotated steps) into its `trace --json` object.
void addTraceFactsJson(nlohmann::json& rank, const RankAnalysis& r);
// The run's `tokens_per_step_recorded` (TraceFacts::tokensPerStep or null), `compiled` and `autocast` (or null).
void addRunTraceFactsJson(nlohmann::json& run, const RunAnalysis& analysis);

// A rank summary's `recorded_tokens` object (or null); read back by rank_summary.cpp.
nlohmann::json recordedTokensToJson(const std::optional<RecordedTokens>& tokens);
// A rank summary's `fp32_matrix_casts` object (or null).
nlohmann::json fp32MatrixCastsToJson(const std::optional<Fp32MatrixCasts>& casts);

} // namespace mfu::trace
