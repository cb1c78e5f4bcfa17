// Vision encoders of vision-language models: parameters and training FLOP per vision token, derived by hand for a
// tiny encoder and for Qwen2.5-VL-7B's and Qwen3-VL-8B's; their import from config.json; the second, labelled MFU.
#include <QtTest>

#include <fstream>
#include <optional>
#include <sstream>

#include "core/costmodel/cost_model.h"
#include "core/errors.h"
#include "core/model/param_count.h"
#include "core/model/vision_encoder.h"
#include "core/presets/hf_config.h"
#include "core/presets/hf_vision.h"
#include "core/scenario/scenario_facts.h"

using namespace mfu;

namespace {
// A real config from ../shared/models, or nullopt when the folder is absent.
std::optional<std::string> sharedConfig(const std::string& name)
{
    std::ifstream in(MFU_SOURCE_DIR "/../shared/models/" + name + ".config.json");
    if (!in)
        return std::nullopt;
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// Qwen2.5-VL-7B-Instruct as its config.json gives it (older, flat form: the language model's keys at the top).
const char* kQwen25Vl7b = R"({"architectures": ["Qwen2_5_VLForConditionalGeneration"], "model_type": "qwen2_5_vl",
  "hidden_size": 3584, "intermediate_size": 18944, "num_hidden_layers": 28, "num_attention_heads": 28,
  "num_key_value_heads": 4, "vocab_size": 152064, "tie_word_embeddings": false, "hidden_act": "silu",
  "rms_norm_eps": 1e-06, "max_position_embeddings": 128000, "use_sliding_window": false, "sliding_window": 32768,
  "vision_config": {"depth": 32, "hidden_act": "silu", "hidden_size": 1280, "intermediate_size": 3420,
    "num_heads": 16, "in_chans": 3, "out_hidden_size": 3584, "patch_size": 14, "spatial_merge_size": 2,
    "spatial_patch_size": 14, "window_size": 112, "fullatt_block_indexes": [7, 15, 23, 31], "tokens_per_second": 2,
    "temporal_patch_size": 2}})";
} // namespace

