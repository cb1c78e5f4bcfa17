// GPU name -> hardware preset through the presets' "match" patterns: every name a trace (deviceProperties), Nsight
// (TARGET_INFO_GPU) or a training log gives for the GPUs we ship maps to the right preset; ambiguous and unknown
// names propose none and say why; a user preset file adds a name without code.
#include <QtTest>

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/presets/gpu_match.h"
#include "core/presets/presets.h"
#include "core/relative_gap.h"

using nlohmann::json;

namespace {

mfu::PresetLibrary builtIns()
{
    mfu::PresetLibrary library;
    library.loadDirectory(std::filesystem::path(MFU_SOURCE_DIR) / "presets");
    return library;
}

} // namespace

class TestGpuMatch : public QObject {
    Q_OBJECT
private slots:
    void builtInNames_data()
    {
        QTest::addColumn<QString>("gpuName");
        QTest::addColumn<QString>("preset");
        // torch.cuda.get_device_name / Kineto deviceProperties / nvidia-smi names.
        QTest::newRow("V100 16GB") << "Tesla V100-SXM2-16GB"
                                   << "v100-sxm2-16gb";
        QTest::newRow("V100 32GB") << "Tesla V100-SXM2-32GB"
                                   << "v100-sxm2-32gb";
        // Meta's A100 boards: the HolisticTraceAnalysis trace's totalGlobalMem is 42,297,524,224 bytes = 40 GB part.
        QTest::newRow("A100 PG509-200") << "NVIDIA A100-PG509-200"
                                        << "a100-sxm-40gb";
        QTest::newRow("A100 SXM4 80GB") << "NVIDIA A100-SXM4-80GB"
                                        << "a100-sxm-80gb";
        QTest::newRow("A100 SXM4 40GB") << "NVIDIA A100-SXM4-40GB"
                                        << "a100-sxm-40gb";
        QTest::newRow("A100 PCIe 40GB") << "NVIDIA A100-PCIE-40GB"
                                        << "a100-pcie-40gb";
        QTest::newRow("A800") << "NVIDIA A800-SXM4-80GB"
                              << "a800-sxm-80gb";
        QTest::newRow("RTX 3090") << "NVIDIA GeForce RTX 3090"
                                  << "rtx-3090";
        QTest::newRow("RTX 4090") << "NVIDIA GeForce RTX 4090"
                                  << "rtx-4090";
        QTest::newRow("RTX 5090") << "NVIDIA GeForce RTX 5090"
                                  << "rtx-5090";
        QTest::newRow("RTX 6000 Ada") << "NVIDIA RTX 6000 Ada Generation"
                                      << "rtx-6000-ada";
        QTest::newRow("MI210") << "AMD Instinct MI210"
                               << "mi210";
        QTest::newRow("MI250X") << "AMD Instinct MI250X"
                                << "mi250x";
        QTest::newRow("MI250X/MI250 (rocm)") << "AMD Instinct MI250X/MI250"
                                             << "mi250x";
        QTest::newRow("MI300X") << "AMD Instinct MI300X"
                                << "mi300x";
        QTest::newRow("MI300A") << "AMD Instinct MI300A"
                                << "mi300a";
        QTest::newRow("MI325X") << "AMD Instinct MI325X"
                                << "mi325x";
        QTest::newRow("MI355X") << "AMD Instinct MI355X"
                                << "mi355x";
        QTest::newRow("MI350X") << "AMD Instinct MI350X"
                                << "mi350x";
        QTest::newRow("H100 SXM") << "NVIDIA H100 80GB HBM3"
                                  << "h100-sxm";
        QTest::newRow("H100 PCIe") << "NVIDIA H100 PCIe"
                                   << "h100-pcie";
        QTest::newRow("H100 NVL") << "NVIDIA H100 NVL"
                                  << "h100-nvl";
        QTest::newRow("H200") << "NVIDIA H200"
                              << "h200";
        QTest::newRow("H800") << "NVIDIA H800"
                              << "h800";
        QTest::newRow("H20") << "NVIDIA H20"
                             << "h20";
        QTest::newRow("GH200 480GB") << "NVIDIA GH200 480GB"
                                     << "gh200";
        QTest::newRow("B200") << "NVIDIA B200"
                              << "b200";
        QTest::newRow("B300") << "NVIDIA B300"
                              << "b300";
        QTest::newRow("GB200 (contains B200)") << "NVIDIA GB200"
                                               << "gb200";
        QTest::newRow("GB300") << "NVIDIA GB300"
                               << "gb300";
        QTest::newRow("L4") << "NVIDIA L4"
                            << "l4";
        QTest::newRow("A10G") << "NVIDIA A10G"
                              << "a10g";
        QTest::newRow("L40S") << "NVIDIA L40S"
                              << "l40s";
        // Nsight Systems' TARGET_INFO_GPU / TARGET_INFO_CUDA_GPU name column carries the same CUDA device names.
        QTest::newRow("Nsight V100") << "Tesla V100-SXM2-32GB"
                                     << "v100-sxm2-32gb";
        QTest::newRow("Nsight H100") << "NVIDIA H100 80GB HBM3"
                                     << "h100-sxm";
        // Training logs ("Device: NVIDIA B200", "GPU capacity: NVIDIA H100 80GB HBM3 (...)"): case and spaces.
        QTest::newRow("log, padded") << "  NVIDIA B200 "
                                     << "b200";
        QTest::newRow("log, lower case") << "nvidia h100 80gb hbm3"
                                         << "h100-sxm";
        QTest::newRow("TPU v4 (jax device_kind)") << "TPU v4"
                                                  << "tpu-v4";
        QTest::newRow("TPU v5e (jax device_kind)") << "TPU v5 lite"
                                                   << "tpu-v5e";
        QTest::newRow("TPU v5p (jax device_kind)") << "TPU v5"
                                                   << "tpu-v5p";
        QTest::newRow("TPU v6e (jax device_kind)") << "TPU v6 lite"
                                                   << "tpu-v6e";
        QTest::newRow("Trainium2") << "AWS Trainium2"
                                   << "trainium2";
        QTest::newRow("Gaudi 2") << "Intel Gaudi 2"
                                 << "gaudi2";
        QTest::newRow("Gaudi 3") << "Intel Gaudi 3"
                                 << "gaudi3";
        // Parts with other peaks or memory that have no preset: no preset rather than a wrong one.
        QTest::newRow("V100 PCIe (112 TFLOPS)") << "Tesla V100-PCIE-16GB"
                                                << "";
        QTest::newRow("RTX 3090 Ti") << "NVIDIA GeForce RTX 3090 Ti"
                                     << "";
        QTest::newRow("H200 NVL") << "NVIDIA H200 NVL"
                                  << "";
        QTest::newRow("GH200 144GB HBM3e") << "NVIDIA GH200 144G HBM3e"
                                           << "";
        QTest::newRow("L40 (not L40S, not L4)") << "NVIDIA L40"
                                                << "";
        QTest::newRow("unknown") << "NVIDIA RTX A6000"
                                 << "";
        QTest::newRow("empty") << "   "
                               << "";
    }
    void builtInNames()
    {
        QFETCH(QString, gpuName);
        QFETCH(QString, preset);
        const auto library = builtIns();
        QVERIFY(library.problems().empty());
        const mfu::GpuMatch match = mfu::matchGpuName(gpuName.toStdString(), library.hardware());
        QCOMPARE(QString::fromStdString(match.presetId.value_or("")), preset);
        QVERIFY(!match.ambiguous());
        if (!preset.isEmpty())
            QVERIFY(library.findHardware(preset.toStdString()));
    }

