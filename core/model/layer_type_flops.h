#pragma once
// Forward FLOP per token by layer type: the rows "48 linear-attention layers", "16 full-attention layers",
// "64 MoE MLPs", "LM head" that the Calculator's component table and `calc --json` (forward_flops_by_layer_type)
// show. Token mixers are grouped by kind and attention shape, channel mixers by kind and MLP width; the rows add up
// to forwardComponents(...).total() (the causal column to the causal forward).
#include <cstdint>
#include <string>
#include <vector>

#include "core/model/flops.h"
#include "core/model/packing.h"

namespace mfu {

enum class LayerPart { TokenMixer, ChannelMixer, LmHead };

struct LayerTypeFlops {
    LayerPart part = LayerPart::TokenMixer;
    std::string kind; // tokenMixerKey / channelMixerKey, or "lm_head"
    int layers = 0; // layers of this type (0 for the LM head)
    std::string label; // "16 full-attention layers", "48 dense MLPs of 28,672", "LM head"
    double forward = 0; // forward FLOP per token, attention over the full S x S square
    double forwardCausal = 0; // the same with the attention core under the causal mask
};

// Empty for a bare model. Throws InputError for a sequence length <= 0 or a packing that does not fit it.
std::vector<LayerTypeFlops> forwardFlopsByLayerType(
    const ModelSpec& model, int64_t seqLen, const SequencePacking& packing = {});

std::string_view layerPartKey(LayerPart part); // "token_mixer", "channel_mixer", "lm_head"

} // namespace mfu
