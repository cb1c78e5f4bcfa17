// The real config.json files in ../shared/models/ (verbatim from the Hugging Face Hub; see the README there): each
// supported one must give its model card's parameter counts, and each of a type not read yet must be refused with an
// error naming its model_type.
#include <QtTest>

#include <fstream>
#include <map>
#include <sstream>

#include "core/errors.h"
#include "core/model/param_count.h"
#include "core/presets/hf_config.h"

using namespace mfu;

namespace {

struct Expected {
    double total; // the card's figure
    double totalTolerance; // half its last stated digit (0: exact)
    double active; // 0: same as total
    double activeTolerance;
    bool activeWithoutEmbedding = false; // the card counts active parameters without the input embedding
};

// Card figures. Qwen3-VL text models have exactly the layout of the Qwen3 LLM of the same size, so they are checked
// against its exact count (Qwen3-8B's 8,190,735,360 is the checkpoint's; the others derived the same way).
const std::map<std::string, Expected> kExpected {
    { "Qwen--Qwen3-0.6B", { 596'049'920, 0, 0, 0 } },
    { "Qwen--Qwen3-1.7B", { 1.7e9, 0.05e9, 0, 0 } },
    { "Qwen--Qwen3-32B", { 32.8e9, 0.05e9, 0, 0 } },
    { "Qwen--Qwen3-235B-A22B", { 235e9, 0.5e9, 22e9, 0.5e9 } },
    { "Qwen--Qwen3-Coder-480B-A35B-Instruct", { 480e9, 0.5e9, 35e9, 0.5e9 } },
    { "Qwen--Qwen3-VL-2B-Instruct", { 1'720'574'976, 0, 0, 0 } }, // = Qwen3-1.7B
    { "Qwen--Qwen3-VL-4B-Instruct", { 4'022'468'096, 0, 0, 0 } }, // = Qwen3-4B (card 4.0B)
    { "Qwen--Qwen3-VL-8B-Instruct", { 8'190'735'360, 0, 0, 0 } }, // = Qwen3-8B
    { "Qwen--Qwen3-VL-32B-Instruct", { 32'762'123'264, 0, 0, 0 } }, // = Qwen3-32B
    { "Qwen--Qwen3-VL-32B-Thinking", { 32'762'123'264, 0, 0, 0 } },
    { "Qwen--Qwen3-VL-30B-A3B-Instruct", { 30'532'122'624, 0, 3'353'032'704, 0 } }, // = Qwen3-30B-A3B
    { "Qwen--Qwen3-VL-235B-A22B-Instruct", { 235'093'634'560, 0, 22'190'763'520, 0 } }, // = Qwen3-235B-A22B
    // Meta's card: "17B active, 400B total" - loosely rounded (the text model alone derives to 400.71B, the
    // checkpoint with the vision encoder is larger still): checked to 1%. The exact text count is in
    // tst_hf_config_families (400,711,848,960 / 17,184,691,200).
    { "meta-llama--Llama-4-Maverick-17B-128E-Instruct", { 400e9, 4e9, 17e9, 0.5e9 } },
    { "meta-llama--Meta-Llama-3.1-70B", { 70'553'706'496, 0, 0, 0 } },
    { "meta-llama--Meta-Llama-3.1-405B", { 405'853'388'800, 0, 0, 0 } },
    { "mistralai--Mixtral-8x22B-v0.1", { 141e9, 0.5e9, 39e9, 0.5e9 } },
    { "openai--gpt-oss-120b", { 116.83e9, 0.005e9, 5.13e9, 0.005e9, true } }, // OpenAI's card
    // DeepSeek-V3 report: "671B total, 37B activated" (without the MTP module). Derived active: 37.55B with the
    // embedding, 36.6B without it; the report does not say which, so 2% as in tst_hf_config's deepSeekV3.
    { "deepseek-ai--DeepSeek-R1", { 671e9, 0.5e9, 37e9, 0.74e9 } },
    // Hybrid and sparse-attention models (hf_config_hybrid.cpp; per-layer derivations in tst_hf_config_hybrid).
    // Qwen's cards count the whole multimodal checkpoint; the language model alone is a little smaller (397B:
    // 396.35B without its vision encoder), so these are checked to 1B.
    { "Qwen--Qwen3.5-27B", { 27e9, 0.5e9, 0, 0 } },
    { "Qwen--Qwen3.5-35B-A3B", { 35e9, 0.5e9, 3e9, 0.5e9 } },
    { "Qwen--Qwen3.5-122B-A10B", { 122e9, 0.5e9, 10e9, 0.5e9 } },
    { "Qwen--Qwen3.5-397B-A17B", { 397e9, 1e9, 17e9, 0.5e9 } },
    { "nvidia--Nemotron-H-56B-Base-8K", { 56e9, 0.5e9, 0, 0 } },
    // NVIDIA: "31.6B total parameters, about 3.6B active including embeddings".
    { "nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", { 31.6e9, 0.05e9, 3.6e9, 0.05e9 } },
    // Latent MoE: 550B total, 55B active (54.99B without the input embedding).
    { "nvidia--NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16", { 550e9, 5e9, 55e9, 0.5e9, true } },
    // Layers of their own shapes (one reader per family; per-layer derivations in tst_hf_config_layer_shapes).
    // MiMo-7B: the card names it 7B without a count; the main model derives to 7,622,619,136 (its one
    // multi-token-prediction layer, 210,790,400 more, is left out as DeepSeek's is).
    { "XiaomiMiMo--MiMo-7B-Base", { 7'622'619'136, 0, 0, 0 } },
    // Xiaomi's MiMo-V2-Flash card: 309B total, 15B active (derived: 308.78B; 15.45B with the input embedding).
    { "XiaomiMiMo--MiMo-V2-Flash", { 309e9, 0.5e9, 15e9, 0.5e9 } },
    // StepFun's Step 3.5 Flash card, whose layout this config keeps (45 layers, 288 experts + 1 shared, window 512):
    // 196B total, 11B active (derived: 195.83B; 10.86B with the input embedding).
    { "stepfun-ai--Step-3.7-Flash", { 196e9, 0.5e9, 11e9, 0.5e9 } },
    // Google's Gemma 4 card: 25.2B total, 3.8B active for the 26B A4B language model (derived: 25.23B, 3.82B).
    { "google--gemma-4-26B-A4B", { 25.2e9, 0.05e9, 3.8e9, 0.05e9 } },
    // NVIDIA names it 49B; its 80 pruned layers derive to 49,867,145,216 (hand count in tst_hf_config_layer_shapes).
    { "nvidia--Llama-3_3-Nemotron-Super-49B-v1", { 49'867'145'216, 0, 0, 0 } },
    // DeepSeek-V3's 671B plus 61 lightning indexers (0.85B); active 37B as for V3.
    { "deepseek-ai--DeepSeek-V3.2", { 671e9, 1e9, 37e9, 0.74e9, true } },
    // Z.ai: 744B total, 40B active (40.83B without the input embedding, 39.88B without the LM head as well: the card
    // does not say which, so to 1B).
    // Moonshot: "1T total, 32B activated" (31.69B without the input embedding); DeepSeek-V3's layout. K2.5's language
    // model is K2's.
    { "moonshotai--Kimi-K2-Instruct", { 1.0e12, 0.05e12, 32e9, 0.5e9, true } },
    { "moonshotai--Kimi-K2.5", { 1.0e12, 0.05e12, 32e9, 0.5e9, true } },
    { "zai-org--GLM-5", { 744e9, 0.5e9, 40e9, 1e9, true } },
    { "zai-org--GLM-5.1", { 744e9, 0.5e9, 40e9, 1e9, true } },
    { "zai-org--GLM-5.2", { 744e9, 0.5e9, 40e9, 1e9, true } },
    // MiniMax's M2 card: "230 billion total parameters with 10 billion active". The checkpoint's layout derives to
    // 228.69B (the multi-token-prediction modules left out), so the total is checked to 1.5B; active 10.42B without
    // the input embedding, to 0.5B. M2.5 and M2.7 keep M2's layout.
    { "MiniMaxAI--MiniMax-M2.5", { 230e9, 1.5e9, 10e9, 0.5e9, true } },
    { "MiniMaxAI--MiniMax-M2.7", { 230e9, 1.5e9, 10e9, 0.5e9, true } },
    // DeepSeek's V4 cards: Flash "284B total parameters, 13B activated", Pro "1.6T total, 49B activated" (without the
    // MTP layer). Derived (tst_hf_config_flagships): Flash 284,332,241,239 total, 13.27B active without the input
    // embedding (13.80B with it); Pro 1,572,997,202,915 total, 48.85B active without the input embedding (49.78B
    // with it). The cards count active parameters without the embedding, as for DeepSeek-V3.
    { "deepseek-ai--DeepSeek-V4-Flash", { 284e9, 0.5e9, 13e9, 0.5e9, true } },
    { "deepseek-ai--DeepSeek-V4-Pro", { 1.6e12, 0.05e12, 49e9, 0.5e9, true } },
    // No model card figures for Kimi K3 and MiniMax-M3 were available when these were imported: their exact counts are
    // derived by hand from the layouts (tst_hf_config_flagships) and checked exactly. Kimi K3's language model:
    // 2.779T total, 105.36B active; MiniMax-M3: 426.17B total, 25.96B active.
    { "moonshotai--Kimi-K3", { 2'779'481'795'168, 0, 105'361'336'928, 0 } },
    { "MiniMaxAI--MiniMax-M3", { 426'174'558'336, 0, 25'962'459'264, 0 } },
};

std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace

class TestHfConfigShared : public QObject {
    Q_OBJECT
private slots:
    void realConfigs()
    {
        const QDir dir(QStringLiteral(MFU_SOURCE_DIR "/../shared/models"));
        if (!dir.exists())
            QSKIP("../shared/models/ (real Hugging Face configs) is not present next to the source tree");
        const QStringList files = dir.entryList({ QStringLiteral("*.config.json") }, QDir::Files, QDir::Name);
        QVERIFY(!files.isEmpty());
        int read = 0;
        for (const QString& file : files) {
            const std::string name = file.chopped(int(sizeof(".config.json")) - 1).toStdString();
            const std::string path = dir.filePath(file).toStdString();
            const auto expected = kExpected.find(name);
            if (expected == kExpected.end()) {
                // A type this importer does not read (hybrid linear attention, Mamba, DeepSeek sparse attention,
                // ...): refused, naming the model_type.
                QString message;
                try {
                    modelFromHfConfigText(readFile(path), path);
                } catch (const InputError& e) {
                    message = QString::fromUtf8(e.what());
                }
                QVERIFY2(message.contains(QStringLiteral("model_type"))
                        && message.contains(QStringLiteral("is not supported")),
                    qPrintable(file + ": " + message));
                QVERIFY2(message.startsWith(QString::fromStdString(path)), qPrintable(message));
                continue;
            }
            const ModelSpec m = modelFromHfConfigText(readFile(path), path);
            const ParameterCounts c = countParameters(m);
            const Expected& e = expected->second;
            const QString what = file + QStringLiteral(": total %1, active %2").arg(c.total).arg(c.active);
            QVERIFY2(std::abs(double(c.total) - e.total) <= e.totalTolerance, qPrintable(what));
            const double active = double(e.activeWithoutEmbedding ? c.activeNonEmbedding : c.active);
            const double wanted = e.active > 0 ? e.active : e.total;
            const double tolerance = e.active > 0 ? e.activeTolerance : e.totalTolerance;
            QVERIFY2(std::abs(active - wanted) <= tolerance, qPrintable(what));
            QVERIFY2(m.name != "config.json" && !m.name.empty(), qPrintable(what));
            // The PaLM note counts the layers that attend the whole sequence in words: "none of the 78" for GLM-5's
            // sparse attention on every layer, never "only 0 of 78".
            for (const std::string& note : m.notes)
                QVERIFY2(note.find("only 0 of") == std::string::npos,
                    qPrintable(file + ": " + QString::fromStdString(note)));
            ++read;
        }
        QCOMPARE(read, int(kExpected.size())); // every expected file is there and was read
    }
};

QTEST_GUILESS_MAIN(TestHfConfigShared)
#include "tst_hf_config_shared.moc"
