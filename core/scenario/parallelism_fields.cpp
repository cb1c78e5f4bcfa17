#include "core/scenario/parallelism_fields.h"

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/scenario/parallelism_keys.h"
#include "core/scenario/pipeline_layout.h"

namespace mfu {

namespace {
constexpr int64_t kMaxDegree = 1'000'000;

template <typename Enum>
Enum readEnum(const FieldReader& r, std::string_view key, std::optional<Enum> (*fromKey)(std::string_view),
    Enum fallback, const char* choices)
{
    const auto text = r.optionalString(key);
    if (!text)
        return fallback;
    if (const auto v = fromKey(*text))
        return *v;
    throw FieldError(r.keyPath(key), "'" + *text + "' is not one of " + choices);
}
} // namespace

void readExpertAndPipelineFields(const FieldReader& r, Parallelism& p)
{
    p.expertTp = static_cast<int>(r.optionalInteger("expert_tp", 0, kMaxDegree).value_or(0));
    p.expertDispatcher = readEnum(r, "expert_dispatcher", expertDispatcherFromKey, ExpertDispatcher::AllToAll,
        "alltoall, allgather, deepep, hybridep");
    // Files before the overlap kinds wrote a boolean: true was DualPipe-like overlap.
    if (r.has("expert_overlap") && r.object().at("expert_overlap").is_boolean())
        p.expertOverlap = r.optionalBool("expert_overlap", false) ? ExpertOverlap::DualPipe : ExpertOverlap::None;
    else
        p.expertOverlap = readEnum(
            r, "expert_overlap", expertOverlapFromKey, ExpertOverlap::None, "none, 1f1b, dualpipe (or true, false)");
    p.expertBalance = readEnum(r, "expert_balance", expertBalanceFromKey, ExpertBalance::Dropless, "dropless, forced");
    p.expertNodeLimit = static_cast<int>(r.optionalInteger("expert_node_limit", 0, kMaxDegree).value_or(0));
    p.firstStageLayers = static_cast<int>(r.optionalInteger("first_stage_layers", 0, kMaxDegree).value_or(0));
    p.lastStageLayers = static_cast<int>(r.optionalInteger("last_stage_layers", 0, kMaxDegree).value_or(0));
    p.embeddingStage = r.optionalBool("embedding_stage", false);
    p.lossStage = r.optionalBool("loss_stage", false);
    if (const auto layout = r.optionalString("pipeline_layout")) {
        try {
            p.pipelineLayout = parsePipelineLayout(*layout);
        } catch (const InputError& e) {
            throw FieldError(r.keyPath("pipeline_layout"), e.what());
        }
    }
}

void writeExpertAndPipelineFields(const Parallelism& p, nlohmann::json& out)
{
    if (p.expertTp > 0)
        out["expert_tp"] = p.expertTp;
    if (p.expertDispatcher != ExpertDispatcher::AllToAll)
        out["expert_dispatcher"] = expertDispatcherKey(p.expertDispatcher);
    // A boolean for the two values builds before the overlap kinds read.
    if (p.expertOverlap == ExpertOverlap::OneFOneB)
        out["expert_overlap"] = expertOverlapKey(p.expertOverlap);
    else
        out["expert_overlap"] = p.expertOverlap == ExpertOverlap::DualPipe;
    if (p.expertBalance != ExpertBalance::Dropless)
        out["expert_balance"] = expertBalanceKey(p.expertBalance);
    if (p.expertNodeLimit > 0)
        out["expert_node_limit"] = p.expertNodeLimit;
    if (p.firstStageLayers > 0)
        out["first_stage_layers"] = p.firstStageLayers;
    if (p.lastStageLayers > 0)
        out["last_stage_layers"] = p.lastStageLayers;
    if (p.embeddingStage)
        out["embedding_stage"] = true;
    if (p.lossStage)
        out["loss_stage"] = true;
    if (!p.pipelineLayout.empty())
        out["pipeline_layout"] = pipelineLayoutText(p.pipelineLayout);
}

} // namespace mfu
