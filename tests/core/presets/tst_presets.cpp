// Preset data and loader: every built-in file loads clean, every figure has a source, the known datasheet and
// parameter-count answers come out, and each kind of bad input is reported with file, key and reason while the
// good entries of the same file still load.
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/model/mfu.h"
#include "core/model/param_count.h"
#include "core/presets/presets.h"

using nlohmann::json;

namespace {

const std::filesystem::path kPresetDir = std::filesystem::path(MFU_SOURCE_DIR) / "presets";

mfu::PresetLibrary builtIns()
{
    mfu::PresetLibrary library;
    library.loadDirectory(kPresetDir);
    return library;
}

std::string problemsText(const mfu::PresetLibrary& library)
{
    std::string text;
    for (const auto& p : library.problems())
        text += p.message() + "\n";
    return text;
}

json goodGpu(const std::string& id)
{
    const std::string sheet = "sheet, 2024";
    return json { { "id", id }, { "name", "Test GPU" }, { "vendor", "Test" },
        { "peak_dense_tflops", { { "bf16", 1000 }, { "fp8", 2000 } } }, { "peak_sparse_tflops", { { "bf16", 2000 } } },
        { "memory_gb", 80 }, { "hbm_bandwidth_gbps", 3000 },
        { "scale_up", { { "name", "link" }, { "domain_gpus", 8 }, { "bandwidth_gbps", 450 } } },
        { "scale_out_gbitps", 400 }, { "price_per_gpu_hour_usd", 2.0 },
        { "sources",
            { { "peak_dense_tflops", sheet }, { "peak_sparse_tflops.bf16", sheet }, { "memory_gb", sheet },
                { "hbm_bandwidth_gbps", sheet }, { "scale_up", sheet }, { "scale_out_gbitps", "typical" },
                { "price_per_gpu_hour_usd", "typical" } } } };
}

json goodModel(const std::string& id)
{
    return json { { "id", id }, { "name", "Tiny" }, { "source", "test" }, { "layers", 2 }, { "hidden", 64 },
        { "heads", 4 }, { "ffn_dim", 128 }, { "activation", "swiglu" }, { "vocab", 100 }, { "norm", "rmsnorm" } };
}

std::string hardwareFile(const json& second)
{
    return json {
        { "format", "mfu-explorer-hardware" }, { "version", 1 }, { "hardware", { goodGpu("good"), second } }
    }.dump();
}

std::string modelFile(const json& second)
{
    return json {
        { "format", "mfu-explorer-models" }, { "version", 1 }, { "models", { goodModel("good"), second } }
    }.dump();
}

} // namespace

class TestPresets : public QObject {
    Q_OBJECT
private slots:
    void everyBuiltInFileLoadsWithoutProblems()
    {
        int files = 0;
        for (const char* folder : { "hardware", "models" }) {
            for (const auto& item : std::filesystem::directory_iterator(kPresetDir / folder)) {
                if (item.path().extension() != ".json")
                    continue;
                ++files;
                std::ifstream in(item.path());
                std::stringstream text;
                text << in.rdbuf();
                mfu::PresetLibrary library;
                library.loadText(item.path().filename().string(), text.str());
                QVERIFY2(library.problems().empty(), problemsText(library).c_str());
                QVERIFY2(library.hardware().size() + library.models().size() > 0, item.path().c_str());
            }
        }
        QVERIFY(files >= 10);
        // The whole folder (other formats in it, such as kernel rules, are skipped) loads clean too.
        const auto all = builtIns();
        QVERIFY2(all.problems().empty(), problemsText(all).c_str());
    }

