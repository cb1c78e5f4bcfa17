#include "core/model/model_spec.h"

#include "core/errors.h"

namespace mfu {

namespace {
void require(bool ok, const ModelSpec& spec, const std::string& what)
{
    if (!ok)
        throw InputError("model '" + (spec.id.empty() ? spec.name : spec.id) + "': " + what);
}
} // namespace

void validateModelSpec(const ModelSpec& spec)
{
    if (spec.isBare()) {
        require(*spec.bareParams > 0, spec, "params must be greater than zero");
        return;
    }
    require(spec.layers > 0, spec, "layers must be greater than zero");
    require(spec.hidden > 0, spec, "hidden size must be greater than zero");
    require(spec.heads > 0, spec, "attention heads must be greater than zero");
    require(spec.vocab > 0, spec, "vocabulary size must be greater than zero");
    require(spec.ffnDim > 0 || (spec.isMoe() && spec.moe.denseLayers == 0), spec,
        "FFN intermediate size must be greater than zero");
    if (!spec.mla.enabled) {
        require(spec.headDim > 0, spec, "head dimension must be greater than zero");
        require(spec.kvHeads > 0 && spec.kvHeads <= spec.heads, spec,
            "key/value heads must be between 1 and the number of attention heads");
        require(spec.heads % spec.kvHeads == 0, spec, "attention heads must be a multiple of key/value heads");
    } else {
        require(spec.mla.kvLoraRank > 0, spec, "MLA kv_lora_rank must be greater than zero");
        require(spec.mla.qkNopeHeadDim + spec.mla.qkRopeHeadDim > 0, spec, "MLA query/key head dimension is zero");
        require(spec.mla.vHeadDim > 0, spec, "MLA value head dimension must be greater than zero");
    }
    if (spec.isMoe()) {
        require(spec.moe.expertsPerToken > 0 && spec.moe.expertsPerToken <= spec.moe.experts, spec,
            "experts per token must be between 1 and the number of experts");
        require(spec.moe.expertFfnDim > 0, spec, "expert FFN size must be greater than zero");
        require(spec.moe.denseLayers >= 0 && spec.moe.denseLayers <= spec.layers, spec,
            "dense layers must be between 0 and the number of layers");
        require(spec.moe.sharedExperts >= 0, spec, "shared experts cannot be negative");
    }
    require(spec.learnedPositions >= 0, spec, "learned positions cannot be negative");
}

ModelSpec bareModel(int64_t params, std::string name)
{
    ModelSpec spec;
    spec.bareParams = params;
    spec.id = "params:" + std::to_string(params);
    spec.name = name.empty() ? "Bare model, " + std::to_string(params) + " parameters" : std::move(name);
    spec.source = "parameter count given by the user (only the 6N formula applies)";
    validateModelSpec(spec);
    return spec;
}

} // namespace mfu
