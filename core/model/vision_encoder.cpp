#include "core/model/vision_encoder.h"

#include <algorithm>
#include <string>

#include "core/errors.h"

namespace mfu {

namespace {
double mergedWidth(const VisionEncoderSpec& v)
{
    return double(v.spatialMerge * v.spatialMerge) * double(v.hidden);
}
} // namespace

int64_t visionParameters(const VisionEncoderSpec& v)
{
    const int64_t h = v.hidden;
    const int64_t b = v.biases ? 1 : 0;
    const int64_t norm = v.layerNorm ? 2 : 1; // parameters per normalised channel
    const int64_t patchEmbed
        = v.inChannels * v.temporalPatch * v.patchSize * v.patchSize * h + (v.patchEmbedBias ? h : 0);
    const int64_t attention = h * 3 * h + b * 3 * h + h * h + b * h;
    const int64_t mlp = v.gatedMlp ? 2 * (h * v.mlpDim + b * v.mlpDim) + v.mlpDim * h + b * h
                                   : h * v.mlpDim + b * v.mlpDim + v.mlpDim * h + b * h;
    const int64_t block = attention + mlp + 2 * norm * h; // two norms per block
    const int64_t m = v.spatialMerge * v.spatialMerge * h;
    const int64_t mergerMlp = m * m + b * m + m * v.outHidden + b * v.outHidden; // fc1, fc2
    // The merger normalises each patch (width h); DeepStack's mergers normalise the merged width.
    const int64_t mergers
        = mergerMlp + norm * h + int64_t(v.mergers - 1) * (mergerMlp + norm * (v.deepStackPostShuffleNorm ? m : h));
    return patchEmbed + v.positionEmbeddings * h + v.depth * block + (v.finalNorm ? norm * h : 0) + mergers;
}

double visionForwardFlopsPerPatch(const VisionEncoderSpec& v, double patchesPerImage)
{
    const double h = double(v.hidden);
    const double patchEmbed = 2.0 * double(v.inChannels * v.temporalPatch * v.patchSize * v.patchSize) * h;
    const double linear = 2.0 * 4.0 * h * h + 2.0 * (v.gatedMlp ? 3.0 : 2.0) * h * double(v.mlpDim);
    double attention = 0;
    for (int64_t block = 0; block < v.depth; ++block) {
        const bool full = v.windowPatches <= 0
            || std::find(v.fullAttentionBlocks.begin(), v.fullAttentionBlocks.end(), block)
                != v.fullAttentionBlocks.end();
        const double span = full ? patchesPerImage : std::min(patchesPerImage, double(v.windowPatches));
        attention += 4.0 * span * h;
    }
    return patchEmbed + double(v.depth) * linear + attention;
}

double visionTrainingFlopsPerToken(const VisionEncoderSpec& v, double llmTokensPerImage, bool trained)
{
    const double merge2 = double(v.spatialMerge * v.spatialMerge);
    const double m = mergedWidth(v);
    const double mergerForward = double(v.mergers) * 2.0 * (m * m + m * double(v.outHidden));
    const double forward = merge2 * visionForwardFlopsPerPatch(v, llmTokensPerImage * merge2) + mergerForward;
    return (trained ? 3.0 : 1.0) * forward;
}

void validateVisionTokensPerSequence(const VisionWorkload& w, int64_t seqLen)
{
    if (w.tokensPerSequence < 0)
        throw InputError("vision tokens must be zero or more");
    if (w.tokensPerSequence > seqLen)
        throw InputError("vision tokens per sequence (" + std::to_string(w.tokensPerSequence)
            + ") exceed the sequence length " + std::to_string(seqLen));
}

void validateVisionTokensPerImage(const VisionWorkload& w)
{
    if (w.tokensPerImage < 0)
        throw InputError("vision tokens must be zero or more");
    if (w.tokensPerImage > w.tokensPerSequence && w.tokensPerSequence > 0)
        throw InputError("vision tokens per image (" + std::to_string(w.tokensPerImage)
            + ") exceed the vision tokens per sequence (" + std::to_string(w.tokensPerSequence) + ")");
}

void validateVisionWorkload(const VisionWorkload& w, int64_t seqLen)
{
    validateVisionTokensPerSequence(w, seqLen);
    validateVisionTokensPerImage(w);
}

double visionFlopsPerSequenceToken(const VisionEncoderSpec& v, const VisionWorkload& w, int64_t seqLen)
{
    validateVisionWorkload(w, seqLen);
    if (w.tokensPerSequence == 0 || seqLen <= 0)
        return 0.0;
    const double perImage = double(w.tokensPerImage > 0 ? w.tokensPerImage : w.tokensPerSequence);
    return double(w.tokensPerSequence) * visionTrainingFlopsPerToken(v, perImage, w.encoderTrained) / double(seqLen);
}

} // namespace mfu
