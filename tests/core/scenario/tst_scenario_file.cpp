// Scenario files: save -> reopen gives the identical scenario (every field), a version-0 file still opens, and a
// broken, foreign or newer file is an InputError that says what is wrong.
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/presets/presets.h"
#include "core/scenario/pipeline_layout.h"
#include "core/scenario/scenario_file.h"
#include "shipped_presets.h"

using namespace mfu;

namespace {

const PresetLibrary& presets()
{
    return test::shippedPresets();
}

// Every field away from its default, so a field the file forgets cannot pass by coincidence.
ScenarioDocument fullDocument(const ModelSpec& model)
{
    ScenarioDocument d;
    Scenario& s = d.scenario;
    s.model = model;
    s.cluster.hardware = *presets().findHardware("h100-sxm");
    s.cluster.hardware.pricePerGpuHourUsd = 2.1234567890123; // user-edited, many digits
    s.cluster.gpuCount = 256;
    s.cluster.gpusPerScaleUpDomain = 4;
    s.workload = { 16384, 8 * 1024 * 1024, 3, {}, { 1024, 256, false } };
    s.workload.packing.documents = { { 512, 4 }, { 2048, 2.5 }, { 8192, 1 } };
    s.workload.packing.attention = PackedAttention::WholeSequence;
    s.workload.packing.paddingFraction = 0.125;
    s.precision = TrainingPrecision::BF16_FP8;
    Parallelism& p = s.parallelism;
    p.tp = 8;
    p.sequenceParallel = false;
    p.asyncTp = true;
    p.pp = 4;
    p.virtualStages = 2;
    p.schedule = PipelineSchedule::ZeroBubble;
    p.cp = 2;
    p.ep = 4;
    p.expertTp = 2;
    p.hsdpReplicas = 2;
    p.dataParallel = DataParallelKind::Zero1;
    p.expertOverlap = ExpertOverlap::OneFOneB;
    p.expertDispatcher = ExpertDispatcher::DeepEp;
    p.expertBalance = ExpertBalance::Forced;
    p.expertNodeLimit = 4;
    p.expertCapacityFactor = 1.25;
    p.expertLoadImbalance = 1.5;
    p.expertHostSync = ExpertHostSync::PerLayer;
    // DeepSeek-V3's published layout, as Megatron writes it (the round trip does not check it against the model).
    p.pipelineLayout = parsePipelineLayout("Et*3|(tt|)*29m|L");
    s.workload.mtpLayers = 1;
    s.activationCheckpointing = ActivationCheckpointing::Full;
    s.flags = { 2, true, false, false, true, true, AttentionKernel::Cudnn, true, true };
    s.flags.fp8Recipe = Fp8Recipe::Blockwise;
    s.flags.recomputeModules = RecomputeMoeActivation | RecomputeLayernorm;
    s.flags.recomputeLayers = 3;
    s.flags.optimizerOffloadFraction = 0.25;
    s.flags.activationOffloadFraction = 0.5;
    s.flags.activationOffloadModules = OffloadExpertFc1 | OffloadMoeActivation;
    s.flags.overlapGradReduce = false;
    s.flags.overlapParamGather = false;
    s.mfuFormula = FlopFormula::PerComponentCausal;
    s.measuredThroughput = Throughput { 1234.5678, ThroughputScope::PerGpu };
    s.measuredPoints = { { "baseline", 8192, 256, TrainingPrecision::BF16, 0.385 },
        { "tuned, fp8", 16384, 512, TrainingPrecision::BF16_FP8, 0.1 + 0.2 } };
    s.pricePerGpuHourUsd = 2.5;
    d.scenario.cost = { 15e12, 90, 0.4, 0.6 };
    d.tracePaths = { "/data/run 1/rank0.json.gz", "/data/run 1/rank1.json.gz" };
    d.baselineTracePaths = { "/data/baseline" }; // a folder of ranks
    d.trainingLogPaths = { "logs/torchtitan.log" };
    return d;
}

#define SAME(field) QCOMPARE(b.field, a.field)

void compareModel(const ModelSpec& a, const ModelSpec& b)
{
    SAME(id);
    SAME(name);
    SAME(source);
    SAME(layers);
    SAME(hidden);
    SAME(heads);
    SAME(kvHeads);
    SAME(headDim);
    SAME(ffnDim);
    SAME(activation);
    SAME(vocab);
    SAME(tiedEmbeddings);
    SAME(qkvBias);
    SAME(linearBias);
    SAME(norm);
    SAME(learnedPositions);
    SAME(moe.experts);
    SAME(moe.expertsPerToken);
    SAME(moe.expertFfnDim);
    SAME(moe.sharedExperts);
    SAME(moe.sharedExpertFfnDim);
    SAME(moe.denseLayers);
    SAME(moe.routerBias);
    SAME(mla.enabled);
    SAME(mla.qLoraRank);
    SAME(mla.kvLoraRank);
    SAME(mla.qkNopeHeadDim);
    SAME(mla.qkRopeHeadDim);
    SAME(mla.vHeadDim);
    SAME(bareParams);
    SAME(attnOutBias);
    SAME(mlpBias);
    SAME(normsPerLayer);
    SAME(qkNorm);
    SAME(attentionSinks);
    SAME(slidingWindow);
    SAME(attentionChunk);
    SAME(moe.sharedExpertGate);
    SAME(moe.latentDim);
    SAME(attentionOutputGate);
    SAME(linearAttention.keyHeads);
    SAME(linearAttention.valueHeads);
    SAME(linearAttention.keyHeadDim);
    SAME(linearAttention.valueHeadDim);
    SAME(linearAttention.convKernel);
    SAME(mamba.heads);
    SAME(mamba.headDim);
    SAME(mamba.groups);
    SAME(mamba.stateSize);
    SAME(mamba.convKernel);
    SAME(mamba.projectionBias);
    SAME(mamba.convBias);
    SAME(sparseIndexer.heads);
    SAME(sparseIndexer.headDim);
    SAME(sparseIndexer.topK);
    QVERIFY(a.layerPattern == b.layerPattern);
    QVERIFY(a.notes == b.notes);
}

void compareHardware(const HardwareSpec& a, const HardwareSpec& b)
{
    SAME(id);
    SAME(name);
    SAME(vendor);
    SAME(peakDenseFlops);
    SAME(peakSparseFlops);
    SAME(hbmBytes);
    SAME(hbmBandwidthBytesPerSec);
    SAME(scaleUpDomainGpus);
    SAME(scaleUpBandwidthBytesPerSec);
    SAME(scaleUpName);
    SAME(scaleOutBandwidthBytesPerSec);
    SAME(hostLinkBytesPerSec);
    SAME(hostLinkName);
    SAME(pricePerGpuHourUsd);
    SAME(powerWatts);
    SAME(sources);
    SAME(matchPatterns);
}

void compareDocuments(const ScenarioDocument& da, const ScenarioDocument& db)
{
    compareModel(da.scenario.model, db.scenario.model);
    if (QTest::currentTestFailed())
        return;
    compareHardware(da.scenario.cluster.hardware, db.scenario.cluster.hardware);
    if (QTest::currentTestFailed())
        return;
    {
        const Scenario& a = da.scenario;
        const Scenario& b = db.scenario;
        SAME(cluster.gpuCount);
        SAME(cluster.gpusPerScaleUpDomain);
        SAME(workload.seqLen);
        SAME(workload.globalBatchTokens);
        SAME(workload.microBatch);
        SAME(workload.packing.documents.size());
        for (size_t i = 0; i < a.workload.packing.documents.size(); ++i) {
            SAME(workload.packing.documents[i].length);
            SAME(workload.packing.documents[i].count);
        }
        SAME(workload.packing.meanOnly);
        SAME(workload.packing.attention);
        SAME(workload.packing.paddingFraction);
        SAME(workload.vision.tokensPerSequence);
        SAME(workload.vision.tokensPerImage);
        SAME(workload.vision.encoderTrained);
        SAME(model.vision.has_value());
        if (a.model.vision) {
            SAME(model.vision->depth);
            SAME(model.vision->mlpDim);
            SAME(model.vision->gatedMlp);
            SAME(model.vision->fullAttentionBlocks);
            SAME(model.vision->mergers);
            SAME(model.vision->positionEmbeddings);
        }
        SAME(precision);
        SAME(parallelism.tp);
        SAME(parallelism.sequenceParallel);
        SAME(parallelism.asyncTp);
        SAME(parallelism.pp);
        SAME(parallelism.virtualStages);
        SAME(parallelism.schedule);
        SAME(parallelism.cp);
        SAME(parallelism.ep);
        SAME(parallelism.hsdpReplicas);
        SAME(parallelism.dataParallel);
        SAME(parallelism.expertOverlap);
        SAME(parallelism.expertCapacityFactor);
        SAME(parallelism.expertLoadImbalance);
        SAME(parallelism.expertHostSync);
        SAME(parallelism.expertTp);
        SAME(parallelism.expertDispatcher);
        SAME(parallelism.expertBalance);
        SAME(parallelism.expertNodeLimit);
        SAME(parallelism.firstStageLayers);
        SAME(parallelism.lastStageLayers);
        SAME(parallelism.embeddingStage);
        SAME(parallelism.lossStage);
        QVERIFY(b.parallelism.pipelineLayout == a.parallelism.pipelineLayout);
        SAME(workload.mtpLayers);
        SAME(flags.fp8Recipe);
        SAME(flags.recomputeModules);
        SAME(flags.recomputeLayers);
        SAME(flags.optimizerOffloadFraction);
        SAME(flags.activationOffloadFraction);
        SAME(flags.activationOffloadModules);
        SAME(activationCheckpointing);
        SAME(flags.fsdpPrefetchLayers);
        SAME(flags.reduceInBf16);
        SAME(flags.overlapGradReduce);
        SAME(flags.overlapParamGather);
        SAME(flags.fusedOptimizer);
        SAME(flags.compiled);
        SAME(flags.optimizerInBackward);
        SAME(flags.fp8ScalesInBackward);
        SAME(flags.attentionKernel);
        SAME(flags.fusedLinearCrossEntropy);
        SAME(flags.fusedNormActivation);
        SAME(mfuFormula);
        SAME(measuredThroughput.has_value());
        if (a.measuredThroughput) {
            SAME(measuredThroughput->tokensPerSec);
            SAME(measuredThroughput->scope);
        }
        SAME(measuredPoints.size());
        for (size_t i = 0; i < a.measuredPoints.size(); ++i) {
            SAME(measuredPoints[i].label);
            SAME(measuredPoints[i].seqLen);
            SAME(measuredPoints[i].gpuCount);
            SAME(measuredPoints[i].precision);
            SAME(measuredPoints[i].mfu);
        }
        SAME(pricePerGpuHourUsd);
    }
    const ScenarioDocument& a = da;
    const ScenarioDocument& b = db;
    SAME(scenario.cost.tokenBudget);
    SAME(scenario.cost.days);
    SAME(scenario.cost.baselineMfu);
    SAME(scenario.cost.targetMfu);
    SAME(tracePaths);
    SAME(baselineTracePaths);
    SAME(trainingLogPaths);
}

ModelSpec importedModel()
{
    // A config.json the user opened: its id is the file name, which no preset id would allow, and it has no source.
    ModelSpec m = *presets().findModel("llama-3.1-8b");
    m.id = "My Config (v2).json";
    m.name = "My Config (v2).json";
    m.source.clear();
    m.vocab = 128257;
    return m;
}

void expectError(const std::string& text, const QString& mentions)
{
    try {
        scenarioFromText(text, "broken.json", &presets());
        QFAIL("expected InputError");
    } catch (const InputError& e) {
        const QString message = QString::fromStdString(e.what());
        QVERIFY2(message.startsWith(QStringLiteral("broken.json: ")), e.what());
        QVERIFY2(message.contains(mentions), e.what());
    }
}

} // namespace