    // A name without the memory size (40 GB SXM4, 40 GB PCIe and 80 GB SXM4 differ in memory and bandwidth, though
    // not in peak) or the form factor proposes no preset and lists the candidates.
    void ambiguousNames_data()
    {
        QTest::addColumn<QString>("gpuName");
        QTest::addColumn<QStringList>("candidates");
        QTest::newRow("A100") << "NVIDIA A100" << QStringList { "a100-pcie-40gb", "a100-sxm-40gb", "a100-sxm-80gb" };
        QTest::newRow("H100") << "NVIDIA H100" << QStringList { "h100-nvl", "h100-pcie", "h100-sxm" };
    }
    void ambiguousNames()
    {
        QFETCH(QString, gpuName);
        QFETCH(QStringList, candidates);
        const auto library = builtIns();
        const mfu::GpuMatch match = mfu::matchGpuName(gpuName.toStdString(), library.hardware());
        QVERIFY(!match.presetId);
        QVERIFY(match.ambiguous());
        QStringList ids;
        for (const auto& id : match.candidates)
            ids << QString::fromStdString(id);
        ids.sort();
        QCOMPARE(ids, candidates);
        const std::string hint = mfu::unmatchedGpuHint(gpuName.toStdString(), match, "/home/me/presets");
        QVERIFY2(hint.find("could be any of") != std::string::npos, hint.c_str());
        QVERIFY2(hint.find(match.candidates.front()) != std::string::npos, hint.c_str());
    }

