#pragma once
// Pipeline layouts as frameworks write them, read into Parallelism::pipelineLayout (pp x virtual stages chunks):
//
// - Megatron-Core's pipeline_model_parallel_layout: 'E' the embedding, 't' a transformer layer, 'm' a
//   multi-token-prediction layer, 'L' the LM head and loss, '|' ends a virtual stage, 'X*n' repeats an item or a
//   parenthesised group n times; spaces and commas are ignored. "Et*3|(tt|)*29m|L" is DeepSeek-V3's 61 layers and
//   one MTP layer over 32 virtual stages: E + 3 layers, 29 stages of 2, the MTP layer, and the loss alone.
// - torchtitan's per-stage splits (pipeline_parallel_layers_per_stage, or split points): layer counts per virtual
//   stage, the embedding on the first, the LM head, loss and MTP layers on the last.
//
// And how a layout (or Megatron's first/last-stage layer counts and its embedding/loss-in-split switches) loads each
// pipeline rank: virtual stage c runs on rank c mod pp.
#include <string>
#include <string_view>
#include <vector>

#include "core/scenario/scenario.h"

namespace mfu {

// Throws InputError naming the character where the text stops making sense.
std::vector<PipelineChunk> parsePipelineLayout(std::string_view text);
// The layout in Megatron's syntax, runs of equal stages written as (..|)*n: parsePipelineLayout gives it back.
std::string pipelineLayoutText(const std::vector<PipelineChunk>& chunks);
// torchtitan's per-stage layer counts: the embedding on the first stage, LM head, loss and the MTP layers on the last.
std::vector<PipelineChunk> pipelineLayoutFromStageLayers(const std::vector<int>& layersPerStage, int mtpLayers);
// "4,8,8,4" -> {4, 8, 8, 4}; throws InputError for anything but positive whole numbers separated by commas.
std::vector<int> parseStageLayers(std::string_view text);

// Whether the scenario places its stages unevenly: a layout, first/last-stage counts, or the embedding or loss
// counted in the split.
bool hasUnevenPipeline(const Parallelism& p);

// Why the layout cannot run this model (a static sentence), or nullptr. Checks the chunk count against pp x virtual
// stages, the transformer and MTP layers against the model's, where the embedding and loss sit, and that the
// first/last counts leave layers for the other ranks.
const char* pipelineLayoutProblem(const Parallelism& p, int modelLayers, int mtpLayers);
// The same, with the figures that break it written to `figures` (when not null): "they add up to 62 of 61".
const char* pipelineLayoutProblem(const Parallelism& p, int modelLayers, int mtpLayers, std::string* figures);

// What one pipeline rank holds, over all its virtual stages.
struct StageLoad {
    int layers = 0; // transformer layers
    int mtpLayers = 0;
    bool embedding = false;
    bool loss = false; // the LM head and the loss
};

// Rank `rank` of a valid uneven pipeline (hasUnevenPipeline and no pipelineLayoutProblem). Allocates nothing.
StageLoad stageLoad(const Parallelism& p, int modelLayers, int mtpLayers, int rank);

} // namespace mfu
