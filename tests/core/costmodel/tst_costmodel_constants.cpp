// Cost-model constants as data: JSON round trip, per-key overrides in a hardware preset, errors that name the key,
// and the constants surviving a scenario file.
#include <QtTest>

#include <nlohmann/json.hpp>

#include "core/costmodel/cost_model.h"
#include "core/errors.h"
#include "core/model/cost_model_constants_json.h"
#include "core/presets/presets.h"
#include "core/report/hardware_options.h"
#include "core/scenario/scenario_file.h"
#include "costmodel_fixtures.h"

using namespace mfu;
using namespace mfu::test;

namespace {
const char* kPreset = R"({ "format": "mfu-explorer-hardware", "version": 1, "hardware": [ {
  "id": "test-gpu", "name": "Test GPU", "vendor": "NVIDIA",
  "peak_dense_tflops": { "bf16": 1000 }, "memory_gb": 100, "hbm_bandwidth_gbps": 4000,
  "scale_up": { "domain_gpus": 8, "bandwidth_gbps": 450 }, "scale_out_gbitps": 400,
  "sources": { "peak_dense_tflops.bf16": "test", "memory_gb": "test", "hbm_bandwidth_gbps": "test",
               "scale_up.domain_gpus": "test", "scale_up.bandwidth_gbps": "test", "scale_out_gbitps": "test" },
  "cost_model": { "gemm_efficiency": 0.5, "cross_domain_rings": 2, "basis": "measured on our cluster" } } ] })";
} // namespace

class TestCostModelConstants : public QObject {
    Q_OBJECT
private slots:
    void roundTrip()
    {
        CostModelConstants c = defaultCostModelConstants(presetHardware("h100-sxm"));
        c.gemmEfficiency = 0.61;
        c.crossDomainRings = 3;
        const nlohmann::json j = costModelConstantsToJson(c);
        QCOMPARE(j["gemm_efficiency"].get<double>(), 0.61);
        const CostModelConstants back = costModelConstantsFromJson(j, CostModelConstants {}, "x");
        QCOMPARE(costModelConstantsToJson(back), j);
    }

    void presetOverridesOneKey()
    {
        PresetLibrary lib;
        lib.loadText("test.json", kPreset);
        QVERIFY2(lib.problems().empty(), lib.problems().empty() ? "" : lib.problems().front().message().c_str());
        const HardwareSpec* h = lib.findHardware("test-gpu");
        QVERIFY(h);
        // The constants are kept beside the hardware spec, keyed by its id, not inside it.
        const std::optional<CostModelConstants> constants = lib.costModelFor("test-gpu");
        QVERIFY(constants);
        QCOMPARE(constants->gemmEfficiency, 0.5);
        QCOMPARE(constants->crossDomainRings, 2);
        QCOMPARE(constants->hbmEfficiency, defaultCostModelConstants(*h).hbmEfficiency); // untouched
        QVERIFY(!lib.costModelFor("no-such-gpu"));
        // The model uses them: half the GEMM efficiency, lower MFU than the defaults give.
        Scenario s = scenarioFor(llama31_8b(), "h100-sxm", 8, 4096);
        s.cluster.hardware = *h;
        s.costModel = constants;
        QCOMPARE(QString::fromStdString(costModelConstantsFor(s).basis), QStringLiteral("measured on our cluster"));
        const double withPreset = evaluate(s).mfu;
        s.costModel.reset();
        QVERIFY(withPreset < evaluate(s).mfu);
        // An entry replaced by one without "cost_model" takes its constants away with it.
        HardwareSpec plain = *h;
        lib.addHardware(plain);
        QVERIFY(!lib.costModelFor("test-gpu"));
    }