class TestVisionEncoder : public QObject {
    Q_OBJECT
private slots:
    void tinyEncoderByHand()
    {
        // h = 8, I = 16 (GELU, two matrices), depth 2, patch 2, T 1, C 3, merge 2, out 12, one merger, biases.
        VisionEncoderSpec v;
        v.depth = 2;
        v.hidden = 8;
        v.mlpDim = 16;
        v.heads = 2;
        v.patchSize = 2;
        v.temporalPatch = 1;
        v.spatialMerge = 2;
        v.outHidden = 12;
        // Parameters: patch 3x1x2x2x8 + 8 = 104; block: qkv 8x24 + 24 = 216, proj 64 + 8 = 72, fc1 128 + 16 = 144,
        // fc2 128 + 8 = 136, norms 2 x 16 = 32 -> 600, x 2 = 1200; merger (m = 32): 1024 + 32 + 384 + 12 + norm 16
        // = 1468. Total 2772.
        QCOMPARE(visionParameters(v), int64_t(2772));
        // Forward per patch, an image of 16 patches: patch 2 x 12 x 8 = 192; per block linear 2 x 4 x 64 + 2 x 2 x 8
        // x 16 = 512 + 512 = 1024, attention 4 x 16 x 8 = 512 -> 1536 x 2 = 3072. Total 3264.
        QCOMPARE(visionForwardFlopsPerPatch(v, 16), 3264.0);
        // Per vision token (4 patches of an image of 4 tokens = 16 patches) + merger 2 x (1024 + 384) = 2816:
        // forward 4 x 3264 + 2816 = 15,872; trained 3x = 47,616; frozen 1x.
        QCOMPARE(visionTrainingFlopsPerToken(v, 4), 47'616.0);
        QCOMPARE(visionTrainingFlopsPerToken(v, 4, false), 15'872.0);
        // Spread over a sequence of 64 tokens with 8 vision tokens in two images of 4: 8 x 47,616 / 64.
        QCOMPARE(visionFlopsPerSequenceToken(v, { 8, 4, true }, 64), 8 * 47'616.0 / 64);
        QVERIFY_THROWS_EXCEPTION(InputError, visionFlopsPerSequenceToken(v, { 128, 0, true }, 64));
        QVERIFY_THROWS_EXCEPTION(InputError, visionFlopsPerSequenceToken(v, { 8, 16, true }, 64));
    }

    void qwen25VlImportsLanguageModelExactlyAndItsEncoder()
    {
        const ModelSpec m = modelFromHfConfigText(kQwen25Vl7b, "Qwen2.5-VL-7B-Instruct/config.json");
        // The language model is Qwen2.5-7B's: 7,615,616,512 parameters.
        QCOMPARE(countParameters(m).total, int64_t(7'615'616'512));
        QVERIFY(m.qkvBias);
        QVERIFY(m.vision.has_value());
        const VisionEncoderSpec& v = *m.vision;
        QVERIFY(v.gatedMlp);
        QCOMPARE(v.windowPatches, int64_t(64)); // 112 px windows of 14 px patches
        QCOMPARE(v.fullAttentionBlocks.size(), size_t(4));
        // Patch 3 x 2 x 14 x 14 x 1280 = 1,505,280 (no bias); block: q/k/v/o 6,558,720, gated MLP 13,140,920,
        // RMSNorms 2,560 -> 19,702,200 x 32 = 630,470,400; merger (m = 5120) 44,573,184 + RMSNorm 1,280.
        QCOMPARE(visionParameters(v), int64_t(676'550'144));
        // 8.29B with the encoder: the figure the model is known by.
        QCOMPARE(qRound((countParameters(m).total + visionParameters(v)) / 1e7) / 100.0, 8.29);
        QVERIFY(m.notes.front().find("excluded from MFU") != std::string::npos);
    }

    void qwen3VlFromSharedConfig()
    {
        std::ifstream in(MFU_SOURCE_DIR "/../shared/models/Qwen--Qwen3-VL-8B-Instruct.config.json");
        if (!in)
            QSKIP("../shared/models/ (real Hugging Face configs) is not present next to the source tree");
        std::stringstream text;
        text << in.rdbuf();
        const ModelSpec m = modelFromHfConfigText(text.str(), "Qwen3-VL-8B-Instruct.config.json");
        QVERIFY(m.vision.has_value());
        QCOMPARE(m.vision->mergers, 4); // the merger and three DeepStack mergers
        // Patch 1,770,624, position table 2,654,208, 27 blocks of 15,239,504, mergers 4 x 40,116,224 + norms
        // (2 x 1152 + 3 x 2 x 4608): 576,388,336.
        QCOMPARE(visionParameters(*m.vision), int64_t(576'388'336));
        // 256 tokens per image (1024 patches): forward per token 4 x (3,538,944 + 27 x (10,616,832 + 19,832,832)
        // + 27 x 4 x 1024 x 1152) + 4 x 2 x (21,233,664 + 18,874,368) = 4,133,191,680; trained 3x.
        QCOMPARE(visionTrainingFlopsPerToken(*m.vision, 256), 12'399'575'040.0);
        // With its language model (Qwen3-8B's 8,190,735,360): 8,767,123,696, the 8.77B the Hub lists for the
        // checkpoint.
        QCOMPARE(countParameters(m).total + visionParameters(*m.vision), int64_t(8'767'123'696));

        // The second, labelled MFU: language model + encoder FLOP/token at the measured throughput.
        Scenario s;
        s.model = m;
        s.cluster.hardware.id = "gpu";
        s.cluster.hardware.peakDenseFlops[static_cast<size_t>(NumberFormat::BF16)] = 1e15;
        s.cluster.gpuCount = 8;
        s.workload.seqLen = 8192;
        s.workload.vision = { 2048, 256, true };
        s.measuredThroughput = Throughput { 5000, ThroughputScope::PerGpu };
        const double vision = 2048 * 12'399'575'040.0 / 8192;
        QCOMPARE(*scenarioVisionFlopsPerToken(s), vision);
        QCOMPARE(*scenarioMfuWithVision(s), (scenarioFlopsPerToken(s) + vision) * 5000 / 1e15);
        QCOMPARE(scenarioMeasuredMfu(s)->mfu, scenarioFlopsPerToken(s) * 5000 / 1e15); // MFU: language model only
        s.workload.vision = {};
        QVERIFY(!scenarioMfuWithVision(s));
    }

    // The cost model: vision tokens add the encoder's time and memory (its weights, and activations unless frozen);
    // MFU, the language model's, falls as the encoder's share grows.
    void costModelCountsTheEncoder()
    {
        const ModelSpec m = modelFromHfConfigText(kQwen25Vl7b, "Qwen2.5-VL-7B-Instruct/config.json");
        Scenario s;
        s.model = m;
        s.cluster.hardware.id = "gpu";
        s.cluster.hardware.name = "GPU";
        s.cluster.hardware.peakDenseFlops[static_cast<size_t>(NumberFormat::BF16)] = 312e12;
        s.cluster.hardware.hbmBytes = 80e9;
        s.cluster.hardware.hbmBandwidthBytesPerSec = 2e12;
        s.cluster.hardware.scaleUpDomainGpus = 8;
        s.cluster.hardware.scaleUpBandwidthBytesPerSec = 300e9;
        s.cluster.hardware.scaleOutBandwidthBytesPerSec = 25e9;
        s.cluster.gpuCount = 8;
        s.workload.seqLen = 16384;
        s.activationCheckpointing = ActivationCheckpointing::Full;
        const StepPrediction text = evaluate(s);
        s.workload.vision = { 8192, 1024, true };
        const StepPrediction trained = evaluate(s);
        s.workload.vision.encoderTrained = false;
        const StepPrediction frozen = evaluate(s);
        QVERIFY(trained.stepTimeSeconds > frozen.stepTimeSeconds);
        QVERIFY(frozen.stepTimeSeconds > text.stepTimeSeconds);
        QVERIFY(trained.memory.total() > frozen.memory.total());
        QVERIFY(frozen.memory.total() > text.memory.total());
        QVERIFY(trained.mfu < text.mfu);
        QCOMPARE(trained.flopsPerToken, text.flopsPerToken); // MFU's FLOP/token stays the language model's
        s.workload.vision = { 32768, 0, true }; // more vision tokens than the sequence: cannot be laid out
        QVERIFY(CostModel(s).invalidReason(s) != nullptr);
    }

    // Kimi K2.5's MoonViT: a SigLIP-shaped encoder (h 1152, I 4304, 27 blocks, patch 14) with a final LayerNorm, a
    // learned 64 x 64 position table and the 'patchmerger' projector into the 7168-wide language model.
    void kimiK25MoonVitFromSharedConfig()
    {
        const auto text = sharedConfig("moonshotai--Kimi-K2.5");
        if (!text)
            QSKIP("../shared/models/ (real Hugging Face configs) is not present next to the source tree");
        const ModelSpec m = modelFromHfConfigText(*text, "Kimi-K2.5.config.json");
        QVERIFY(m.vision.has_value());
        const VisionEncoderSpec& v = *m.vision;
        QCOMPARE(v.temporalPatch, int64_t(1)); // a 2-D patch embedding: one frame
        QCOMPARE(v.spatialMerge, int64_t(2));
        QCOMPARE(v.outHidden, int64_t(7168));
        QVERIFY(v.finalNorm && v.layerNorm && v.biases && !v.gatedMlp);
        // Patch 3 x 14 x 14 x 1152 + 1152 = 678,528; positions 64 x 64 x 1152 = 4,718,592; block: qkv 3,984,768,
        // output 1,328,256, fc0 4,962,512, fc1 4,959,360, two LayerNorms 4,608 -> 15,239,504 x 27 = 411,466,608;
        // final LayerNorm 2,304. Encoder 416,866,032: the card's "MoonViT, 400M". Projector (m = 4608): LayerNorm
        // 2,304, 21,238,272, 33,037,312 -> 54,277,888. Total 471,143,920.
        QCOMPARE(visionParameters(v), int64_t(471'143'920));
        // 1024 tokens per image (64 x 64 patches, 896 px square): forward per patch 1,354,752 + 27 x (30,449,664
        // + 4 x 4096 x 1152) = 1,333,103,616; per token 4 x that + projector 2 x (21,233,664 + 33,030,144)
        // = 5,440,942,080; trained 3x.
        QCOMPARE(visionTrainingFlopsPerToken(v, 1024), 16'322'826'240.0);
        QVERIFY(m.notes.front().find("471,143,920 parameters") != std::string::npos);
    }

    // An encoder layout the reader does not know is refused by the key that says so, never approximated: Kimi K3's
    // MoonViT attends at a width (qkv_hidden_size) other than its own.
    void kimiK3EncoderIsRefusedByTheKeyThatDiffers()
    {
        const auto text = sharedConfig("moonshotai--Kimi-K3");
        if (!text)
            QSKIP("../shared/models/ (real Hugging Face configs) is not present next to the source tree");
        const nlohmann::json config = nlohmann::json::parse(*text);
        try {
            visionEncoderFromHfConfig(config, "kimi_k3", 7168, "Kimi-K3.config.json");
            QFAIL("Kimi K3's encoder was read");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("vision_config.qkv_hidden_size") != std::string::npos, e.what());
        }
        nlohmann::json projector = config;
        projector["vision_config"]["qkv_hidden_size"] = 1024;
        try {
            visionEncoderFromHfConfig(projector, "kimi_k3", 7168, "Kimi-K3.config.json");
            QFAIL("a 'patchmergerv2' projector was read");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("vision_config.mm_projector_type") != std::string::npos, e.what());
        }
    }

    // Every real vision-language config whose family this reads carries its encoder; the mergers follow
    // deepstack_visual_indexes (three on Qwen3-VL, none on Qwen3.5).
    void everySharedVisionLanguageConfigCountsItsEncoder()
    {
        const std::vector<std::pair<std::string, int>> configs { { "Qwen--Qwen3-VL-2B-Instruct", 4 },
            { "Qwen--Qwen3-VL-4B-Instruct", 4 }, { "Qwen--Qwen3-VL-8B-Instruct", 4 },
            { "Qwen--Qwen3-VL-32B-Instruct", 4 }, { "Qwen--Qwen3-VL-32B-Thinking", 4 },
            { "Qwen--Qwen3-VL-30B-A3B-Instruct", 4 }, { "Qwen--Qwen3-VL-235B-A22B-Instruct", 4 },
            { "Qwen--Qwen3.5-27B", 1 }, { "Qwen--Qwen3.5-35B-A3B", 1 }, { "Qwen--Qwen3.5-122B-A10B", 1 },
            { "Qwen--Qwen3.5-397B-A17B", 1 }, { "moonshotai--Kimi-K2.5", 1 } };
        for (const auto& [name, mergers] : configs) {
            const auto text = sharedConfig(name);
            if (!text)
                QSKIP("../shared/models/ (real Hugging Face configs) is not present next to the source tree");
            const ModelSpec m = modelFromHfConfigText(*text, name);
            QVERIFY2(m.vision.has_value(), name.c_str());
            QCOMPARE(m.vision->mergers, mergers);
            QCOMPARE(m.vision->outHidden, m.hidden); // the projector ends at the language model's width
        }
        // Qwen3-VL-2B: 24 blocks of 12,596,224, patch 1,573,888, positions 2,359,296, four mergers of 25,171,968
        // and norms 26,624 -> 406,957,056; with Qwen3-1.7B's 1,720,574,976: 2,127,532,032.
        const ModelSpec small = modelFromHfConfigText(*sharedConfig("Qwen--Qwen3-VL-2B-Instruct"), "2B");
        QCOMPARE(visionParameters(*small.vision), int64_t(406'957'056));
        QCOMPARE(countParameters(small).total + visionParameters(*small.vision), int64_t(2'127'532'032));
    }

    void anEncoderItCannotReadIsNamedAndLeftUncounted()
    {
        std::string broken = kQwen25Vl7b;
        broken.replace(broken.find("\"depth\": 32, "), 13, "");
        const ModelSpec m = modelFromHfConfigText(broken, "vl.json");
        QVERIFY(!m.vision); // never approximated
        QCOMPARE(countParameters(m).total, int64_t(7'615'616'512)); // the language model still imports
        QVERIFY2(m.notes.front().find("vision_config.depth") != std::string::npos, m.notes.front().c_str());
    }
};

QTEST_APPLESS_MAIN(TestVisionEncoder)
#include "tst_vision_encoder.moc"