    void unmatchedHintSaysHowToAddAPreset()
    {
        const auto library = builtIns();
        const mfu::GpuMatch match = mfu::matchGpuName("NVIDIA RTX A6000", library.hardware());
        const std::string hint = mfu::unmatchedGpuHint("NVIDIA RTX A6000", match, "/home/me/presets");
        for (const char* part : { "NVIDIA RTX A6000", "\"match\"", "/home/me/presets", "--gpu" })
            QVERIFY2(hint.find(part) != std::string::npos, hint.c_str());
    }

    // The gap every agreement check measures: a share of the larger figure, symmetric, and nothing agrees with a NaN
    // or an infinity (a log's "inf" TFLOPS names no GPU).
    void relativeGapIsAShareOfTheLarger()
    {
        QCOMPARE(mfu::relativeGap(2250, 2300), 50.0 / 2300);
        QCOMPARE(mfu::relativeGap(2300, 2250), 50.0 / 2300);
        QCOMPARE(mfu::relativeGap(-1, 1), 2.0); // opposite signs: apart by twice the larger
        QCOMPARE(mfu::relativeGap(0, 0), 0.0);
        QCOMPARE(mfu::relativeGap(0, 5), 1.0);
        QVERIFY(mfu::agreeWithin(989.4, 989.5, 0.0005));
        QVERIFY(!mfu::agreeWithin(2250, 2300, 0.02));
        QVERIFY(mfu::agreeWithin(2250, 2300, 0.03));
        QVERIFY(!mfu::agreeWithin(std::nan(""), std::nan(""), 1.0));
        QVERIFY(!mfu::agreeWithin(INFINITY, INFINITY, 1.0));
        QVERIFY(!mfu::agreeWithin(1e308, INFINITY, 1.0));
    }

    // A log's TFLOPS / MFU names a GPU by its peak, good to the log's rounding (3%). B200's 2,250 and MI350X's 2,300
    // TFLOPS lie within it of each other, and amd.json loads before nvidia.json: the nearest peak must lead, not the
    // first file's.
    void peakNamesTheNearestGpuFirst()
    {
        const auto library = builtIns();
        const auto idsOf = [&](double peakTflops) {
            std::vector<std::string> ids;
            for (const mfu::HardwareSpec* h : mfu::gpusOfDensePeak(peakTflops * 1e12, library.hardware(), 0.03))
                ids.push_back(h->id);
            return ids;
        };
        const auto b200 = idsOf(2250);
        QVERIFY(b200.size() >= 2);
        QCOMPARE(b200.front(), std::string("b200"));
        QCOMPARE(b200.back(), std::string("mi350x")); // 2.2% away, after every GPU of exactly 2,250
        const auto mi350x = idsOf(2300);
        QCOMPARE(mi350x.front(), std::string("mi350x"));
        QVERIFY(std::find(mi350x.begin(), mi350x.end(), "b200") != mi350x.end());
        // GPUs of one peak keep their file order (the memory the log's device has tells them apart).
        const auto cdna3 = idsOf(1307.4);
        QVERIFY(cdna3.size() >= 2);
        QCOMPARE(cdna3[0], std::string("mi300x"));
        QCOMPARE(cdna3[1], std::string("mi325x"));
        QVERIFY(idsOf(1650).empty()); // no GPU's peak within 3%
    }

