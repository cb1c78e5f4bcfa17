// Hugging Face config.json import: each family's real config (the fields that matter, as published) must give the
// model's published parameter count; bad configs give an error naming the key.
#include <QtTest>

#include <sys/stat.h>

#include "core/errors.h"
#include "core/model/param_count.h"
#include "core/presets/hf_config.h"

using namespace mfu;

namespace {
ParameterCounts countsOf(const char* json)
{
    return countParameters(modelFromHfConfigText(json, "config.json"));
}

QString errorOf(const char* json)
{
    try {
        modelFromHfConfigText(json, "config.json");
    } catch (const InputError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}
} // namespace

class TestHfConfig : public QObject {
    Q_OBJECT
private slots:
    void families_data()
    {
        QTest::addColumn<QByteArray>("config");
        QTest::addColumn<qint64>("total");
        QTest::addColumn<qint64>("active");
        QTest::newRow("meta-llama/Llama-3.1-8B")
            << QByteArray(R"({"architectures":["LlamaForCausalLM"],"model_type":"llama","hidden_size":4096,
                "intermediate_size":14336,"num_attention_heads":32,"num_hidden_layers":32,"num_key_value_heads":8,
                "vocab_size":128256,"hidden_act":"silu","tie_word_embeddings":false,"rms_norm_eps":1e-05,
                "rope_scaling":{"factor":8.0,"rope_type":"llama3"},"torch_dtype":"bfloat16"})")
            << qint64(8'030'261'248) << qint64(8'030'261'248);
        QTest::newRow("mistralai/Mistral-7B-v0.1")
            << QByteArray(R"({"model_type":"mistral","hidden_size":4096,"intermediate_size":14336,
                "num_attention_heads":32,"num_hidden_layers":32,"num_key_value_heads":8,"vocab_size":32000,
                "hidden_act":"silu","sliding_window":4096,"tie_word_embeddings":false})")
            << qint64(7'241'732'096) << qint64(7'241'732'096);
        QTest::newRow("Qwen/Qwen2.5-7B (QKV bias)")
            << QByteArray(R"({"model_type":"qwen2","hidden_size":3584,"intermediate_size":18944,
                "num_attention_heads":28,"num_hidden_layers":28,"num_key_value_heads":4,"vocab_size":152064,
                "hidden_act":"silu","tie_word_embeddings":false})")
            << qint64(7'615'616'512) << qint64(7'615'616'512);
        QTest::newRow("mistralai/Mixtral-8x7B-v0.1")
            << QByteArray(R"({"model_type":"mixtral","hidden_size":4096,"intermediate_size":14336,
                "num_attention_heads":32,"num_hidden_layers":32,"num_key_value_heads":8,"vocab_size":32000,
                "num_local_experts":8,"num_experts_per_tok":2,"hidden_act":"silu"})")
            << qint64(46'702'792'704) << qint64(12'879'925'248);
        QTest::newRow("openai-community/gpt2 (n_inner null)")
            << QByteArray(R"({"model_type":"gpt2","n_embd":768,"n_layer":12,"n_head":12,"n_positions":1024,
                "n_inner":null,"vocab_size":50257,"activation_function":"gelu_new"})")
            << qint64(124'439'808) << qint64(124'439'808);
        QTest::newRow("EleutherAI/pythia-160m (GPT-NeoX)")
            << QByteArray(R"({"architectures":["GPTNeoXForCausalLM"],"hidden_size":768,"intermediate_size":3072,
                "num_attention_heads":12,"num_hidden_layers":12,"vocab_size":50304,"hidden_act":"gelu",
                "tie_word_embeddings":false,"use_parallel_residual":true})")
            << qint64(162'322'944) << qint64(162'322'944);
    }
    void families()
    {
        QFETCH(QByteArray, config);
        QFETCH(qint64, total);
        QFETCH(qint64, active);
        const ParameterCounts c = countsOf(config.constData());
        QCOMPARE(c.total, total);
        QCOMPARE(c.active, active);
    }

    void deepSeekV3()
    {
        // deepseek-ai/DeepSeek-V3 config.json: "671B total, 37B activated" (without the 14B MTP module).
        const char* config = R"({"architectures":["DeepseekV3ForCausalLM"],"model_type":"deepseek_v3",
            "hidden_size":7168,"intermediate_size":18432,"moe_intermediate_size":2048,"num_hidden_layers":61,
            "num_attention_heads":128,"num_key_value_heads":128,"n_shared_experts":1,"n_routed_experts":256,
            "num_experts_per_tok":8,"first_k_dense_replace":3,"q_lora_rank":1536,"kv_lora_rank":512,
            "qk_nope_head_dim":128,"qk_rope_head_dim":64,"v_head_dim":128,"vocab_size":129280,
            "topk_method":"noaux_tc","num_nextn_predict_layers":1,"tie_word_embeddings":false,"hidden_act":"silu"})";
        const ModelSpec m = modelFromHfConfigText(config, "config.json");
        QVERIFY(m.mla.enabled);
        QCOMPARE(m.moe.denseLayers, 3);
        const ParameterCounts c = countParameters(m);
        QVERIFY2(qAbs(double(c.total) - 671e9) / 671e9 < 0.005, qPrintable(QString::number(c.total)));
        QVERIFY2(qAbs(double(c.active) - 37e9) / 37e9 < 0.02, qPrintable(QString::number(c.active)));
    }

    void textConfigOfMultimodalModel()
    {
        const ParameterCounts c = countsOf(R"({"architectures":["LlavaForConditionalGeneration"],
            "text_config":{"model_type":"mistral","hidden_size":4096,"intermediate_size":14336,
            "num_attention_heads":32,"num_hidden_layers":32,"num_key_value_heads":8,"vocab_size":32000}})");
        QCOMPARE(c.total, qint64(7'241'732'096));
    }

    void errorsNameTheKey_data()
    {
        QTest::addColumn<QByteArray>("config");
        QTest::addColumn<QString>("expected");
        QTest::newRow("missing key") << QByteArray(R"({"model_type":"llama","hidden_size":4096})")
                                     << QStringLiteral("'num_hidden_layers': missing");
        QTest::newRow("unknown family") << QByteArray(R"({"model_type":"mamba","hidden_size":4096})")
                                        << QStringLiteral("'mamba' is not supported");
        QTest::newRow("unknown architecture") << QByteArray(R"({"architectures":["RwkvForCausalLM"]})")
                                              << QStringLiteral("'RwkvForCausalLM' is not supported");
        QTest::newRow("no model_type") << QByteArray(R"({"hidden_size":4096})") << QStringLiteral("'model_type'");
        QTest::newRow("wrong type") << QByteArray(R"({"model_type":"llama","hidden_size":"4096",
            "num_hidden_layers":32,"num_attention_heads":32,"vocab_size":1,"intermediate_size":1})")
                                    << QStringLiteral("'hidden_size': must be a positive integer");
        QTest::newRow("negative") << QByteArray(R"({"model_type":"gpt2","n_embd":-768,"n_layer":12,"n_head":12,
            "n_positions":1024,"vocab_size":50257})")
                                  << QStringLiteral("'n_embd'");
        QTest::newRow("gigantic") << QByteArray(R"({"model_type":"gpt2","n_embd":1e300,"n_layer":12,"n_head":12,
            "n_positions":1024,"vocab_size":50257})")
                                  << QStringLiteral("'n_embd'");
        QTest::newRow("whole float beyond int64") << QByteArray(R"({"model_type":"llama","hidden_size":5.1e53,
            "num_hidden_layers":32,"num_attention_heads":32,"vocab_size":1,"intermediate_size":1})")
                                                  << QStringLiteral("'hidden_size': must be a positive integer");
        // Unsigned integers beyond int64 are quoted as the file wrote them, not as their int64 wrap (2^63 read
        // -9223372036854775808, 2^64 - 1 read -1).
        QTest::newRow("2^63") << QByteArray(R"({"model_type":"llama","hidden_size":4096,
            "num_hidden_layers":9223372036854775808,"num_attention_heads":32,"vocab_size":1,"intermediate_size":1})")
                              << QStringLiteral("below 2^40, got 9223372036854775808");
        QTest::newRow("2^64 - 1") << QByteArray(R"({"model_type":"llama","hidden_size":18446744073709551615,
            "num_hidden_layers":32,"num_attention_heads":32,"vocab_size":1,"intermediate_size":1})")
                                  << QStringLiteral("below 2^40, got 18446744073709551615");
        QTest::newRow("not JSON") << QByteArray(R"({"model_type": "llama",)")
                                  << QStringLiteral("not valid JSON at byte");
        QTest::newRow("not an object") << QByteArray("[1,2,3]") << QStringLiteral("must be a JSON object");
        QTest::newRow("heads do not divide") << QByteArray(R"({"model_type":"llama","hidden_size":4096,
            "num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":5,"vocab_size":1000,
            "intermediate_size":11008})") << QStringLiteral("key/value heads");
        // Python's json writes NaN: the key is there, so "missing" was the wrong thing to say.
        QTest::newRow("NaN") << QByteArray(R"({"model_type":"llama","hidden_size":NaN,"num_hidden_layers":32,
            "num_attention_heads":32,"vocab_size":1000,"intermediate_size":11008})")
                             << QStringLiteral("'hidden_size': is null (NaN or Infinity in the file)");
        // A typo of a billion layers allocated per-layer tables until it ran out of memory.
        QTest::newRow("a billion layers") << QByteArray(R"({"model_type":"llama","hidden_size":4096,
            "num_hidden_layers":1000000000,"num_attention_heads":32,"vocab_size":1000,"intermediate_size":11008})")
                                          << QStringLiteral("'num_hidden_layers': 1000000000 is beyond any model");
        QTest::newRow("head_dim 1e12") << QByteArray(R"({"model_type":"llama","hidden_size":4096,"head_dim":1e12,
            "num_hidden_layers":32,"num_attention_heads":32,"vocab_size":1000,"intermediate_size":11008})")
                                       << QStringLiteral("'head_dim': 1000000000000 is beyond any model");
        // MPT's own key names are bounded as well (n_layers, n_heads).
        QTest::newRow("MPT with a billion layers") << QByteArray(R"({"model_type":"mpt","d_model":4096,
            "n_layers":1000000000,"n_heads":32,"vocab_size":50432,"expansion_ratio":4,"max_seq_len":2048})")
                                                   << QStringLiteral("'n_layers': 1000000000 is beyond any model");
        QTest::newRow("heads do not divide the width")
            << QByteArray(R"({"model_type":"llama","hidden_size":8193,
            "num_hidden_layers":32,"num_attention_heads":64,"vocab_size":1000,"intermediate_size":11008})")
            << QStringLiteral("8193 is not a multiple of the attention heads");
    }
    void errorsNameTheKey()
    {
        QFETCH(QByteArray, config);
        QFETCH(QString, expected);
        const QString message = errorOf(config.constData());
        QVERIFY2(message.contains(expected), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("config.json")), qPrintable(message)); // names the file
    }

    // Another of the product's inputs given as a model is named for what it is.
    void otherInputsAreNamed()
    {
        QCOMPARE(errorOf(R"({"traceEvents": [], "deviceProperties": []})"),
            QStringLiteral("config.json: is a profiler trace (Chrome/Kineto JSON), not a Hugging Face config.json"));
        QCOMPARE(errorOf(R"({"format": "mfu-explorer-models", "models": []})"),
            QStringLiteral("config.json: is a model preset file, not a Hugging Face config.json"));
        QCOMPARE(errorOf("\x1f\x8b\x08\x00\x00"),
            QStringLiteral("config.json: is gzip-compressed (a profiler trace?), not a Hugging Face config.json"));
    }

    // From disk: the file, or a downloaded model's folder, read the same and are named by the file's absolute path;
    // a folder without a config.json, a FIFO and a missing file are refused with their path.
    void readsFilesAndFolders()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("Tiny-Llama")));
        const QString configPath = dir.filePath(QStringLiteral("Tiny-Llama/config.json"));
        QFile config(configPath);
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write(R"({"model_type":"llama","hidden_size":512,"num_hidden_layers":4,"num_attention_heads":8,
            "vocab_size":1000,"intermediate_size":1376})");
        config.close();
        const std::string absolute = QFileInfo(configPath).absoluteFilePath().toStdString();

        const ModelSpec fromFile = modelFromHfConfigFile(QFile::encodeName(configPath).toStdString());
        const ModelSpec fromFolder = modelFromHfConfigFile(QFile::encodeName(dir.filePath("Tiny-Llama")).toStdString());
        QCOMPARE(fromFile.id, absolute);
        QCOMPARE(fromFolder.id, absolute);
        QCOMPARE(fromFolder.name, std::string("Tiny-Llama"));
        QCOMPARE(countParameters(fromFolder).total, countParameters(fromFile).total);
        // A relative path with '..' in it is named by where it leads.
        const QString before = QDir::currentPath();
        QDir::setCurrent(dir.filePath(QStringLiteral("Tiny-Llama")));
        const ModelSpec relative = modelFromHfConfigFile("../Tiny-Llama/./config.json");
        QDir::setCurrent(before);
        QCOMPARE(relative.id, absolute);

        const auto refusal = [](const QString& path) {
            try {
                modelFromHfConfigFile(QFile::encodeName(path).toStdString());
            } catch (const InputError& e) {
                return QString::fromUtf8(e.what());
            }
            return QString();
        };
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("empty")));
        const QString empty = refusal(dir.filePath(QStringLiteral("empty")));
        QVERIFY2(empty.contains(QStringLiteral("is a folder without a config.json")), qPrintable(empty));
        QVERIFY2(empty.contains(dir.filePath(QStringLiteral("empty"))), qPrintable(empty));
        const QString fifo = dir.filePath(QStringLiteral("fifo.json"));
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        const QString fifoError = refusal(fifo);
        QVERIFY2(fifoError.contains(fifo) && fifoError.contains(QStringLiteral("FIFO")), qPrintable(fifoError));
        const QString missing = refusal(dir.filePath(QStringLiteral("missing.json")));
        QVERIFY2(missing.contains(QStringLiteral("missing.json")), qPrintable(missing));
    }
};

QTEST_GUILESS_MAIN(TestHfConfig)
#include "tst_hf_config.moc"