    void requiredPresetsExist_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<bool>("isHardware");
        for (const char* id : { "a100-sxm-80gb", "a800-sxm-80gb", "h100-sxm", "h100-pcie", "h200", "b200", "b300",
                 "gb200", "gb300", "mi300x", "mi325x", "mi350x", "mi355x", "gaudi3", "tpu-v5p", "tpu-v6e",
                 "v100-sxm2-16gb", "v100-sxm2-32gb", "a100-sxm-40gb", "a100-pcie-40gb", "a10g", "l4", "l40s",
                 "rtx-3090", "rtx-4090", "rtx-5090", "rtx-6000-ada", "h800", "h20", "h100-nvl", "gh200", "mi250x",
                 "mi210", "mi300a", "tpu-v4", "tpu-v5e", "trainium2", "gaudi2" })
            QTest::newRow(id) << QString(id) << true;
        for (const char* id : { "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "llama-3.2-1b", "llama-3.2-3b",
                 "qwen2.5-7b", "qwen2.5-72b", "mistral-7b", "mixtral-8x7b", "mixtral-8x22b", "deepseek-v3",
                 "gpt-3-175b", "llama-1.36b", "gpt2", "generic-7b" })
            QTest::newRow(id) << QString(id) << false;
        for (const char* id : { "qwen3-8b", "qwen3-32b", "qwen3-30b-a3b", "qwen3-235b-a22b", "gpt-oss-20b",
                 "gpt-oss-120b", "llama-4-scout", "llama-4-maverick", "gemma-3-27b", "mistral-nemo-12b", "phi-4",
                 "gemma-4-26b-a4b", "mimo-7b", "mimo-v2-flash", "step-3.7-flash", "llama-3.3-nemotron-super-49b",
                 "qwen3.5-27b", "qwen3.5-397b-a17b", "nemotron-3-nano-30b-a3b", "nemotron-3-ultra-550b-a55b",
                 "deepseek-v3.2", "glm-5" })
            QTest::newRow(id) << QString(id) << false;
        for (const char* id :
            { "kimi-k2.5", "kimi-k3", "deepseek-v4-flash", "deepseek-v4-pro", "minimax-m2.5", "minimax-m3" })
            QTest::newRow(id) << QString(id) << false;
    }
    void requiredPresetsExist()
    {
        QFETCH(QString, id);
        QFETCH(bool, isHardware);
        const auto library = builtIns();
        const std::string key = id.toStdString();
        QVERIFY2(isHardware ? library.findHardware(key) != nullptr : library.findModel(key) != nullptr, key.c_str());
    }

    // Every figure present names its source; BF16 dense exists; sparse is never below dense.
    void everyHardwareFigureHasASource()
    {
        const auto library = builtIns();
        QVERIFY(library.hardware().size() >= 37);
        for (const auto& hw : library.hardware()) {
            QVERIFY2(hw.mfuPeak().has_value(), hw.id.c_str()); // BF16, or FP16 on a device without BF16 (V100)
            std::vector<std::string> figures { "memory_gb", "hbm_bandwidth_gbps" };
            for (int i = 0; i < mfu::kNumberFormatCount; ++i) {
                const auto f = static_cast<mfu::NumberFormat>(i);
                const std::string key(mfu::numberFormatKey(f));
                if (hw.densePeak(f))
                    figures.push_back("peak_dense_tflops." + key);
                if (hw.sparsePeak(f))
                    figures.push_back("peak_sparse_tflops." + key);
                if (hw.densePeak(f) && hw.sparsePeak(f))
                    QVERIFY2(*hw.densePeak(f) < *hw.sparsePeak(f), (hw.id + " " + key).c_str());
            }
            if (hw.pricePerGpuHourUsd > 0)
                figures.push_back("price_per_gpu_hour_usd");
            if (hw.scaleUpBandwidthBytesPerSec > 0)
                figures.push_back("scale_up.bandwidth_gbps");
            if (hw.scaleOutBandwidthBytesPerSec > 0)
                figures.push_back("scale_out_gbitps");
            if (hw.powerWatts)
                figures.push_back("power_watts");
            if (hw.hostLinkBytesPerSec > 0)
                figures.push_back("host_link.bandwidth_gbps");
            for (const auto& figure : figures) {
                const auto it = hw.sources.find(figure);
                QVERIFY2(it != hw.sources.end() && it->second.size() > 5, (hw.id + ": " + figure).c_str());
            }
        }
    }

    // docs/presets.md's Hardware table lists every built-in GPU (its id in backticks at the start of a row).
    void docsTableListsEveryGpu()
    {
        std::ifstream in(std::filesystem::path(MFU_SOURCE_DIR) / "docs" / "presets.md");
        QVERIFY(in);
        std::stringstream text;
        text << in.rdbuf();
        const auto library = builtIns(); // named: a range-for over builtIns().hardware() would read a dead temporary
        for (const auto& hw : library.hardware())
            QVERIFY2(text.str().find("| `" + hw.id + "` |") != std::string::npos, hw.id.c_str());
    }

    // Volta has no BF16: its 16-bit training peak is FP16 (125 TFLOPS on SXM2), stored as "fp16" and used as the
    // MFU denominator, labelled FP16. 1e14 FLOP/s achieved per GPU / 125e12 = 0.8.
    void gpuWithoutBf16MeasuresAgainstFp16()
    {
        const auto library = builtIns();
        for (const char* id : { "v100-sxm2-16gb", "v100-sxm2-32gb" }) {
            const auto* v100 = library.findHardware(id);
            QVERIFY(v100);
            QVERIFY(!v100->densePeak(mfu::NumberFormat::BF16));
            QCOMPARE(v100->mfuPeakFormat(), mfu::NumberFormat::FP16);
            QCOMPARE(v100->mfuPeak().value_or(0), 125e12);
            const mfu::MfuResult m = mfu::computeMfu(1e9, 0, 1e5, 8, *v100, mfu::TrainingPrecision::BF16);
            QCOMPARE(m.peakFlopsPerGpu, 125e12);
            QCOMPARE(m.mfu, 0.8);
            QCOMPARE(m.peakFormat, mfu::NumberFormat::FP16);
        }
        // Every other device keeps BF16 as its MFU peak.
        for (const auto& hw : library.hardware())
            if (!hw.id.starts_with("v100"))
                QVERIFY2(hw.mfuPeakFormat() == mfu::NumberFormat::BF16, hw.id.c_str());
    }

    // GeForce cards run BF16 with FP32 accumulate at half the FP16-accumulate rate; the stored peak is the
    // FP32-accumulate one and the source says so. Sparse is exactly twice dense on NVIDIA tensor figures.
    void geforceBf16IsTheFp32AccumulateRate()
    {
        const auto library = builtIns();
        for (const char* id : { "rtx-3090", "rtx-4090", "rtx-5090" }) {
            const auto* hw = library.findHardware(id);
            QVERIFY(hw);
            const auto source = hw->sources.at("peak_dense_tflops.bf16");
            QVERIFY2(source.find("FP32 accumulate") != std::string::npos, source.c_str());
            QCOMPARE(*hw->sparsePeak(mfu::NumberFormat::BF16), 2 * *hw->densePeak(mfu::NumberFormat::BF16));
            // On GeForce the FP32-accumulate tensor rate is twice the FP32 rate (the whitepapers round: 71 vs 35.6).
            const double ratio
                = *hw->densePeak(mfu::NumberFormat::BF16) / (2 * *hw->densePeak(mfu::NumberFormat::FP32));
            QVERIFY2(std::abs(ratio - 1) < 0.01, id);
        }
    }

    // Datasheet figures converted to SI: TFLOPS -> FLOP/s, GB -> bytes, GB/s -> B/s, Gb/s -> B/s.
    void knownFigures_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<QString>("figure");
        QTest::addColumn<double>("expected");
        QTest::newRow("b200 bf16 dense") << "b200"
                                         << "dense.bf16" << 2250e12;
        QTest::newRow("b200 bf16 sparse") << "b200"
                                          << "sparse.bf16" << 4500e12;
        QTest::newRow("b200 fp8 dense") << "b200"
                                        << "dense.fp8" << 4500e12;
        QTest::newRow("b200 memory") << "b200"
                                     << "memory" << 180e9;
        QTest::newRow("b200 nvlink one direction") << "b200"
                                                   << "scale_up" << 900e9;
        QTest::newRow("b200 400 Gb/s") << "b200"
                                       << "scale_out" << 50e9;
        QTest::newRow("b200 domain") << "b200"
                                     << "domain" << 8.0;
        QTest::newRow("a100 bf16 dense") << "a100-sxm-80gb"
                                         << "dense.bf16" << 312e12;
        QTest::newRow("a100 nvlink one direction") << "a100-sxm-80gb"
                                                   << "scale_up" << 300e9;
        QTest::newRow("a100 200 Gb/s") << "a100-sxm-80gb"
                                       << "scale_out" << 25e9;
        QTest::newRow("h100 bf16 dense") << "h100-sxm"
                                         << "dense.bf16" << 989e12;
        QTest::newRow("h100 price (VECTOR Labs article)") << "h100-sxm"
                                                          << "price" << 2.5;
        QTest::newRow("h100 hbm") << "h100-sxm"
                                  << "hbm_bw" << 3350e9;
        QTest::newRow("h100 pcie bf16") << "h100-pcie"
                                        << "dense.bf16" << 756e12;
        QTest::newRow("gb200 domain") << "gb200"
                                      << "domain" << 72.0;
        QTest::newRow("gb300 domain") << "gb300"
                                      << "domain" << 72.0;
        QTest::newRow("gb300 800 Gb/s") << "gb300"
                                        << "scale_out" << 100e9;
        QTest::newRow("gb300 bf16 dense") << "gb300"
                                          << "dense.bf16" << 2500e12;
        // Host links, per GPU and direction: PCIe Gen5 x16 on HGX, Gen4 on A100, NVLink-C2C's 900 GB/s both ways
        // shared by a GB200 superchip's two GPUs, wholly one GH200's.
        QTest::newRow("h100 pcie gen5 host link") << "h100-sxm"
                                                  << "host_link" << 64e9;
        QTest::newRow("b200 pcie gen5 host link") << "b200"
                                                  << "host_link" << 64e9;
        QTest::newRow("a100 pcie gen4 host link") << "a100-sxm-80gb"
                                                  << "host_link" << 32e9;
        QTest::newRow("gb200 c2c host link") << "gb200"
                                             << "host_link" << 225e9;
        QTest::newRow("gb300 c2c host link") << "gb300"
                                             << "host_link" << 225e9;
        QTest::newRow("gh200 c2c host link") << "gh200"
                                             << "host_link" << 450e9;
        QTest::newRow("l4 host link not stated") << "l4"
                                                 << "host_link" << 0.0;
        QTest::newRow("mi300x bf16 dense") << "mi300x"
                                           << "dense.bf16" << 1307.4e12;
        QTest::newRow("tpu v5p bf16") << "tpu-v5p"
                                      << "dense.bf16" << 459e12;
        QTest::newRow("tpu v6e bf16") << "tpu-v6e"
                                      << "dense.bf16" << 918e12;
        QTest::newRow("gaudi3 bf16") << "gaudi3"
                                     << "dense.bf16" << 1835e12;
        // The GPUs added for today's training runs, each against its datasheet (dense = sparse / 2 where the sheet
        // prints only the sparse figure).
        QTest::newRow("v100 fp16 tensor") << "v100-sxm2-16gb"
                                          << "dense.fp16" << 125e12;
        QTest::newRow("v100 32gb memory") << "v100-sxm2-32gb"
                                          << "memory" << 32e9;
        QTest::newRow("v100 hbm") << "v100-sxm2-16gb"
                                  << "hbm_bw" << 900e9;
        QTest::newRow("v100 nvlink one direction") << "v100-sxm2-32gb"
                                                   << "scale_up" << 150e9;
        QTest::newRow("v100 p3.2xlarge price") << "v100-sxm2-16gb"
                                               << "price" << 3.06;
        QTest::newRow("a100 40gb sxm hbm") << "a100-sxm-40gb"
                                           << "hbm_bw" << 1555e9;
        QTest::newRow("a100 40gb sxm bf16") << "a100-sxm-40gb"
                                            << "dense.bf16" << 312e12;
        QTest::newRow("a100 40gb pcie bridge pair") << "a100-pcie-40gb"
                                                    << "domain" << 2.0;
        QTest::newRow("a10g bf16 (A10 sheet)") << "a10g"
                                               << "dense.bf16" << 125e12;
        QTest::newRow("l4 bf16 = 242 sparse / 2") << "l4"
                                                  << "dense.bf16" << 121e12;
        QTest::newRow("l4 fp8 = 485 sparse / 2") << "l4"
                                                 << "dense.fp8" << 242.5e12;
        QTest::newRow("l40s bf16") << "l40s"
                                   << "dense.bf16" << 362.05e12;
        QTest::newRow("rtx 3090 bf16, fp32 accumulate") << "rtx-3090"
                                                        << "dense.bf16" << 71e12;
        QTest::newRow("rtx 3090 bf16 sparse") << "rtx-3090"
                                              << "sparse.bf16" << 142e12;
        QTest::newRow("rtx 4090 bf16, fp32 accumulate") << "rtx-4090"
                                                        << "dense.bf16" << 165.2e12;
        QTest::newRow("rtx 5090 bf16, fp32 accumulate") << "rtx-5090"
                                                        << "dense.bf16" << 209.5e12;
        QTest::newRow("rtx 6000 ada fp8 = 1457 sparse / 2") << "rtx-6000-ada"
                                                            << "dense.fp8" << 728.5e12;
        QTest::newRow("h800 bf16 as h100") << "h800"
                                           << "dense.bf16" << 989e12;
        QTest::newRow("h800 nvlink one direction") << "h800"
                                                   << "scale_up" << 200e9;
        QTest::newRow("h20 bf16") << "h20"
                                  << "dense.bf16" << 148e12;
        QTest::newRow("h100 nvl bf16 = 1671 sparse / 2") << "h100-nvl"
                                                         << "dense.bf16" << 835.5e12;
        QTest::newRow("h100 nvl memory") << "h100-nvl"
                                         << "memory" << 94e9;
        QTest::newRow("gh200 bf16 = 1979 sparse / 2") << "gh200"
                                                      << "dense.bf16" << 989.5e12;
        QTest::newRow("mi250x bf16 per GCD = 383 / 2") << "mi250x"
                                                       << "dense.bf16" << 191.5e12;
        QTest::newRow("mi250x memory per GCD = 128 / 2") << "mi250x"
                                                         << "memory" << 64e9;
        QTest::newRow("mi210 bf16") << "mi210"
                                    << "dense.bf16" << 181e12;
        QTest::newRow("mi300a bf16") << "mi300a"
                                     << "dense.bf16" << 980.6e12;
        QTest::newRow("tpu v4 bf16") << "tpu-v4"
                                     << "dense.bf16" << 275e12;
        QTest::newRow("tpu v4 32 GiB") << "tpu-v4"
                                       << "memory" << 34.36e9;
        QTest::newRow("tpu v5e bf16") << "tpu-v5e"
                                      << "dense.bf16" << 197e12;
        QTest::newRow("tpu v5e price") << "tpu-v5e"
                                       << "price" << 1.2;
        QTest::newRow("trainium2 bf16") << "trainium2"
                                        << "dense.bf16" << 667e12;
        QTest::newRow("gaudi2 bf16") << "gaudi2"
                                     << "dense.bf16" << 432e12;
    }
    void knownFigures()
    {
        QFETCH(QString, id);
        QFETCH(QString, figure);
        QFETCH(double, expected);
        const auto library = builtIns();
        const auto* hw = library.findHardware(id.toStdString());
        QVERIFY(hw);
        double actual = -1;
        if (figure.startsWith("dense.") || figure.startsWith("sparse.")) {
            const auto format = mfu::numberFormatFromKey(figure.section('.', 1).toStdString());
            QVERIFY(format);
            const auto peak = figure.startsWith("dense.") ? hw->densePeak(*format) : hw->sparsePeak(*format);
            QVERIFY(peak);
            actual = *peak;
        } else if (figure == "memory") {
            actual = hw->hbmBytes;
        } else if (figure == "hbm_bw") {
            actual = hw->hbmBandwidthBytesPerSec;
        } else if (figure == "scale_up") {
            actual = hw->scaleUpBandwidthBytesPerSec;
        } else if (figure == "scale_out") {
            actual = hw->scaleOutBandwidthBytesPerSec;
        } else if (figure == "host_link") {
            actual = hw->hostLinkBytesPerSec;
        } else if (figure == "domain") {
            actual = hw->scaleUpDomainGpus;
        } else if (figure == "price") {
            actual = hw->pricePerGpuHourUsd;
        }
        QCOMPARE(actual, expected);
    }

    // Known parameter counts: the sources' figures and the models' published (safetensors) totals.
    void parameterCounts_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<qint64>("total");
        QTest::addColumn<qint64>("embedding"); // -1: not checked
        QTest::addColumn<qint64>("active");
        QTest::newRow("llama-3.1-8b") << "llama-3.1-8b" << 8030261248LL << 525336576LL << 8030261248LL;
        QTest::newRow("llama-3.1-70b") << "llama-3.1-70b" << 70553706496LL << -1LL << 70553706496LL;
        QTest::newRow("llama-3.1-405b") << "llama-3.1-405b" << 405853388800LL << -1LL << 405853388800LL;
        QTest::newRow("llama-3.2-1b tied") << "llama-3.2-1b" << 1235814400LL << 262668288LL << 1235814400LL;
        QTest::newRow("llama-3.2-3b tied") << "llama-3.2-3b" << 3212749824LL << -1LL << 3212749824LL;
        QTest::newRow("qwen2.5-7b qkv bias") << "qwen2.5-7b" << 7615616512LL << -1LL << 7615616512LL;
        QTest::newRow("qwen2.5-72b") << "qwen2.5-72b" << 72706203648LL << -1LL << 72706203648LL;
        QTest::newRow("mistral-7b") << "mistral-7b" << 7241732096LL << -1LL << 7241732096LL;
        QTest::newRow("mixtral-8x7b") << "mixtral-8x7b" << 46702792704LL << -1LL << 12879925248LL;
        QTest::newRow("mixtral-8x22b") << "mixtral-8x22b" << 140620634112LL << -1LL << 39152031744LL;
        QTest::newRow("gpt2") << "gpt2" << 124439808LL << 39383808LL << 124439808LL;
        QTest::newRow("llama-1.36b (B200 scaling report)")
            << "llama-1.36b" << 1294159104LL << 73728000LL << 1294159104LL;
        QTest::newRow("generic-7b bare") << "generic-7b" << 7000000000LL << 0LL << 7000000000LL;
        // Today's models; derivations in tests/core/presets/tst_hf_config_families.cpp.
        QTest::newRow("qwen3-8b (checkpoint)") << "qwen3-8b" << 8190735360LL << 622329856LL << 8190735360LL;
        QTest::newRow("qwen3-32b (32.8B)") << "qwen3-32b" << 32762123264LL << -1LL << 32762123264LL;
        QTest::newRow("qwen3-30b-a3b (30.5B/3.3B)") << "qwen3-30b-a3b" << 30532122624LL << -1LL << 3353032704LL;
        QTest::newRow("qwen3-235b-a22b (235B/22B)") << "qwen3-235b-a22b" << 235093634560LL << -1LL << 22190763520LL;
        QTest::newRow("gpt-oss-20b (20.91B)") << "gpt-oss-20b" << 20914757184LL << 579133440LL << 4187440704LL;
        QTest::newRow("gpt-oss-120b (116.83B)") << "gpt-oss-120b" << 116829156672LL << 579133440LL << 5711982912LL;
        QTest::newRow("llama-4-scout text") << "llama-4-scout" << 107769861120LL << -1LL << 17172894720LL;
        QTest::newRow("llama-4-maverick text (400B/17B)")
            << "llama-4-maverick" << 400711848960LL << -1LL << 17184691200LL;
        QTest::newRow("gemma-3-27b text, tied") << "gemma-3-27b" << 27009346304LL << 1409630208LL << 27009346304LL;
        QTest::newRow("mistral-nemo-12b") << "mistral-nemo-12b" << 12247782400LL << -1LL << 12247782400LL;
        QTest::newRow("phi-4 (14.7B)") << "phi-4" << 14659507200LL << -1LL << 14659507200LL;
        // Layers of their own shapes; derivations in tests/core/presets/tst_hf_config_layer_shapes.cpp.
        QTest::newRow("gemma-4-26b-a4b (25.2B/3.8B)")
            << "gemma-4-26b-a4b" << 25233141760LL << 738197504LL << 3822530560LL;
        QTest::newRow("mimo-7b (main model)") << "mimo-7b" << 7622619136LL << 621281280LL << 7622619136LL;
        QTest::newRow("mimo-v2-flash (309B/15B)") << "mimo-v2-flash" << 308778780864LL << -1LL << 15445936320LL;
        QTest::newRow("step-3.7-flash (196B/11B)") << "step-3.7-flash" << 195832700736LL << -1LL << 10863894336LL;
        QTest::newRow("llama-3.3-nemotron-super-49b, pruned layers")
            << "llama-3.3-nemotron-super-49b" << 49867145216LL << 1050673152LL << 49867145216LL;
        // Hybrid and sparse-attention flagships; derivations in tests/core/presets/tst_hf_config_hybrid.cpp.
        QTest::newRow("qwen3.5-27b (27B)") << "qwen3.5-27b" << 26895998464LL << -1LL << 26895998464LL;
        QTest::newRow("qwen3.5-397b-a17b") << "qwen3.5-397b-a17b" << 396346350336LL << -1LL << 17349040896LL;
        QTest::newRow("nemotron-3-nano (31.6B/3.6B)")
            << "nemotron-3-nano-30b-a3b" << 31577940288LL << -1LL << 3580076352LL;
        QTest::newRow("nemotron-3-ultra, latent MoE")
            << "nemotron-3-ultra-550b-a55b" << 549308993536LL << -1LL << 56058843136LL;
        QTest::newRow("deepseek-v3.2 (V3 + indexers)") << "deepseek-v3.2" << 671877944064LL << -1LL << 38403822336LL;
        QTest::newRow("glm-5 (744B)") << "glm-5" << 743911218432LL << -1LL << 41784728832LL;
        // New token mixers and 2026 flagships; derivations in tests/core/presets/tst_hf_config_flagships.cpp.
        QTest::newRow("kimi-k2.5 text (1T/32B)") << "kimi-k2.5" << 1026408232448LL << 1174405120LL << 32861500928LL;
        QTest::newRow("kimi-k3 text, KDA + MLA") << "kimi-k3" << 2779481795168LL << 1174405120LL << 105361336928LL;
        QTest::newRow("deepseek-v4-flash (284B/13B)")
            << "deepseek-v4-flash" << 284332241239LL << 529530880LL << 13799633239LL;
        QTest::newRow("deepseek-v4-pro (1.6T/49B)")
            << "deepseek-v4-pro" << 1572997202915LL << 926679040LL << 49779082211LL;
        QTest::newRow("minimax-m2.5 (230B/10B)") << "minimax-m2.5" << 228689764864LL << 614596608LL << 11030553088LL;
        QTest::newRow("minimax-m3, block-sparse") << "minimax-m3" << 426174558336LL << 1229193216LL << 25962459264LL;
    }
    void parameterCounts()
    {
        QFETCH(QString, id);
        QFETCH(qint64, total);
        QFETCH(qint64, embedding);
        QFETCH(qint64, active);
        const auto library = builtIns();
        const auto* model = library.findModel(id.toStdString());
        QVERIFY(model);
        const auto counts = mfu::countParameters(*model);
        QCOMPARE(counts.total, total);
        if (embedding >= 0)
            QCOMPARE(counts.embedding, embedding);
        QCOMPARE(counts.active, active);
    }

    // DeepSeek-V3's report gives only rounded figures: 671B total, 37B activated (MTP module not counted).
    void deepSeekV3RoundedFigures()
    {
        const auto library = builtIns();
        const auto* model = library.findModel("deepseek-v3");
        QVERIFY(model);
        QVERIFY(model->isMoe() && model->mla.enabled);
        const auto counts = mfu::countParameters(*model);
        QVERIFY2(std::abs(double(counts.total) / 671e9 - 1) < 0.005, std::to_string(counts.total).c_str());
        QVERIFY2(std::abs(double(counts.active) / 37e9 - 1) < 0.02, std::to_string(counts.active).c_str());
    }

    void gpt3NativeFields()
    {
        const auto library = builtIns();
        const auto* gpt3 = library.findModel("gpt-3-175b");
        QVERIFY(gpt3);
        QCOMPARE(gpt3->activation, mfu::FfnActivation::GELU);
        QCOMPARE(gpt3->norm, mfu::NormKind::LayerNorm);
        QVERIFY(gpt3->linearBias && gpt3->tiedEmbeddings);
        QCOMPARE(gpt3->learnedPositions, int64_t(2048));
        // Brown et al. 2020 state 175.0B; the count from the architecture is 174.6B.
        QCOMPARE(mfu::countParameters(*gpt3).total, int64_t(174604259328));
    }

    // A user file loaded after the built-ins replaces entries by id, in place, and may add new ones.
    void userFileOverridesById()
    {
        auto library = builtIns();
        const size_t hardwareCount = library.hardware().size();
        json user = goodGpu("b200");
        user["name"] = "B200 (our contract)";
        user["price_per_gpu_hour_usd"] = 3.1;
        library.loadText("user/b200.json",
            json { { "format", "mfu-explorer-hardware" }, { "version", 1 }, { "hardware", { user, goodGpu("mine") } } }
                .dump());
        QVERIFY2(library.problems().empty(), problemsText(library).c_str());
        QCOMPARE(library.hardware().size(), hardwareCount + 1);
        QCOMPARE(library.findHardware("b200")->pricePerGpuHourUsd, 3.1);
        QCOMPARE(library.findHardware("b200")->name, std::string("B200 (our contract)"));
        QVERIFY(library.findHardware("mine"));

        const size_t modelCount = library.models().size();
        json model = goodModel("llama-3.1-8b");
        library.loadText("user/models.json", modelFile(model));
        QCOMPARE(library.models().size(), modelCount + 1); // "good" is new, llama-3.1-8b replaced
        QCOMPARE(library.findModel("llama-3.1-8b")->layers, 2);
    }

    void badInput_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("reason");
        QTest::addColumn<bool>("goodLoads");

        QTest::newRow("not JSON") << "{ \"format\": \"mfu-explorer-hardware\", \"version\": 1, \"hardware\": [ }"
                                  << ""
                                  << "not valid JSON at byte 66" << false;
        QTest::newRow("empty file") << "  "
                                    << ""
                                    << "empty" << false;
        QTest::newRow("not an object") << "[1, 2]"
                                       << ""
                                       << "expected an object" << false;
        QTest::newRow("unknown format") << "{ \"format\": \"mfu-hardware\", \"version\": 1, \"hardware\": [] }"
                                        << "format"
                                        << "unknown format \"mfu-hardware\"" << false;
        QTest::newRow("newer version") << "{ \"format\": \"mfu-explorer-hardware\", \"version\": 2, \"hardware\": [] }"
                                       << "version"
                                       << "newer" << false;
        QTest::newRow("list missing") << "{ \"format\": \"mfu-explorer-models\", \"version\": 1 }"
                                      << "models"
                                      << "missing" << false;

        auto bad = goodGpu("bad");
        bad["sources"].erase("memory_gb");
        QTest::newRow("missing source") << QString::fromStdString(hardwareFile(bad)) << "hardware[1].memory_gb"
                                        << "has no source" << true;
        bad = goodGpu("bad");
        bad["peak_dense_tflops"]["bf16"] = -5;
        QTest::newRow("negative peak") << QString::fromStdString(hardwareFile(bad))
                                       << "hardware[1].peak_dense_tflops.bf16"
                                       << "must be positive" << true;
        bad = goodGpu("bad");
        bad["peak_sparse_tflops"]["bf16"] = 500;
        QTest::newRow("sparse below dense")
            << QString::fromStdString(hardwareFile(bad)) << "hardware[1].peak_sparse_tflops.bf16"
            << "below the dense" << true;
        bad = goodGpu("bad");
        bad["memory_gb"] = "80";
        QTest::newRow("wrong type") << QString::fromStdString(hardwareFile(bad)) << "hardware[1].memory_gb"
                                    << "expected a number, found a string" << true;
        bad = goodGpu("bad");
        bad["scale_up"]["domain_gpus"] = 7.5;
        QTest::newRow("fractional domain")
            << QString::fromStdString(hardwareFile(bad)) << "hardware[1].scale_up.domain_gpus"
            << "whole number" << true;
        bad = goodGpu("bad");
        bad["peak_dense_tflops"].erase("bf16");
        QTest::newRow("no bf16 dense") << QString::fromStdString(hardwareFile(bad))
                                       << "hardware[1].peak_dense_tflops.bf16"
                                       << "missing" << true;
        bad = goodGpu("bad");
        bad["peak_dense_tflops"]["FP16"] = 1000;
        QTest::newRow("number format not lower-case")
            << QString::fromStdString(hardwareFile(bad)) << "hardware[1].peak_dense_tflops.FP16"
            << "unknown number format" << true;
        bad = goodGpu("bad");
        bad["peak_dense_tflops"]["int8"] = 1000;
        QTest::newRow("unknown number format")
            << QString::fromStdString(hardwareFile(bad)) << "hardware[1].peak_dense_tflops.int8"
            << "unknown number format" << true;
        bad = goodGpu("bad");
        bad["match"] = "NVIDIA H100";
        QTest::newRow("match not a list") << QString::fromStdString(hardwareFile(bad)) << "hardware[1].match"
                                          << "must be an array" << true;
        bad = goodGpu("bad");
        bad["match"] = json::array({ "NVIDIA H100", 7 });
        QTest::newRow("match entry not a string") << QString::fromStdString(hardwareFile(bad)) << "hardware[1].match[1]"
                                                  << "must be a string" << true;
        bad = goodGpu("bad");
        bad["match"] = json::array({ "**" });
        QTest::newRow("match everything") << QString::fromStdString(hardwareFile(bad)) << "hardware[1].match[0]"
                                          << "only wildcards" << true;
        bad = goodGpu("bad");
        bad["memroy_gb"] = 80;
        QTest::newRow("misspelt key") << QString::fromStdString(hardwareFile(bad)) << "hardware[1].memroy_gb"
                                      << "unknown key" << true;
        bad = goodGpu("bad");
        bad["sources"]["power_watts"] = "sheet";
        QTest::newRow("source of nothing")
            << QString::fromStdString(hardwareFile(bad)) << "hardware[1].sources.power_watts"
            << "names no figure" << true;
        bad = goodGpu("bad");
        bad["memory_gb"] = 80e9;
        QTest::newRow("bytes in a GB field") << QString::fromStdString(hardwareFile(bad)) << "hardware[1].memory_gb"
                                             << "implausibly large" << true;
        // A figure near zero printed inf s and NaN% in every surface: each is held to a floor below any accelerator.
        bad = goodGpu("bad");
        bad["peak_dense_tflops"]["bf16"] = 1e-300;
        QTest::newRow("peak near zero") << QString::fromStdString(hardwareFile(bad))
                                        << "hardware[1].peak_dense_tflops.bf16"
                                        << "under 0.1 TFLOPS" << true;
        bad = goodGpu("bad");
        bad["hbm_bandwidth_gbps"] = 1e-300;
        QTest::newRow("bandwidth near zero")
            << QString::fromStdString(hardwareFile(bad)) << "hardware[1].hbm_bandwidth_gbps"
            << "implausibly small" << true;
        bad = goodGpu("bad");
        bad["memory_gb"] = 1e-300;
        QTest::newRow("memory near zero") << QString::fromStdString(hardwareFile(bad)) << "hardware[1].memory_gb"
                                          << "implausibly small" << true;
        // The host link: one object like scale_up, its figure with a source, unknown keys and nonsense refused.
        bad = goodGpu("bad");
        bad["host_link"] = json { { "name", "PCIe Gen5 x16" }, { "bandwidth_gbps", 64 } };
        QTest::newRow("host link without a source")
            << QString::fromStdString(hardwareFile(bad)) << "hardware[1].host_link.bandwidth_gbps"
            << "has no source" << true;
        bad["sources"]["host_link"] = "sheet";
        bad["host_link"]["lanes"] = 16;
        QTest::newRow("host link unknown key")
            << QString::fromStdString(hardwareFile(bad)) << "hardware[1].host_link.lanes"
            << "unknown key" << true;
        bad["host_link"].erase("lanes");
        bad["host_link"]["bandwidth_gbps"] = -64;
        QTest::newRow("host link negative")
            << QString::fromStdString(hardwareFile(bad)) << "hardware[1].host_link.bandwidth_gbps"
            << "must not be negative" << true;
        bad["host_link"]["bandwidth_gbps"] = 64e9;
        QTest::newRow("host link in bytes")
            << QString::fromStdString(hardwareFile(bad)) << "hardware[1].host_link.bandwidth_gbps"
            << "implausibly large" << true;
        QTest::newRow("duplicate id") << QString::fromStdString(hardwareFile(goodGpu("good"))) << "hardware[1].id"
                                      << "appears earlier" << true;

        auto badModel = goodModel("bad");
        badModel["activation"] = "relu2";
        QTest::newRow("model activation") << QString::fromStdString(modelFile(badModel)) << "models[1].activation"
                                          << "not swiglu or gelu" << true;
        badModel = goodModel("bad");
        badModel["params"] = 7e9;
        QTest::newRow("model two kinds") << QString::fromStdString(modelFile(badModel)) << "models[1]"
                                         << "exactly one" << true;
        badModel = json { { "id", "bad" }, { "name", "Bare" }, { "source", "test" }, { "params", -7 } };
        QTest::newRow("model negative params") << QString::fromStdString(modelFile(badModel)) << "models[1].params"
                                               << "must be between" << true;
        badModel = json { { "id", "bad" }, { "name", "HF" }, { "source", "test" },
            { "hf_config", { { "model_type", "llama" }, { "hidden_size", 64 } } } };
        QTest::newRow("hf_config missing key") << QString::fromStdString(modelFile(badModel)) << "models[1].hf_config"
                                               << "num_hidden_layers" << true;
        badModel = goodModel("Bad Id");
        QTest::newRow("model id with spaces") << QString::fromStdString(modelFile(badModel)) << "models[1].id"
                                              << "lower-case" << true;
    }
    void badInput()
    {
        QFETCH(QString, text);
        QFETCH(QString, key);
        QFETCH(QString, reason);
        QFETCH(bool, goodLoads);
        mfu::PresetLibrary library;
        library.loadText("bad.json", text.toStdString());
        QCOMPARE(library.problems().size(), size_t(1));
        const auto& problem = library.problems().front();
        QCOMPARE(problem.file, std::string("bad.json"));
        QCOMPARE(QString::fromStdString(problem.key), key);
        QVERIFY2(QString::fromStdString(problem.reason).contains(reason), problem.message().c_str());
        QVERIFY(QString::fromStdString(problem.message()).startsWith("bad.json: "));
        const bool loaded = library.findHardware("good") != nullptr || library.findModel("good") != nullptr;
        QCOMPARE(loaded, goodLoads);
        QVERIFY(!library.findHardware("bad") && !library.findModel("bad"));
    }

    void missingFolderIsNotAProblem()
    {
        mfu::PresetLibrary library;
        library.loadDirectory(kPresetDir / "no-such-folder");
        QVERIFY(library.problems().empty());
        QVERIFY(library.hardware().empty());
    }

    // validateHardwareSpec on a spec built in code (a GUI custom device): no sources needed, figures checked.
    void validateHardwareSpecDirectly()
    {
        mfu::HardwareSpec spec;
        spec.id = "custom";
        spec.name = "Custom";
        spec.peakDenseFlops[size_t(mfu::NumberFormat::BF16)] = 1000e12;
        spec.hbmBytes = 80e9;
        spec.hbmBandwidthBytesPerSec = 3e12;
        mfu::validateHardwareSpec(spec); // must not throw
        auto expectError = [](const mfu::HardwareSpec& s, const std::string& start) {
            try {
                mfu::validateHardwareSpec(s);
            } catch (const mfu::InputError& e) {
                return std::string(e.what()).rfind(start, 0) == 0;
            }
            return false;
        };
        auto sparse = spec;
        sparse.peakSparseFlops[size_t(mfu::NumberFormat::BF16)] = 900e12;
        QVERIFY(expectError(sparse, "peak_sparse_tflops.bf16: sparse figure 900 is below the dense 1000"));
        auto noBf16 = spec;
        noBf16.peakDenseFlops[size_t(mfu::NumberFormat::BF16)].reset();
        QVERIFY(expectError(noBf16, "peak_dense_tflops.bf16: missing"));
        auto domain = spec;
        domain.scaleUpDomainGpus = 0;
        QVERIFY(expectError(domain, "scale_up.domain_gpus"));
        auto memory = spec;
        memory.hbmBytes = 0;
        QVERIFY(expectError(memory, "memory_gb: must be positive"));
    }

    // The cluster's own network in place of the preset's typical one: stored per GPU in bytes/s, said stated, and
    // refused outside 1 to 800,000 Gb/s.
    void aStatedNetwork()
    {
        mfu::HardwareSpec h = *builtIns().findHardware("a100-sxm-80gb");
        QVERIFY(!mfu::scaleOutStated(h));
        mfu::setStatedScaleOut(h, 12.5);
        QCOMPARE(h.scaleOutBandwidthBytesPerSec, 12.5e9 / 8);
        QVERIFY(mfu::scaleOutStated(h));
        QCOMPARE(mfu::scaleOutGbitPerSec(h), 12.5);
        for (const double bad : { 0.5, 0.0, -100.0, 1e6, std::nan("") })
            QVERIFY_THROWS_EXCEPTION(mfu::InputError, mfu::setStatedScaleOut(h, bad));
        QCOMPARE(mfu::scaleOutGbitPerSec(h), 12.5); // a refused figure leaves the last
    }

    void singleEntryParsersThrowWithKey()
    {
        auto bad = goodGpu("bad");
        bad["memory_gb"] = 0;
        QVERIFY_THROWS_EXCEPTION(mfu::InputError, mfu::hardwareFromPresetJson(bad));
        try {
            mfu::hardwareFromPresetJson(bad);
        } catch (const mfu::InputError& e) {
            QCOMPARE(std::string(e.what()), std::string("memory_gb: must be positive"));
        }
        const auto spec = mfu::hardwareFromPresetJson(goodGpu("ok"));
        QCOMPARE(spec.sources.at("peak_dense_tflops.fp8"), std::string("sheet, 2024")); // group source resolved
    }
};

QTEST_GUILESS_MAIN(TestPresets)
#include "tst_presets.moc"
