// Contract test of `mfu-explorer presets`: the JSON keys scripts rely on, the figures in SI units, the user folder
// overriding built-ins by id, and bad user files reported as warnings without failing the command.
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

using nlohmann::json;

namespace {

struct Run {
    int status = -1;
    QString out;
    QString err;
};

Run runPresets(const QStringList& args, const QString& userFolder = {})
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    // An empty folder unless a test gives one, so the user's own presets never change the answers.
    env.insert(QStringLiteral("MFU_EXPLORER_PRESETS_DIR"), userFolder);
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(MFU_CLI_BINARY), QStringList { QStringLiteral("presets") } + args);
    Run r;
    if (!p.waitForFinished(60000))
        return r;
    r.status = p.exitCode();
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

const json* findById(const json& list, const std::string& id)
{
    for (const auto& entry : list)
        if (entry.value("id", "") == id)
            return &entry;
    return nullptr;
}

} // namespace

class TestCliPresets : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_emptyFolder;

private slots:
    void jsonKeys()
    {
        const Run r = runPresets({ QStringLiteral("--json") }, m_emptyFolder.path());
        QCOMPARE(r.status, 0);
        QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
        const json out = json::parse(r.out.toStdString(), nullptr, false);
        QVERIFY(out.is_object());
        QVERIFY(out["hardware"].is_array() && out["models"].is_array() && out["problems"].is_array());
        QVERIFY(out["problems"].empty());
        QVERIFY(out["hardware"].size() >= 15);
        for (const auto& hw : out["hardware"])
            for (const char* key : { "id", "name", "vendor", "peak_dense_tflops", "peak_sparse_tflops", "memory_bytes",
                     "hbm_bandwidth_bytes_per_sec", "scale_up_domain_gpus", "scale_up_bandwidth_bytes_per_sec",
                     "scale_out_bandwidth_bytes_per_sec", "price_per_gpu_hour_usd", "power_watts", "sources" })
                QVERIFY2(hw.contains(key), (hw.value("id", "?") + " lacks " + key).c_str());
        for (const auto& model : out["models"]) {
            for (const char* key : { "id", "name", "source", "params" })
                QVERIFY2(model.contains(key), (model.value("id", "?") + " lacks " + key).c_str());
            for (const char* key : { "total", "embedding", "non_embedding", "active" })
                QVERIFY2(model["params"][key].is_number_integer(), (model.value("id", "?") + " " + key).c_str());
        }
    }

    void b200Figures()
    {
        const Run r = runPresets({ QStringLiteral("--json"), QStringLiteral("--hardware-only") }, m_emptyFolder.path());
        QCOMPARE(r.status, 0);
        const json out = json::parse(r.out.toStdString(), nullptr, false);
        QVERIFY(!out.contains("models"));
        const json* b200 = findById(out["hardware"], "b200");
        QVERIFY(b200);
        QCOMPARE((*b200)["peak_dense_tflops"]["bf16"].get<double>(), 2250.0);
        QCOMPARE((*b200)["peak_sparse_tflops"]["bf16"].get<double>(), 4500.0);
        QCOMPARE((*b200)["memory_bytes"].get<double>(), 180e9);
        QCOMPARE((*b200)["scale_out_bandwidth_bytes_per_sec"].get<double>(), 50e9);
        QCOMPARE((*b200)["scale_up_domain_gpus"].get<int>(), 8);
        QVERIFY((*b200)["sources"].contains("peak_dense_tflops.bf16"));
    }

    void modelParams()
    {
        const Run r = runPresets({ QStringLiteral("--json"), QStringLiteral("--models-only") }, m_emptyFolder.path());
        QCOMPARE(r.status, 0);
        const json out = json::parse(r.out.toStdString(), nullptr, false);
        QVERIFY(!out.contains("hardware"));
        const json* llama = findById(out["models"], "llama-3.1-8b");
        QVERIFY(llama);
        QCOMPARE((*llama)["params"]["total"].get<int64_t>(), int64_t(8030261248));
        QCOMPARE((*llama)["params"]["embedding"].get<int64_t>(), int64_t(525336576));
        const json* mixtral = findById(out["models"], "mixtral-8x7b");
        QVERIFY(mixtral);
        QCOMPARE((*mixtral)["params"]["active"].get<int64_t>(), int64_t(12879925248));
    }

    void textListing()
    {
        const Run r = runPresets({}, m_emptyFolder.path());
        QCOMPARE(r.status, 0);
        QVERIFY(r.out.contains(QStringLiteral("b200")));
        QVERIFY(r.out.contains(QStringLiteral("2,250"))); // B200 BF16 dense, never the sparse 4,500
        QVERIFY(r.out.contains(QStringLiteral("mixtral-8x7b")));
        QVERIFY(r.out.contains(QStringLiteral("12.88B"))); // active parameters shown for MoE
    }

    // A user file overrides by id; a bad entry in it is a warning naming file and key, and the command succeeds.
    void userFolderOverridesAndWarns()
    {
        QTemporaryDir folder;
        QVERIFY(folder.isValid());
        const json b200
            = { { "id", "b200" }, { "name", "B200 (our contract)" }, { "peak_dense_tflops", { { "bf16", 2250 } } },
                  { "memory_gb", 180 }, { "hbm_bandwidth_gbps", 8000 }, { "price_per_gpu_hour_usd", 3.1 },
                  { "sources",
                      { { "peak_dense_tflops", "NVIDIA Blackwell datasheet, 2024" }, { "memory_gb", "same" },
                          { "hbm_bandwidth_gbps", "same" }, { "price_per_gpu_hour_usd", "our contract, 2026" } } } };
        json broken = b200;
        broken["id"] = "broken";
        broken["peak_dense_tflops"]["bf16"] = -1;
        const json file = { { "format", "mfu-explorer-hardware" }, { "version", 1 }, { "hardware", { b200, broken } } };
        QFile out(folder.filePath(QStringLiteral("mine.json")));
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QByteArray::fromStdString(file.dump()));
        out.close();

        const Run r = runPresets({ QStringLiteral("--json") }, folder.path());
        QCOMPARE(r.status, 0);
        QVERIFY2(r.err.contains(QStringLiteral("warning")) && r.err.contains(QStringLiteral("mine.json"))
                && r.err.contains(QStringLiteral("hardware[1].peak_dense_tflops.bf16")),
            qPrintable(r.err));
        const json result = json::parse(r.out.toStdString(), nullptr, false);
        const json* overridden = findById(result["hardware"], "b200");
        QVERIFY(overridden);
        QCOMPARE((*overridden)["price_per_gpu_hour_usd"].get<double>(), 3.1);
        QVERIFY(!findById(result["hardware"], "broken"));
        QCOMPARE(result["problems"].size(), size_t(1));
        QCOMPARE(result["problems"][0]["key"].get<std::string>(), std::string("hardware[1].peak_dense_tflops.bf16"));
    }

    void badArguments()
    {
        const Run both = runPresets({ QStringLiteral("--hardware-only"), QStringLiteral("--models-only") });
        QVERIFY(both.status != 0);
        QVERIFY(both.err.startsWith(QStringLiteral("mfu-explorer presets: error: ")));
        QCOMPARE(both.err.count(QLatin1Char('\n')), 1);
        const Run unknown = runPresets({ QStringLiteral("--bogus") });
        QVERIFY(unknown.status != 0);
        QVERIFY(unknown.err.startsWith(QStringLiteral("mfu-explorer presets: error: ")));
        const Run help = runPresets({ QStringLiteral("--help") });
        QCOMPARE(help.status, 0);
        QVERIFY(help.out.contains(QStringLiteral("--hardware-only")));
    }
};

QTEST_GUILESS_MAIN(TestCliPresets)
#include "tst_cli_presets.moc"