    void comparedDeviceUsesItsPresetConstants()
    {
        // The hardware comparison moves the scenario onto each device: the scenario's own GPU keeps the scenario's
        // constants, another device takes its preset's (here half the GEMM efficiency), as it did when the spec
        // carried them.
        PresetLibrary lib;
        lib.loadText("test.json", kPreset);
        HardwareSpec priced = *lib.findHardware("test-gpu");
        priced.pricePerGpuHourUsd = 3.0;
        Scenario s = scenarioFor(llama31_8b(), "h100-sxm", 8, 4096);
        CostModelConstants calibrated = costModelConstantsFor(s);
        calibrated.gemmEfficiency = 0.4;
        s.costModel = calibrated;
        const auto withPreset = predictedHardwareOptions(s, { priced }, &lib);
        const auto withDefaults = predictedHardwareOptions(s, { priced });
        QCOMPARE(withPreset.size(), size_t(2)); // the scenario's own H100 first, then the test GPU
        QCOMPARE(withDefaults.size(), size_t(2));
        QCOMPARE(QString::fromStdString(withPreset[1].hardware.id), QStringLiteral("test-gpu"));
        QVERIFY(*withPreset[1].mfu < *withDefaults[1].mfu);
        QCOMPARE(*withPreset[0].mfu, evaluate(s).mfu); // own GPU: the calibrated constants
        QCOMPARE(*withDefaults[0].mfu, evaluate(s).mfu);
    }

    void badValuesNameTheKey_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("expected");
        QTest::newRow("unknown") << R"({"gemm_eficiency": 0.5})"
                                 << "cost_model.gemm_eficiency: unknown";
        QTest::newRow("efficiency above 1") << R"({"hbm_efficiency": 1.5})"
                                            << "cost_model.hbm_efficiency: must lie in (0, 1]";
        QTest::newRow("negative") << R"({"scale_up_latency_seconds": -1})"
                                  << "must not be negative";
        QTest::newRow("text") << R"({"gemm_efficiency": "high"})"
                              << "must be a number";
        QTest::newRow("rings not whole") << R"({"cross_domain_rings": 1.5})"
                                         << "whole number";
        QTest::newRow("not an object") << R"([1, 2])"
                                       << "must be an object";
    }
    void badValuesNameTheKey()
    {
        QFETCH(QString, json);
        QFETCH(QString, expected);
        try {
            costModelConstantsFromJson(nlohmann::json::parse(json.toStdString()), CostModelConstants {}, "cost_model");
            QFAIL("no error");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains(expected), e.what());
        }
    }

    void retiredKeysStillOpen()
    {
        // A file saved before the grouped-GEMM token law was measured carries its old constant: it opens, the value
        // dropped, and the keys beside it still read.
        const CostModelConstants base = defaultCostModelConstants(presetHardware("h100-sxm"));
        const CostModelConstants c = costModelConstantsFromJson(
            nlohmann::json::parse(R"({"grouped_gemm_half_saturation_tokens_per_pflops": 64, "gemm_efficiency": 0.6})"),
            base, "cost_model");
        QCOMPARE(c.gemmEfficiency, 0.6);
        QCOMPARE(c.groupedGemmWeightStreamShare, base.groupedGemmWeightStreamShare);
        QVERIFY(!costModelConstantsToJson(c).contains("grouped_gemm_half_saturation_tokens_per_pflops"));
    }

    void scenarioFileKeepsCalibratedConstants()
    {
        ScenarioDocument doc;
        doc.scenario = scenarioFor(llama31_8b(), "b200", 8, 8192);
        CostModelConstants c = costModelConstantsFor(doc.scenario);
        c.gemmEfficiency = 0.59;
        doc.scenario.costModel = c;
        const std::string text = scenarioFileText(doc);
        // Stored where files have always kept them, inside the hardware object, so older and newer files read alike.
        const nlohmann::json file = nlohmann::json::parse(text);
        QCOMPARE(file["cluster"]["hardware"]["cost_model"]["gemm_efficiency"].get<double>(), 0.59);
        const ScenarioDocument back = scenarioFromText(text, "s.json");
        QVERIFY(back.scenario.costModel.has_value());
        QCOMPARE(back.scenario.costModel->gemmEfficiency, 0.59);
        QCOMPARE(evaluate(back.scenario).mfu, evaluate(doc.scenario).mfu);
    }
};

QTEST_GUILESS_MAIN(TestCostModelConstants)
#include "tst_costmodel_constants.moc"
