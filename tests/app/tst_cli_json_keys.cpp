// One JSON vocabulary: every key any subcommand prints with --json, on representative inputs, is in the glossary
// docs/json-keys.md (read from MFU_SOURCE_DIR). A key the glossary lacks fails the test with the command that
// printed it, so a new key cannot reach a script without a documented name, unit and meaning.
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <set>

#include <nlohmann/json.hpp>

#include "app/preset_store.h"
#include "cli_runner.h"
#include "core/scenario/scenario_file.h"
#include "trace_test_support.h"

using namespace mfu;

namespace {

// Keys in the glossary: the first cell of every table row, written `key`.
std::set<std::string> glossaryKeys()
{
    QFile file(QStringLiteral(MFU_SOURCE_DIR "/docs/json-keys.md"));
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s/docs/json-keys.md", MFU_SOURCE_DIR);
    std::set<std::string> keys;
    static const QRegularExpression row(QStringLiteral("^\\|\\s*`([a-z0-9_.]+)`"));
    for (const QByteArray& line : file.readAll().split('\n')) {
        const auto m = row.match(QString::fromUtf8(line));
        if (m.hasMatch())
            keys.insert(m.captured(1).toStdString());
    }
    return keys;
}

// Objects whose keys are data, not vocabulary: a preset figure's path (`sources`), a kernel category of the
// kernel rules (`categories`) and a precision of the FLOPs counted from shapes (`by_precision`,
// `by_precision_in_steps`). The glossary describes them under the object's entry; their values' keys are checked.
bool keyedByData(const std::string& parent)
{
    static const std::set<std::string> maps { "sources", "categories", "by_precision", "by_precision_in_steps" };
    return maps.count(parent) > 0;
}

void collectKeys(const nlohmann::json& j, const std::string& parent, std::set<std::string>& out)
{
    if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it) {
            if (!keyedByData(parent))
                out.insert(it.key());
            collectKeys(it.value(), it.key(), out);
        }
    } else if (j.is_array()) {
        for (const auto& v : j)
            collectKeys(v, parent + "[]", out); // items of a list are not the keyed-by-data object itself
    }
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const std::string& text)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text.data(), qint64(text.size())) != qint64(text.size()))
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

// A one-rank Kineto trace: two profiler steps with a GEMM and an all-reduce.
std::string twoStepTrace(const char* gemmDur)
{
    return trace_test::traceOf({ trace_test::kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", "0", gemmDur),
                                   trace_test::kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(x)", "50", "100", 20),
                                   trace_test::kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", "200", gemmDur),
                                   trace_test::annotation("ProfilerStep#1", "0", "200", true),
                                   trace_test::annotation("ProfilerStep#2", "200", "200", true) },
        "\"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\"}]");
}

} // namespace

