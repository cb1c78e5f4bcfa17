// Hostile inputs to every core reader and entry point: truncated, empty, binary, gigantic numbers, NaN/Inf, zero or
// negative GPU counts, sequence lengths of 0 or 10^9, non-UTF-8 names. Each must end in an mfu::InputError whose
// message names the field (or the file and byte) at fault - never a crash, another exception type, or a silently
// accepted nonsense value. Inputs that are merely extreme but valid (a 10^9-token sequence) must give finite figures.
#include <QtTest>

#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "core/diagnosis/diagnosis_report.h"
#include "core/errors.h"
#include "core/model/flops.h"
#include "core/model/mfu.h"
#include "core/presets/hf_config.h"
#include "core/presets/presets.h"
#include "core/scenario/scenario_file.h"
#include "core/trace/byte_source.h"
#include "core/trace/kernel_rules.h"
#include "core/trace/kineto_reader.h"
#include "input_error_of.h"
#include "model_fixtures.h"
#include "shipped_presets.h"

using namespace mfu;
using mfu::test::errorOf;
using mfu::test::shippedPresets;
using json = nlohmann::json;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

const char* const kLlamaConfig = R"({"model_type":"llama","hidden_size":4096,"intermediate_size":14336,
    "num_attention_heads":32,"num_hidden_layers":32,"num_key_value_heads":8,"vocab_size":128256})";

// kLlamaConfig with one key replaced by a raw JSON value text.
QByteArray llamaWith(const char* key, const char* rawValue)
{
    json config = json::parse(kLlamaConfig);
    config.erase(key);
    std::string text = config.dump();
    text.insert(1, "\"" + std::string(key) + "\":" + rawValue + ",");
    return QByteArray::fromStdString(text);
}

HardwareSpec h100()
{
    const HardwareSpec* h = shippedPresets().findHardware("h100-sxm");
    if (!h)
        throw std::runtime_error("h100-sxm preset missing");
    return *h;
}

// The shipped H100 entry as a one-entry hardware file, its BF16 peak left as the placeholder %1 and its name as
// "NAME", so a row can put any raw JSON text there.
QByteArray hardwareFileWithBf16Peak()
{
    QFile file(QStringLiteral(MFU_SOURCE_DIR "/presets/hardware/nvidia.json"));
    if (!file.open(QIODevice::ReadOnly))
        throw std::runtime_error("presets/hardware/nvidia.json missing");
    json document = json::parse(file.readAll().toStdString());
    json entry = document["hardware"][0];
    entry["peak_dense_tflops"]["bf16"] = "PEAK";
    entry["name"] = "NAME";
    document["hardware"] = json::array({ entry });
    return QByteArray::fromStdString(document.dump()).replace("\"PEAK\"", "%1");
}

// A valid version-1 scenario file as JSON, for mutation.
json validScenario()
{
    ScenarioDocument d;
    d.scenario.model = test::llama31_8b();
    d.scenario.cluster.hardware = h100();
    d.scenario.cluster.gpuCount = 8;
    return scenarioToJson(d);
}

} // namespace

