#pragma once
// Architectures of published models, written out in the tests so the worked examples do not depend on the preset
// files (which have their own tests). Figures from each model's config.json.
#include "core/model/model_spec.h"

namespace mfu::test {

inline ModelSpec llama31_8b()
{
    ModelSpec m;
    m.id = "llama-3.1-8b";
    m.layers = 32;
    m.hidden = 4096;
    m.heads = 32;
    m.kvHeads = 8;
    m.headDim = 128;
    m.ffnDim = 14336;
    m.vocab = 128256;
    return m;
}

inline ModelSpec llama31_70b()
{
    ModelSpec m = llama31_8b();
    m.id = "llama-3.1-70b";
    m.layers = 80;
    m.hidden = 8192;
    m.heads = 64;
    m.ffnDim = 28672;
    return m;
}

inline ModelSpec llama31_405b()
{
    ModelSpec m = llama31_8b();
    m.id = "llama-3.1-405b";
    m.layers = 126;
    m.hidden = 16384;
    m.heads = 128;
    m.ffnDim = 53248;
    return m;
}

inline ModelSpec mixtral_8x7b()
{
    ModelSpec m = llama31_8b();
    m.id = "mixtral-8x7b";
    m.vocab = 32000;
    m.moe.experts = 8;
    m.moe.expertsPerToken = 2;
    m.moe.expertFfnDim = 14336;
    return m;
}

inline ModelSpec gpt2_small()
{
    ModelSpec m;
    m.id = "gpt2";
    m.layers = 12;
    m.hidden = 768;
    m.heads = 12;
    m.kvHeads = 12;
    m.headDim = 64;
    m.ffnDim = 3072;
    m.activation = FfnActivation::GELU;
    m.vocab = 50257;
    m.tiedEmbeddings = true;
    m.linearBias = true;
    m.norm = NormKind::LayerNorm;
    m.learnedPositions = 1024;
    return m;
}

// The B200 scaling report's "LLaMA 1.36B (18L-18H-2304D-RoPE-RMS-SwiGLU)": the stated 1,294,159,104 parameters pin the
// FFN at 6144 (8/3 x 2304) and an untied 32,000-token vocabulary.
inline ModelSpec llama_1_36b()
{
    ModelSpec m;
    m.id = "llama-1.36b";
    m.layers = 18;
    m.hidden = 2304;
    m.heads = 18;
    m.kvHeads = 18;
    m.headDim = 128;
    m.ffnDim = 6144;
    m.vocab = 32000;
    return m;
}

} // namespace mfu::test