class TestScenarioFile : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY2(presets().findHardware("h100-sxm"), "presets did not load"); }

    void roundTrip_data()
    {
        QTest::addColumn<QString>("model");
        QTest::newRow("dense preset") << "llama-3.1-70b";
        QTest::newRow("MoE + MLA from hf_config") << "deepseek-v3";
        QTest::newRow("GELU, LayerNorm, learned positions") << "gpt2";
        QTest::newRow("bare 7B") << "bare";
        QTest::newRow("imported config") << "imported";
        QTest::newRow("sliding-window layers, sinks, biased experts") << "gpt-oss-120b";
        QTest::newRow("interleaved MoE, chunked attention, notes") << "llama-4-maverick";
        QTest::newRow("post-norms, per-head q/k norms") << "gemma-3-27b";
        QTest::newRow("Gated DeltaNet and gated attention, MoE") << "qwen3.5-397b-a17b";
        QTest::newRow("Mamba-2, attention and latent-MoE blocks") << "nemotron-3-ultra-550b-a55b";
        QTest::newRow("sparse attention with its indexer") << "deepseek-v3.2";
        QTest::newRow("Kimi Delta Attention, gated MLA, latent MoE with norm") << "kimi-k3";
        QTest::newRow("compressed sparse and heavily compressed attention, hyper-connections") << "deepseek-v4-flash";
        QTest::newRow("block-sparse attention, indexer from the hidden state") << "minimax-m3";
    }
    void roundTrip()
    {
        QFETCH(QString, model);
        ModelSpec spec;
        if (model == QLatin1String("bare"))
            spec = bareModel(7'000'000'000, "a 7B model");
        else if (model == QLatin1String("imported"))
            spec = importedModel();
        else
            spec = *presets().findModel(model.toStdString());
        const ScenarioDocument original = fullDocument(spec);

        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath(QStringLiteral("scenario.json")).toStdString();
        const std::string text = scenarioFileText(original);
        std::ofstream(path, std::ios::binary) << text;
        const ScenarioDocument reopened = readScenarioFile(path); // version 1 needs no presets: all embedded
        compareDocuments(original, reopened);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(scenarioFileText(reopened), text); // and saving again writes the same bytes
        const auto root = nlohmann::json::parse(text);
        QCOMPARE(root.at("format").get<std::string>(), std::string("mfu-explorer-scenario"));
        QCOMPARE(root.at("version").get<int>(), kScenarioFileVersion);
    }

    void defaultsRoundTrip()
    {
        // A fresh scenario: optional parts absent (no throughput, no price override, no cost inputs, no traces).
        ScenarioDocument d;
        d.scenario.model = *presets().findModel("llama-3.1-8b");
        d.scenario.cluster.hardware = *presets().findHardware("b200");
        const ScenarioDocument reopened = scenarioFromText(scenarioFileText(d), "fresh.json");
        compareDocuments(d, reopened);
        QVERIFY(!reopened.scenario.measuredThroughput);
        QVERIFY(!reopened.scenario.pricePerGpuHourUsd);
        QVERIFY(!reopened.scenario.cost.targetMfu);
        // Keys added later are written only when set, so a file that does not use them opens in earlier builds.
        QVERIFY(!nlohmann::json::parse(scenarioFileText(d)).at("flags").contains("fused_norm_activation"));
        QVERIFY(!nlohmann::json::parse(scenarioFileText(d)).at("parallelism").contains("pipeline_layout"));
        QVERIFY(!nlohmann::json::parse(scenarioFileText(d)).at("workload").contains("mtp_layers"));
    }

    void versionZeroFixture()
    {
        const ScenarioDocument d = readScenarioFile(MFU_SOURCE_DIR "/tests/data/scenario_v0.json", &presets());
        const Scenario& s = d.scenario;
        QCOMPARE(s.model.id, std::string("llama-3.1-70b"));
        QCOMPARE(s.model.layers, 80);
        QCOMPARE(s.cluster.hardware.id, std::string("h100-sxm"));
        QCOMPARE(*s.cluster.hardware.densePeak(NumberFormat::BF16), 989e12);
        QCOMPARE(s.cluster.gpuCount, 256);
        QCOMPARE(s.workload.seqLen, int64_t(8192));
        QCOMPARE(s.workload.microBatch, int64_t(2));
        QCOMPARE(s.workload.globalBatchTokens, int64_t(16777216));
        QCOMPARE(s.precision, TrainingPrecision::BF16_FP8);
        QCOMPARE(s.parallelism.tp, 8);
        QCOMPARE(s.parallelism.pp, 4);
        QCOMPARE(s.activationCheckpointing, ActivationCheckpointing::Selective);
        QCOMPARE(*s.pricePerGpuHourUsd, 2.5);
        QCOMPARE(s.measuredPoints.size(), size_t(2));
        QCOMPARE(s.measuredPoints[0].mfu, 0.385); // version 0 stored percent
        QCOMPARE(s.measuredPoints[1].precision, TrainingPrecision::BF16); // absent: BF16
        QCOMPARE(s.measuredPoints[1].mfu, 0.47);
        QCOMPARE(d.tracePaths, (std::vector<std::string> { "traces/rank0.json.gz", "traces/rank1.json.gz" }));
        QCOMPARE(s.mfuFormula, kDefaultFlopFormula); // no field in version 0: the default (per layer, PaLM for Llama)
        // Saved again, it becomes a version-1 file that reopens identical without presets.
        const std::string upgraded = scenarioFileText(d);
        QVERIFY(upgraded.find("\"version\": 1") != std::string::npos);
        compareDocuments(d, scenarioFromText(upgraded, "upgraded.json"));
    }

    // Whatever a version-0 file opens with is saved as version 1 and must open again: so version 0 refuses what
    // version 1 refuses (the fuzzer found an MFU percentage that underflowed to 0, and counts past the table's bounds).
    void versionZeroRefusesWhatVersionOneWould_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("key");
        QTest::newRow("mfu underflows to 0") << R"("measured":[{"seq":4096,"gpus":8,"mfu_percent":4e-324}])"
                                             << "measured[0].mfu_percent";
        QTest::newRow("params beyond 10^15") << R"("model_params":1000000000000001)"
                                             << "model_params";
        QTest::newRow("seq beyond 10^8") << R"("seq":100000001)"
                                         << "seq";
        QTest::newRow("tp beyond 10^6") << R"("tp":1000001)"
                                        << "tp";
        QTest::newRow("micro-batch beyond 10^6") << R"("micro_batch":1000001)"
                                                 << "micro_batch";
        QTest::newRow("global batch beyond 10^9") << R"("global_batch_tokens":1000000001)"
                                                  << "global_batch_tokens";
    }
    void versionZeroRefusesWhatVersionOneWould()
    {
        QFETCH(QString, field);
        QFETCH(QString, key);
        auto root = nlohmann::json::parse(R"({"format":"mfu-explorer-scenario","version":0,"model":"llama-3.1-8b",)"
                                          R"("gpu":"h100-sxm","gpus":8,"seq":4096})");
        const auto extra = nlohmann::json::parse("{" + field.toStdString() + "}");
        root.update(extra);
        if (root.contains("model_params"))
            root.erase("model");
        const std::string text = root.dump();
        try {
            scenarioFromText(text, "v0.json", &presets());
            QFAIL(qPrintable("opened: " + QString::fromStdString(text)));
        } catch (const InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(key + ": "), e.what());
        }
    }

    void versionZeroNeedsPresets()
    {
        try {
            readScenarioFile(MFU_SOURCE_DIR "/tests/data/scenario_v0.json");
            QFAIL("expected InputError");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("preset library")), e.what());
        }
    }

    void brokenFiles_data()
    {
        const std::string good = scenarioFileText(fullDocument(*presets().findModel("llama-3.1-8b")));
        const auto edited = [&](const std::function<void(nlohmann::json&)>& edit) {
            auto root = nlohmann::json::parse(good);
            edit(root);
            return QString::fromStdString(root.dump());
        };
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("truncated") << QString::fromStdString(good.substr(0, good.size() / 2)) << "not valid JSON";
        QTest::newRow("empty") << ""
                               << "not valid JSON";
        QTest::newRow("array") << "[1, 2]"
                               << "expected a JSON object";
        QTest::newRow("other format") << edited([](auto& j) { j["format"] = "mfu-explorer-hardware"; })
                                      << "is not an MFU Explorer scenario";
        QTest::newRow("no format") << edited([](auto& j) { j.erase("format"); }) << "format: missing";
        QTest::newRow("newer version") << edited([](auto& j) { j["version"] = 7; })
                                       << "version: 7 is newer than this MFU Explorer reads (up to 1)";
        QTest::newRow("version as text") << edited([](auto& j) { j["version"] = "1"; }) << "version";
        QTest::newRow("no model") << edited([](auto& j) { j.erase("model"); }) << "model: missing";
        QTest::newRow("zero layers") << edited([](auto& j) { j["model"]["layers"] = 0; }) << "model.layers";
        QTest::newRow("bad activation") << edited([](auto& j) { j["model"]["activation"] = "relu"; })
                                        << "model.activation";
        QTest::newRow("negative GPUs") << edited([](auto& j) { j["cluster"]["gpu_count"] = -8; })
                                       << "cluster.gpu_count";
        // 2^63 parses as an unsigned integer: it was said back wrapped, "found -9223372036854775808".
        QTest::newRow("2^63 GPUs") << edited([](auto& j) { j["cluster"]["gpu_count"] = uint64_t(1) << 63; })
                                   << "cluster.gpu_count: must be between 1 and 10000000, found 9223372036854775808";
        QTest::newRow("no BF16 peak") << edited([](auto& j) {
            j["cluster"]["hardware"]["peak_dense_flops"].erase("bf16");
        }) << "cluster.hardware";
        QTest::newRow("unknown format key")
            << edited([](auto& j) { j["cluster"]["hardware"]["peak_dense_flops"]["int4"] = 1e15; })
            << "cluster.hardware.peak_dense_flops.int4";
        QTest::newRow("peak near zero") << edited([](auto& j) {
            j["cluster"]["hardware"]["peak_dense_flops"]["bf16"] = 1e-300;
        }) << "peak_dense_tflops.bf16: under 0.1 TFLOPS";
        QTest::newRow("bandwidth near zero")
            << edited([](auto& j) { j["cluster"]["hardware"]["hbm_bandwidth_bytes_per_sec"] = 1e-300; })
            << "hbm_bandwidth_gbps: implausibly small";
        QTest::newRow("scale-out near zero")
            << edited([](auto& j) { j["cluster"]["hardware"]["scale_out_bandwidth_bytes_per_sec"] = 1e-300; })
            << "scale_out_gbitps: implausibly small";
        QTest::newRow("typo key") << edited([](auto& j) { j["workload"]["seqlen"] = 4096; }) << "seqlen";
        QTest::newRow("bad precision") << edited([](auto& j) { j["precision"] = "int8"; }) << "precision";
        QTest::newRow("bad schedule") << edited([](auto& j) { j["parallelism"]["schedule"] = "gpipe"; })
                                      << "parallelism.schedule";
        QTest::newRow("bad data parallel")
            << edited([](auto& j) { j["parallelism"]["data_parallel"] = "zero3"; }) << "parallelism.data_parallel";
        QTest::newRow("capacity factor below 1")
            << edited([](auto& j) { j["parallelism"]["expert_capacity_factor"] = 0.5; })
            << "parallelism.expert_capacity_factor";
        QTest::newRow("bad dispatcher") << edited([](auto& j) { j["parallelism"]["expert_dispatcher"] = "nccl"; })
                                        << "parallelism.expert_dispatcher";
        QTest::newRow("bad pipeline layout")
            << edited([](auto& j) { j["parallelism"]["pipeline_layout"] = "Et*3|(tt|*29"; })
            << "parallelism.pipeline_layout";
        QTest::newRow("bad recompute module") << edited([](auto& j) {
            j["flags"]["recompute_modules"] = { "moe_act", "attention" };
        }) << "flags.recompute_modules";
        QTest::newRow("bad FP8 recipe") << edited([](auto& j) { j["flags"]["fp8_recipe"] = "nvfp4"; })
                                        << "flags.fp8_recipe";
        QTest::newRow("bad attention kernel")
            << edited([](auto& j) { j["flags"]["attention_kernel"] = "flash4"; }) << "flags.attention_kernel";
        QTest::newRow("MFU as percent") << edited([](auto& j) { j["measured_points"][1]["mfu"] = 38.5; })
                                        << "measured_points[1].mfu";
        QTest::newRow("throughput scope")
            << edited([](auto& j) { j["measured_throughput"]["scope"] = "node"; }) << "measured_throughput.scope";
        QTest::newRow("traces not a list") << edited([](auto& j) { j["trace_paths"] = "a.json"; }) << "trace_paths";
        QTest::newRow("empty trace path") << edited([](auto& j) { j["trace_paths"][1] = ""; }) << "trace_paths[1]";
        QTest::newRow("baseline not a list")
            << edited([](auto& j) { j["baseline_trace_paths"] = 3; }) << "baseline_trace_paths";
        QTest::newRow("log path not text")
            << edited([](auto& j) { j["training_log_paths"][0] = 7; }) << "training_log_paths[0]";
        QTest::newRow("document longer than the packing length") << edited([](auto& j) {
            j["workload"]["packing"] = { { "document_lengths", { 100000 } } };
        }) << "workload.packing.document_lengths";
        QTest::newRow("padding fraction 1") << edited([](auto& j) {
            j["workload"]["packing"] = { { "padding_fraction", 1.0 } };
        }) << "workload.packing.padding_fraction";
        QTest::newRow("bad attention mask") << edited([](auto& j) {
            j["workload"]["packing"] = { { "mean_document_length", 512 }, { "attention_mask", "sometimes" } };
        }) << "workload.packing.attention_mask";
        QTest::newRow("negative price") << edited([](auto& j) { j["price_per_gpu_hour_usd"] = -1; })
                                        << "price_per_gpu_hour_usd";
        QTest::newRow("target MFU 60") << edited([](auto& j) { j["cost"]["target_mfu"] = 60; }) << "cost.target_mfu";
        QTest::newRow("v0 unknown GPU") << edited([](auto& j) {
            j = { { "format", "mfu-explorer-scenario" }, { "version", 0 }, { "model", "llama-3.1-8b" },
                { "gpu", "h900" }, { "gpus", 8 }, { "seq", 4096 } };
        }) << "gpu: \"h900\" is not a known hardware preset";
    }
    void brokenFiles()
    {
        QFETCH(QString, text);
        QFETCH(QString, mentions);
        expectError(text.toStdString(), mentions);
    }

    // The names a trace gives the GPU travel with the file, so that a trace of the saved scenario's GPU is known as
    // such (calibrate --scenario, the window's "Calibrate Predict to this trace"); a file saved before they were
    // written takes them from the library's preset of the same id, and only with a library.
    void gpuNamePatternsTravelWithTheFile()
    {
        ScenarioDocument d;
        d.scenario.model = *presets().findModel("llama-3.1-8b");
        d.scenario.cluster.hardware = *presets().findHardware("h200");
        QVERIFY(!d.scenario.cluster.hardware.matchPatterns.empty());
        nlohmann::json saved = nlohmann::json::parse(scenarioFileText(d));
        QCOMPARE(saved["cluster"]["hardware"]["match"].size(), d.scenario.cluster.hardware.matchPatterns.size());
        QCOMPARE(scenarioFromText(saved.dump(), "new.json").scenario.cluster.hardware.matchPatterns,
            d.scenario.cluster.hardware.matchPatterns);
        saved["cluster"]["hardware"].erase("match");
        QVERIFY(scenarioFromText(saved.dump(), "old.json").scenario.cluster.hardware.matchPatterns.empty());
        QCOMPARE(scenarioFromText(saved.dump(), "old.json", &presets()).scenario.cluster.hardware.matchPatterns,
            d.scenario.cluster.hardware.matchPatterns);
        saved["cluster"]["hardware"]["match"] = { "*" };
        expectError(saved.dump(), QStringLiteral("cluster.hardware.match[0]: must name part of a GPU name"));
    }

    // The run's files a scenario lists are its folder's when relative, wherever the reader runs: `report` in another
    // working directory called a trace beside the scenario "no longer exists". Absolute paths stay.
    void runFilesAreTheScenarioFilesFolders()
    {
        ScenarioDocument d;
        d.tracePaths = { "traces/rank0.json.gz", "/data/run 1/rank1.json.gz" };
        d.baselineTracePaths = { "../baseline" };
        d.trainingLogPaths = { "train.log" };
        const ScenarioDocument r = withRunFilesResolved(d, "/work/runs/a/run.mfu.json");
        QCOMPARE(r.tracePaths,
            (std::vector<std::string> { "/work/runs/a/traces/rank0.json.gz", "/data/run 1/rank1.json.gz" }));
        QCOMPARE(r.baselineTracePaths, std::vector<std::string> { "/work/runs/baseline" });
        QCOMPARE(r.trainingLogPaths, std::vector<std::string> { "/work/runs/a/train.log" });
        // A scenario named relative to the working directory: its folder is taken from there.
        const ScenarioDocument here = withRunFilesResolved(d, "run.mfu.json");
        QCOMPARE(
            here.tracePaths[0], (std::filesystem::current_path() / "traces/rank0.json.gz").lexically_normal().string());
    }

    void missingFile()
    {
        try {
            readScenarioFile("/nonexistent/scenario.json");
            QFAIL("expected InputError");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("cannot be opened")), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestScenarioFile)
#include "tst_scenario_file.moc"
