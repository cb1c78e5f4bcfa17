#pragma once
// The vision encoder (ViT) of a vision-language model, and its FLOPs per vision token the language model receives.
//
// A Qwen2-VL-style encoder cuts an image into P x P patches (T frames deep for video: temporal_patch_size), embeds
// each patch with a linear map (a Conv3d of kernel T x P x P), runs `depth` transformer blocks over the patches of
// one image (full attention; Qwen2.5-VL runs windowed attention on all but its full-attention blocks), and a merger
// MLP folds merge x merge neighbouring patches into one token of the language model's width. So every vision token
// the language model sees costs merge^2 patches of encoder work.
//
// MoonViT (Kimi K2.5) has the same shape with a 2-D patch embedding (T = 1), a final LayerNorm, one merger.
//
// Forward FLOP per patch (2 per multiply-add, as everywhere in core/model/flops.h):
//   patch embedding   2 x C x T x P^2 x h
//   per block         2 x (4 h^2) for Q/K/V and the output projection + 2 x (2 or 3) x h x I for the MLP
//                     (two matrices, GELU, in Qwen3-VL; three, gated SiLU, in Qwen2.5-VL) + 4 x span x h for the
//                     attention core (scores and values over the span of patches a patch attends to: the image's
//                     patches, or the window's)
//   merger            per language-model token: 2 x (merge^2 h)^2 + 2 x merge^2 h x out, once per merger (Qwen3-VL's
//                     DeepStack adds one merger per injected layer)
// Training = 3 x forward when the encoder is trained; a frozen encoder runs its forward only (no weight gradients,
// and nothing upstream of it needs an input gradient), 1 x forward.
// Sources: Dosovitskiy et al., "An Image is Worth 16x16 Words" (ViT); Wang et al., "Qwen2-VL" and Bai et al.,
// "Qwen2.5-VL Technical Report" (patch merging, window attention); the transformers implementations
// (modeling_qwen2_5_vl.py, modeling_qwen3_vl.py) for the layer shapes.
#include <cstdint>
#include <vector>

namespace mfu {

struct VisionEncoderSpec {
    int64_t depth = 0; // transformer blocks
    int64_t hidden = 0; // width h
    int64_t mlpDim = 0; // MLP intermediate width I
    bool gatedMlp = false; // three matrices (gate, up, down) instead of two
    int64_t heads = 0;
    int64_t patchSize = 0; // P, pixels
    int64_t temporalPatch = 1; // T, frames per patch
    int64_t inChannels = 3; // C
    int64_t spatialMerge = 1; // merge: merge x merge patches make one language-model token
    int64_t outHidden = 0; // the language model's width
    int mergers = 1; // the merger plus one per DeepStack layer
    // Windowed attention (Qwen2.5-VL): every block but these attends within a window of windowPatches patches.
    int64_t windowPatches = 0; // 0: every block attends over the whole image
    std::vector<int64_t> fullAttentionBlocks;
    bool biases = true; // linear layers carry biases (counted in parameters, not FLOPs)
    bool patchEmbedBias = true;
    bool layerNorm = true; // LayerNorm (weight and bias) or RMSNorm (weight only)
    bool deepStackPostShuffleNorm = true; // DeepStack mergers normalise the merged width (Qwen3-VL)
    int64_t positionEmbeddings = 0; // learned position-embedding rows (Qwen3-VL, MoonViT), 0 for rotary only
    bool finalNorm = false; // a norm after the last block (MoonViT's final LayerNorm)
};

// Parameters of the encoder (patch embedding, blocks with their norms, a final norm, mergers; position-embedding
// tables included).
int64_t visionParameters(const VisionEncoderSpec& v);

// Forward FLOP of the encoder per patch, with the attention span of an image of patchesPerImage patches.
double visionForwardFlopsPerPatch(const VisionEncoderSpec& v, double patchesPerImage);
// Training FLOP per vision token the language model receives (merge^2 patches, plus the mergers): 3 x forward when
// trained, 1 x forward when frozen. patchesPerImage = the language-model tokens of one image x merge^2.
double visionTrainingFlopsPerToken(const VisionEncoderSpec& v, double llmTokensPerImage, bool trained = true);

// The vision tokens of a vision-language run: how many of a sequence's tokens are vision tokens (they also pass
// through the language model, and are counted there like text), how many make one image (the span of the encoder's
// attention), and whether the encoder is trained.
struct VisionWorkload {
    int64_t tokensPerSequence = 0; // language-model vision tokens per sequence; 0: a text-only run
    int64_t tokensPerImage = 0; // language-model tokens per image (or video clip); 0: one image per sequence
    bool encoderTrained = true;
};

// The encoder's training FLOP spread over the sequence's tokens: tokensPerSequence x visionTrainingFlopsPerToken /
// seqLen, so that it adds to the language model's FLOP/token. Throws InputError when the vision tokens exceed the
// sequence or an image exceeds the sequence's vision tokens.
double visionFlopsPerSequenceToken(const VisionEncoderSpec& v, const VisionWorkload& w, int64_t seqLen);
void validateVisionWorkload(const VisionWorkload& w, int64_t seqLen);
// Its two halves, each the check of one figure (for a message naming the flag that gave it): the vision tokens per
// sequence against the sequence, and the tokens per image against those per sequence.
void validateVisionTokensPerSequence(const VisionWorkload& w, int64_t seqLen);
void validateVisionTokensPerImage(const VisionWorkload& w);

} // namespace mfu