class TestCliJsonKeys : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_glossary = glossaryKeys();
        QVERIFY2(m_glossary.size() > 50, "docs/json-keys.md lists too few keys: is its table format intact?");
    }

    void everyPrintedKeyIsInTheGlossary_data()
    {
        QTest::addColumn<QStringList>("args");
        const QString trace = writeFile(m_dir, QStringLiteral("run.json"), twoStepTrace("100"));
        const QString faster = writeFile(m_dir, QStringLiteral("faster.json"), twoStepTrace("60"));
        const QString log = writeFile(m_dir, QStringLiteral("train.log"),
            "iter 0: loss 10.9000, time 5000.00ms, mfu -100.00%\niter 1: loss 9.0000, time 130.00ms, mfu 40.00%\n"
            "iter 2: loss 8.0000, time 120.00ms, mfu 41.00%\niter 3: loss 7.0000, time 124.00ms, mfu 42.00%\n");
        const QString impossible = writeFile(m_dir, QStringLiteral("impossible.json"),
            R"({"gpu": "a100-sxm-80gb", "gpus": 1, "model": "llama-3.1-8b", "seq_len": 8192,
                "tokens_per_sec": 20000, "mfu": 1.3})");
        const QString fp8 = writeFile(m_dir, QStringLiteral("fp8.json"),
            R"({"gpu": "b200", "gpus": 8, "model": "llama-3.1-8b", "precision": "fp8", "seq_len": 8192,
                "tokens_per_sec": 20000, "tokens_per_sec_scope": "per_gpu", "peak_tflops": 4500, "mfu": 0.26})");
        Scenario s;
        s.model = *app::presetLibrary().findModel("llama-3.1-8b");
        s.cluster.hardware = *app::presetLibrary().findHardware("b200");
        s.cluster.gpuCount = 8;
        s.measuredThroughput = Throughput { 20000, ThroughputScope::PerGpu };
        s.cost.days = 30;
        s.cost.targetMfu = 0.6;
        const QString scenario
            = writeFile(m_dir, QStringLiteral("s.mfu.json"), scenarioFileText(ScenarioDocument { s, {}, {}, {} }));

        auto row = [](const char* name, const QStringList& args) { QTest::newRow(name) << args; };
        row("presets", { "presets" });
        row("calc",
            { "calc", "--model", "llama-3.1-8b", "--gpu", "b200", "--tokens-per-sec-per-gpu", "21111", "--ac",
                "selective" });
        row("calc fp8",
            { "calc", "--model", "llama-3.1-8b", "--gpu", "b200", "--precision", "fp8", "--tokens-per-sec-per-gpu",
                "21111" });
        row("calc without throughput", { "calc", "--params", "7B" });
        row("diagnose", { "diagnose", QStringLiteral(MFU_SOURCE_DIR "/examples/b200-scaling-report.json") });
        row("diagnose impossible", { "diagnose", impossible });
        row("diagnose fp8", { "diagnose", fp8 });
        row("cost",
            { "cost", "--gpu", "h100-sxm", "--gpus", "256", "--days", "90", "--price-per-gpu-hour", "2.50",
                "--baseline-mfu", "40", "--target-mfu", "60", "--model", "llama-3.1-70b" });
        row("cost compare",
            { "cost", "--gpu", "h100-sxm", "--gpus", "64", "--tokens", "1T", "--model", "llama-3.1-8b",
                "--baseline-mfu", "40", "--compare", "h100-sxm,b200" });
        row("predict", { "predict", "--model", "llama-3.1-8b", "--gpu", "b200", "--gpus", "8", "--ac", "selective" });
        row("predict packed and padded",
            { "predict", "--model", "llama-3.1-8b", "--gpu", "b200", "--gpus", "8", "--doc-length", "1024",
                "--padding-fraction", "0.1", "--ac", "selective" });
        row("sweep", { "sweep", "--model", "llama-3.1-8b", "--gpu", "b200", "--gpus", "8", "--axis", "seq" });
        row("plan", { "plan", "--model", "llama-3.1-8b", "--gpu", "b200", "--gpus", "8", "--top", "2" });
        row("trace", { "trace", trace, "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--tokens-per-step", "8192" });
        row("trace compare", { "trace", trace, "--compare", faster });
        row("trace log",
            { "trace", log, "--model", "gpt2", "--gpu", "a100-sxm-80gb", "--seq", "1024", "--tokens-per-step",
                "12288" });
        row("report", { "report", "--scenario", scenario, "--out", m_dir.filePath(QStringLiteral("r.pdf")) });
        row("validate", { "validate" });
    }

    void everyPrintedKeyIsInTheGlossary()
    {
        QFETCH(QStringList, args);
        const test::CliResult r = test::runCli(args + QStringList { QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const nlohmann::json j = nlohmann::json::parse(r.out.toStdString(), nullptr, false);
        QVERIFY2(!j.is_discarded(), r.out.left(400).constData());
        std::set<std::string> printed;
        collectKeys(j, {}, printed);
        std::string missing;
        for (const auto& key : printed)
            if (!m_glossary.count(key))
                missing += (missing.empty() ? "" : ", ") + key;
        QVERIFY2(missing.empty(), ("not in docs/json-keys.md: " + missing).c_str());
    }

    // The glossary's own promise: the keys of an MFU result (core/model/mfu_json.h) are present, null, without a
    // throughput; calc used to leave them out.
    void calcWithoutThroughputPrintsNull()
    {
        const test::CliResult r = test::runCli({ "calc", "--model", "llama-3.1-8b", "--gpu", "b200", "--json" });
        QCOMPARE(r.exitCode, 0);
        const nlohmann::json j = nlohmann::json::parse(r.out.toStdString());
        for (const char* key :
            { "tokens_per_sec_per_gpu", "tokens_per_sec", "achieved_tflops_per_gpu", "achieved_tflops_cluster", "mfu",
                "hfu", "mfu_peak_basis", "mfu_by_formula", "mfu_vs_fp8_peak", "fp8_peak_tflops_per_gpu",
                "peak_dense_fp8_tflops_per_gpu", "mfu_vs_fp4_peak", "peak_dense_fp4_tflops_per_gpu" }) {
            QVERIFY2(j.contains(key), key);
            QVERIFY2(j[key].is_null(), key);
        }
        QCOMPARE(j["peak_dense_tflops_per_gpu"].get<double>(), j["peak_tflops_per_gpu"].get<double>());
    }

private:
    QTemporaryDir m_dir;
    std::set<std::string> m_glossary;
};

QTEST_GUILESS_MAIN(TestCliJsonKeys)
#include "tst_cli_json_keys.moc"