class TestHostileInputs : public QObject {
    Q_OBJECT
private slots:
    void hfConfig_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("expected"); // must appear in the error message
        QTest::newRow("empty") << QByteArray() << "config.json";
        QTest::newRow("whitespace only") << QByteArray(" \n\t ") << "config.json";
        QTest::newRow("truncated") << QByteArray(kLlamaConfig).left(60) << "config.json";
        QTest::newRow("binary") << QByteArray("\x1f\x8b\x08\x00\xff\xfe\x00\x01", 8) << "config.json";
        QTest::newRow("not an object") << QByteArray("[1,2,3]") << "config.json";
        QTest::newRow("NaN literal") << llamaWith("hidden_size", "NaN") << "config.json";
        QTest::newRow("non-UTF-8 model_type") << llamaWith("model_type", "\"ll\xff\xfe\"") << "config.json";
        QTest::newRow("unknown family") << llamaWith("model_type", "\"\\u00e9t\\u00e9\"") << "model_type";
        QTest::newRow("gigantic hidden_size") << llamaWith("hidden_size", "1e300") << "hidden_size";
        QTest::newRow("number beyond double") << llamaWith("hidden_size", "1e309") << "config.json";
        QTest::newRow("hidden_size 2^63") << llamaWith("hidden_size", "9223372036854775808") << "hidden_size";
        QTest::newRow("negative hidden_size") << llamaWith("hidden_size", "-4096") << "hidden_size";
        QTest::newRow("fractional hidden_size") << llamaWith("hidden_size", "4096.5") << "hidden_size";
        QTest::newRow("string hidden_size") << llamaWith("hidden_size", "\"4096\"") << "hidden_size";
        QTest::newRow("zero layers") << llamaWith("num_hidden_layers", "0") << "num_hidden_layers";
        QTest::newRow("zero heads") << llamaWith("num_attention_heads", "0") << "num_attention_heads";
        QTest::newRow("negative vocab") << llamaWith("vocab_size", "-1") << "vocab_size";
        QTest::newRow("gigantic layers") << llamaWith("num_hidden_layers", "1e18") << "num_hidden_layers";
    }
    void hfConfig()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, expected);
        const QString message = errorOf([&] {
            const ModelSpec spec = modelFromHfConfigText(text.toStdString(), "config.json");
            (void)countFlopsPerToken(spec, 4096);
        });
        QVERIFY2(message.contains(expected), qPrintable(message));
    }

    void presetFiles_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("expected"); // must appear in the first problem's message
        const QByteArray hw = hardwareFileWithBf16Peak();
        QTest::newRow("empty") << QByteArray() << "hostile.json";
        QTest::newRow("truncated") << hw.left(70) << "hostile.json";
        QTest::newRow("binary") << QByteArray("\x00\x01\x02\xff", 4) << "hostile.json";
        QTest::newRow("unknown format") << QByteArray(R"({"format":"something-else","version":1})") << "format";
        QTest::newRow("newer version") << QByteArray(R"({"format":"mfu-explorer-hardware","version":99,"hardware":[]})")
                                       << "version";
        QTest::newRow("negative peak") << QByteArray(hw).replace("%1", "-989") << "peak_dense_tflops.bf16";
        QTest::newRow("zero peak") << QByteArray(hw).replace("%1", "0") << "peak_dense_tflops.bf16";
        QTest::newRow("gigantic peak") << QByteArray(hw).replace("%1", "1e309") << "hostile.json";
        QTest::newRow("non-UTF-8 name") << QByteArray(hw).replace("\"NAME\"", "\"\xc3\x28\"") << "hostile.json";
        QTest::newRow("model with zero layers")
            << QByteArray(R"({"format":"mfu-explorer-models","version":1,"models":[{"id":"m","name":"M","source":"s",
                "layers":0,"hidden":4096,"heads":32,"kv_heads":8,"head_dim":128,"ffn_dim":14336,"vocab":32000}]})")
            << "layers";
    }
    void presetFiles()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, expected);
        PresetLibrary library;
        QCOMPARE(errorOf([&] { library.loadText("hostile.json", text.toStdString()); }), QStringLiteral("<no error>"));
        QVERIFY2(!library.problems().empty(), "a hostile preset file must be recorded as a problem");
        QVERIFY(library.hardware().empty() && library.models().empty());
        const QString message = QString::fromStdString(library.problems().front().message());
        QVERIFY2(message.contains(expected), qPrintable(message));
    }

    void formulas_data()
    {
        QTest::addColumn<int>("call");
        QTest::addColumn<QString>("expected");
        QTest::newRow("FLOP/token, sequence 0") << 0 << "sequence";
        QTest::newRow("FLOP/token, sequence -1") << 1 << "sequence";
        QTest::newRow("tokens/step, zero micro-batch") << 2 << "micro-batch";
        QTest::newRow("tokens/step, product past int64") << 3 << "tokens per step";
        QTest::newRow("tokens/s per GPU, zero GPUs") << 4 << "GPU count";
        QTest::newRow("tokens/s per GPU, negative GPUs") << 5 << "GPU count";
        QTest::newRow("step throughput, zero step time") << 6 << "step time";
        QTest::newRow("step throughput, NaN step time") << 7 << "step time";
        QTest::newRow("step throughput, infinite step time") << 8 << "step time";
        QTest::newRow("MFU, NaN throughput") << 9 << "throughput";
        QTest::newRow("MFU, infinite throughput") << 10 << "throughput";
        QTest::newRow("MFU, zero GPUs") << 11 << "GPU count";
        QTest::newRow("MFU, NaN FLOP/token") << 12 << "FLOP per token";
        QTest::newRow("MFU, NaN recompute") << 13 << "recompute";
    }
    void formulas()
    {
        QFETCH(int, call);
        QFETCH(QString, expected);
        const ModelSpec llama = test::llama31_8b();
        const HardwareSpec gpu = h100();
        const std::function<void()> calls[] = {
            [&] { (void)countFlopsPerToken(llama, 0); },
            [&] { (void)countFlopsPerToken(llama, -1); },
            [] { (void)tokensPerStep(0, 8192, 1, 8); },
            [] { (void)tokensPerStep(1'000'000, 1'000'000'000, 1'000'000, 1'000'000); },
            [] {
                (void)tokensPerSecPerGpu({ 1e6, ThroughputScope::Cluster }, 0);
            },
            [] {
                (void)tokensPerSecPerGpu({ 1e6, ThroughputScope::Cluster }, -8);
            },
            [] { (void)throughputFromStep(0, 1e6); },
            [] { (void)throughputFromStep(kNaN, 1e6); },
            [] { (void)throughputFromStep(kInf, 1e6); },
            [&] { (void)computeMfu(1e11, 0, kNaN, 8, gpu, TrainingPrecision::BF16); },
            [&] { (void)computeMfu(1e11, 0, kInf, 8, gpu, TrainingPrecision::BF16); },
            [&] { (void)computeMfu(1e11, 0, 1e4, 0, gpu, TrainingPrecision::BF16); },
            [&] { (void)computeMfu(kNaN, 0, 1e4, 8, gpu, TrainingPrecision::BF16); },
            [&] { (void)computeMfu(1e11, kNaN, 1e4, 8, gpu, TrainingPrecision::BF16); },
        };
        const QString message = errorOf(calls[call]);
        QVERIFY2(message.contains(expected, Qt::CaseInsensitive), qPrintable(message));
    }

    // Extreme but valid: a 10^9-token sequence is absurd for training yet well defined; the figures stay finite.
    void billionTokenSequenceGivesFiniteFigures()
    {
        const FlopsPerToken f = countFlopsPerToken(test::llama31_8b(), 1'000'000'000);
        QVERIFY(f.palm && std::isfinite(*f.palm) && *f.palm > f.sixN);
        QVERIFY(f.perComponentCausal && std::isfinite(*f.perComponentCausal));
        QCOMPARE(tokensPerStep(1, 1'000'000'000, 1, 8), int64_t(8'000'000'000));
    }

    void scenarioFiles_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("expected");
        const auto mutated = [](const std::function<void(json&)>& change) {
            json j = validScenario();
            change(j);
            return QByteArray::fromStdString(j.dump());
        };
        const QByteArray valid = QByteArray::fromStdString(validScenario().dump());
        QTest::newRow("empty") << QByteArray() << "run.mfu.json";
        QTest::newRow("truncated") << valid.left(valid.size() / 2) << "run.mfu.json";
        QTest::newRow("binary") << QByteArray("\x89PNG\r\n\x1a\n\x00\x00", 10) << "run.mfu.json";
        QTest::newRow("zero GPUs") << mutated([](json& j) { j["cluster"]["gpu_count"] = 0; }) << "gpu_count";
        QTest::newRow("negative GPUs") << mutated([](json& j) { j["cluster"]["gpu_count"] = -8; }) << "gpu_count";
        QTest::newRow("gigantic GPUs") << mutated([](json& j) { j["cluster"]["gpu_count"] = 1e300; }) << "gpu_count";
        QTest::newRow("sequence 0") << mutated([](json& j) { j["workload"]["seq_len"] = 0; }) << "seq_len";
        QTest::newRow("sequence string") << mutated([](json& j) { j["workload"]["seq_len"] = "8k"; }) << "seq_len";
        QTest::newRow("newer version") << mutated([](json& j) { j["version"] = 999; }) << "version";
        QTest::newRow("number beyond double")
            << QByteArray(valid).replace("\"gpu_count\":8", "\"gpu_count\":1e309") << "run.mfu.json";
        QTest::newRow("wrong format") << mutated([](json& j) { j["format"] = "mfu-explorer-hardware"; }) << "format";
    }
    void scenarioFiles()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, expected);
        const QString message
            = errorOf([&] { (void)scenarioFromText(text.toStdString(), "run.mfu.json", &shippedPresets()); });
        QVERIFY2(message.contains(expected), qPrintable(message));
    }

    void reportedRuns_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("empty") << QByteArray() << "report.json";
        QTest::newRow("truncated") << QByteArray(R"({"gpu":"h100-sxm","gpus":8,"model":"x"})").left(30)
                                   << "report.json";
        QTest::newRow("zero GPUs") << QByteArray(R"({"gpu":"h100-sxm","gpus":0,"params":7e9,"tokens_per_sec":1e5})")
                                   << "gpus";
        QTest::newRow("negative GPUs") << QByteArray(
            R"({"gpu":"h100-sxm","gpus":-8,"params":7e9,"tokens_per_sec":1e5})")
                                       << "gpus";
        QTest::newRow("unknown GPU, non-UTF-8") << QByteArray("{\"gpu\":\"h\xff\",\"gpus\":8}") << "report.json";
        QTest::newRow("negative throughput")
            << QByteArray(R"({"gpu":"h100-sxm","gpus":8,"params":7e9,"tokens_per_sec":-1})") << "tokens_per_sec";
        QTest::newRow("sequence 0") << QByteArray(
            R"({"gpu":"h100-sxm","gpus":8,"model":"llama-3.1-8b","seq_len":0,"tokens_per_sec":1e5})")
                                    << "seq_len";
        QTest::newRow("number beyond double")
            << QByteArray(R"({"gpu":"h100-sxm","gpus":8,"params":7e9,"tokens_per_sec":1e309})") << "report.json";
    }
    void reportedRuns()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, expected);
        const QString message
            = errorOf([&] { (void)reportedRunsFromText(text.toStdString(), "report.json", shippedPresets()); });
        QVERIFY2(message.contains(expected), qPrintable(message));
    }

    void kernelRules_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("empty") << QByteArray() << "rules.json";
        QTest::newRow("binary") << QByteArray("\xff\xfe\x00", 3) << "rules.json";
        QTest::newRow("number beyond double")
            << QByteArray(R"({"format":"mfu-explorer-kernel-rules","version":1e309})") << "rules.json";
        QTest::newRow("wrong format") << QByteArray(R"({"format":"mfu-explorer-models","version":1})") << "format";
    }
    void kernelRules()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, expected);
        const QString message
            = errorOf([&] { (void)trace::KernelRules::fromJsonText(text.toStdString(), "rules.json"); });
        QVERIFY2(message.contains(expected), qPrintable(message));
    }

    void kinetoTraces_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        const QByteArray trace = R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2,
            "args":{"device":0,"stream":7}}]})";
        QTest::newRow("empty") << QByteArray();
        QTest::newRow("truncated") << trace.left(40);
        QTest::newRow("binary") << QByteArray("\x00\x01\x02\x03\xff\xfe\xfd", 7);
        QTest::newRow("gzip header only") << QByteArray("\x1f\x8b\x08\x00\x00\x00\x00\x00", 8);
        QTest::newRow("truncated gzip") << qCompress(trace).mid(4).prepend("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03");
        QTest::newRow("gigantic ts") << QByteArray(trace).replace("\"ts\":1", "\"ts\":1e300");
        QTest::newRow("NaN dur") << QByteArray(trace).replace("\"dur\":2", "\"dur\":NaN");
    }
    void kinetoTraces()
    {
        QFETCH(QByteArray, bytes);
        const QString message = errorOf([&] {
            auto source = trace::memorySource(bytes.toStdString(), "hostile.json");
            (void)trace::readKinetoTrace(*source);
        });
        QVERIFY2(message.contains(QStringLiteral("hostile.json")), qPrintable(message));
    }
};

QTEST_GUILESS_MAIN(TestHostileInputs)
#include "tst_hostile_inputs.moc"