    // Every built-in pattern is reachable: each preset's exact names (no wildcard) map back to that preset.
    void everyExactPatternMapsToItsPreset()
    {
        const auto library = builtIns();
        int exact = 0;
        for (const auto& hw : library.hardware()) {
            QVERIFY2(!hw.matchPatterns.empty(), hw.id.c_str());
            for (const auto& pattern : hw.matchPatterns)
                if (pattern.find_first_of("*?") == std::string::npos) {
                    ++exact;
                    QCOMPARE(mfu::proposeHardwarePresetId(pattern, library.hardware()).value_or(""), hw.id);
                }
        }
        QVERIFY(exact >= 37);
    }

    void globRules_data()
    {
        QTest::addColumn<QString>("pattern");
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("matches");
        QTest::newRow("exact") << "NVIDIA L4"
                               << "NVIDIA L4" << true;
        QTest::newRow("case") << "nvidia l4"
                              << "NVIDIA L4" << true;
        QTest::newRow("whole name only") << "NVIDIA L4"
                                         << "NVIDIA L40S" << false;
        QTest::newRow("star anywhere") << "*H100*SXM*"
                                       << "NVIDIA H100 SXM5 80GB" << true;
        QTest::newRow("star empty") << "*B200*"
                                    << "B200" << true;
        QTest::newRow("question mark") << "*MI3?0X*"
                                       << "AMD Instinct MI300X" << true;
        QTest::newRow("trailing star only after literal") << "*RTX 3090"
                                                          << "NVIDIA GeForce RTX 3090 Ti" << false;
        QTest::newRow("backtracking") << "*a*b*c"
                                      << "aXbXaXbXc" << true;
        QTest::newRow("no backtracking match") << "*a*b*c"
                                               << "aXbXaXbXd" << false;
    }
    void globRules()
    {
        QFETCH(QString, pattern);
        QFETCH(QString, name);
        QFETCH(bool, matches);
        QCOMPARE(mfu::gpuPatternMatches(pattern.toStdString(), name.toStdString()), matches);
    }

    // The user presets folder adds a GPU with its names, or re-points a name by overriding a built-in by id.
    void userPresetFileAddsNames()
    {
        auto library = builtIns();
        const std::string sheet = "NVIDIA RTX A6000 datasheet, 2020";
        const json a6000 { { "id", "rtx-a6000" }, { "name", "NVIDIA RTX A6000" }, { "vendor", "NVIDIA" },
            { "match", { "NVIDIA RTX A6000" } }, { "peak_dense_tflops", { { "bf16", 154.8 } } }, { "memory_gb", 48 },
            { "hbm_bandwidth_gbps", 768 },
            { "sources",
                { { "peak_dense_tflops", sheet }, { "memory_gb", sheet }, { "hbm_bandwidth_gbps", sheet } } } };
        library.loadText("user/a6000.json",
            json { { "format", "mfu-explorer-hardware" }, { "version", 1 }, { "hardware", { a6000 } } }.dump());
        QVERIFY(library.problems().empty());
        QCOMPARE(mfu::proposeHardwarePresetId("NVIDIA RTX A6000", library.hardware()).value_or(""),
            std::string("rtx-a6000"));

        // A user who knows their "NVIDIA A100" cluster is the 80 GB part overrides that built-in with the name added.
        QVERIFY(!mfu::proposeHardwarePresetId("NVIDIA A100", library.hardware()));
        mfu::HardwareSpec ours = *library.findHardware("a100-sxm-80gb");
        ours.matchPatterns.push_back("NVIDIA A100");
        library.addHardware(ours);
        QCOMPARE(
            mfu::proposeHardwarePresetId("NVIDIA A100", library.hardware()).value_or(""), std::string("a100-sxm-80gb"));
    }
};

QTEST_GUILESS_MAIN(TestGpuMatch)
#include "tst_gpu_match.moc"
