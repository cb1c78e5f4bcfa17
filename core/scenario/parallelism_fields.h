#pragma once
// The expert-parallel and pipeline-layout fields of a Parallelism as JSON keys, shared by scenario files (the
// "parallelism" object) and validation tables (each run), so both read and write them alike (docs/json-keys.md):
//   expert_tp, expert_dispatcher, expert_overlap (true | false | none | 1f1b | dualpipe), expert_balance,
//   expert_node_limit, first_stage_layers, last_stage_layers, embedding_stage, loss_stage, pipeline_layout
//   (Megatron's layout string).
#include <nlohmann/json_fwd.hpp>

#include "core/io/field_reader.h"
#include "core/scenario/scenario.h"

namespace mfu {

// Reads the keys above that are present into `p`; throws FieldError naming the key.
void readExpertAndPipelineFields(const FieldReader& r, Parallelism& p);
// Writes those that differ from the defaults (so a file without them opens in builds that predate them).
void writeExpertAndPipelineFields(const Parallelism& p, nlohmann::json& out);

} // namespace mfu
