// Diagnosis of reported runs. The B200 scaling report is the acceptance case: its "2.61%" must be explained with
// numbers, each run's real MFU given, and the 8-GPU run's scaling judged.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <tuple>

#include "core/diagnosis/diagnosis.h"
#include "core/diagnosis/diagnosis_json.h"
#include "core/diagnosis/diagnosis_report.h"
#include "core/errors.h"
#include "core/model/flops.h"
#include "core/model/param_count.h"
#include "core/presets/presets.h"
#include "diagnosis_test_support.h"
#include "shipped_presets.h"

using namespace mfu;
using mfu::test::percent;

namespace {
const PresetLibrary& presets()
{
    return test::shippedPresets();
}

Diagnosis diagnoseText(const std::string& json)
{
    return diagnose(reportedRunsFromText(json, "report.json", presets()), presets().hardware());
}

std::string codes(const std::vector<Finding>& findings)
{
    std::string out;
    for (const auto& f : findings)
        out += f.code + " ";
    return out;
}

} // namespace

class TestDiagnosis : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        for (const auto& p : presets().problems())
            QFAIL(p.message().c_str());
    }

    void attentionCountedOverPackingLength()
    {
        // Llama 3.1 8B packed to 8,192 tokens with documents of 1,024 x 2, 2,048 and 4,096, masked per document:
        // sum(d^2)/sum(d) = 2816, so PaLM gives 45,029,548,032 + 1,572,864 x 2816 = 49,458,733,056 FLOP/token; a
        // report that counts 12LHQS at S = 8192 states 57,914,449,920 (1.17x).
        const std::string run = R"({"runs": [{"label": "packed", "gpu": "b200", "gpus": 8, "model": "llama-3.1-8b",
            "packing_length": 8192, "document_lengths": [[1024, 2], [2048, 1], [4096, 1]],
            "tokens_per_sec": 10000, "tokens_per_sec_scope": "per_gpu", )";
        const Diagnosis stated = diagnoseText(run + R"("flops_per_token": 57914449920}]})");
        const Finding* f = test::findFinding(stated.runs[0].findings, "attention_counted_over_packing_length");
        QVERIFY2(f, codes(stated.runs[0].findings).c_str());
        QCOMPARE(f->severity, std::string("error"));
        QCOMPARE(f->figures.at("corrected_flops_per_token"), 49'458'733'056.0);
        QCOMPARE(f->figures.at("effective_attention_length"), 2816.0);
        QCOMPARE(stated.runs[0].flopsPerToken, 49'458'733'056.0);

        // Only an MFU stated: 10,000 tokens/s x 57.91 GFLOP / 2,250 TFLOPS = 25.74%; corrected 21.98%.
        const Diagnosis mfuOnly = diagnoseText(run + R"("mfu": 0.25739755520}]})");
        const Finding* g = test::findFinding(mfuOnly.runs[0].findings, "attention_counted_over_packing_length");
        QVERIFY2(g, codes(mfuOnly.runs[0].findings).c_str());
        QCOMPARE(percent(g->figures.at("corrected_mfu")), 22.0);
        QCOMPARE(percent(mfuOnly.runs[0].mfu), 22.0);

        // Attention spanning the packed sequence: the packing length is right, nothing to flag.
        const Diagnosis whole = diagnoseText(run + R"("attention_mask": "packed", "flops_per_token": 57914449920}]})");
        QVERIFY(!test::findFinding(whole.runs[0].findings, "attention_counted_over_packing_length"));
        QCOMPARE(whole.runs[0].flopsPerToken, 57'914'449'920.0);

        // Documents longer than the packing length are refused, naming the key.
        try {
            diagnoseText(R"({"runs": [{"gpu": "b200", "model": "llama-3.1-8b", "seq_len": 4096, "tokens_per_sec": 1,
                "document_lengths": [8192]}]})");
            QFAIL("expected an error");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("document_lengths") != std::string::npos, e.what());
        }
    }

    // Llama 3.2 1B ties its embedding to the LM head: 6N + 12LHQS then counts the head's matmul (TorchTitan's count
    // for tied embeddings), which is a convention beside PaLM's 6(N - N_emb), not embeddings "counted as matmuls".
    void tiedEmbeddingsCountTheLmHead()
    {
        const ModelSpec model = *presets().findModel("llama-3.2-1b");
        QVERIFY(model.tiedEmbeddings);
        const ParameterCounts p = countParameters(model);
        const double palm = *countFlopsPerToken(model, 8192).palm;
        const double stated = palm + 6.0 * double(p.embedding);
        const nlohmann::json report
            = { { "gpu", "h100-sxm" }, { "gpus", 8 }, { "model", "llama-3.2-1b" }, { "seq_len", 8192 },
                  { "tokens_per_sec", 40000 }, { "tokens_per_sec_scope", "per_gpu" }, { "flops_per_token", stated } };
        const std::vector<Finding> findings = diagnoseText(report.dump()).runs[0].findings;
        QVERIFY2(!test::findFinding(findings, "flops_include_embeddings"), codes(findings).c_str());
        const Finding* tied = test::findFinding(findings, "flops_count_tied_lm_head");
        QVERIFY2(tied && tied->severity == "info", codes(findings).c_str());
        QVERIFY2(
            tied->message.find("TorchTitan counts for tied embeddings") != std::string::npos, tied->message.c_str());
        QVERIFY(tied->message.find("table lookups") == std::string::npos);
    }

    // A MoE's FLOP/token as 6 x its total parameters (every expert counted) is the typical MoE mistake: the same model
    // counted wrongly, named, with the corrected MFU given; whether the report states the count or its own TFLOPS and
    // tokens/s imply it. DeepSeek-V3: 6 x 671B = 4,026 GFLOP/token against about 281 counted with its 37B active.
    void moeCountedWithTotalParameters_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<bool>("statedCount"); // else implied by the stated TFLOPS / tokens/s
        QTest::newRow("deepseek-v3, stated") << QStringLiteral("deepseek-v3") << true;
        QTest::newRow("qwen3-30b-a3b, stated") << QStringLiteral("qwen3-30b-a3b") << true;
        QTest::newRow("qwen3-30b-a3b, implied") << QStringLiteral("qwen3-30b-a3b") << false;
    }
    void moeCountedWithTotalParameters()
    {
        QFETCH(QString, model);
        QFETCH(bool, statedCount);
        const ModelSpec* spec = presets().findModel(model.toStdString());
        QVERIFY(spec);
        const ParameterCounts p = countParameters(*spec);
        const double total = 6.0 * double(p.total);
        nlohmann::json report = { { "gpu", "h100-sxm" }, { "gpus", 64 }, { "model", model.toStdString() },
            { "seq_len", 4096 }, { "tokens_per_sec", 1000 }, { "tokens_per_sec_scope", "per_gpu" } };
        if (statedCount)
            report["flops_per_token"] = total;
        else
            report.update({ { "achieved_tflops", total * 1000 / 1e12 }, { "achieved_tflops_scope", "per_gpu" } });
        const RunDiagnosis run = diagnoseText(report.dump()).runs[0];
        const Finding* moe = test::findFinding(run.findings, "moe_total_parameters");
        QVERIFY2(moe && moe->severity == "error", codes(run.findings).c_str());
        QVERIFY2(!test::findFinding(run.findings, "log_model_mismatch"), codes(run.findings).c_str());
        QVERIFY2(!run.withheld, run.withheld.value_or("").c_str());
        QCOMPARE(moe->figures.at("total_params"), double(p.total));
        QVERIFY(moe->figures.at("ratio") > 5);
        // The corrected MFU counts the active parameters: 1,000 tokens/s x the model's own count.
        QVERIFY(qAbs(run.mfu - 1000 * run.flopsPerToken / 989e12) < 1e-9);
        // Once, though both the stated count and the report's own figures say it.
        QCOMPARE(std::count_if(run.findings.begin(), run.findings.end(),
                     [](const Finding& f) { return f.code == "moe_total_parameters"; }),
            std::ptrdiff_t(1));
    }

    // Across runs, a run whose corrected MFU is withheld (its FLOP/token describes a 1.7B model, not Qwen3-30B-A3B)
    // has no MFU to compare: the scaling finding keeps the throughput and says no MFU, and no MFU change is judged.
    void withheldMfuIsNotComparedAcrossRuns()
    {
        const Diagnosis d = diagnoseText(R"({"runs": [
            {"label": "base", "gpu": "h100-sxm", "gpus": 64, "model": "qwen3-30b-a3b", "seq_len": 32768,
             "tokens_per_sec": 300000, "tokens_per_sec_scope": "cluster", "mfu": 0.2264},
            {"label": "opt", "gpu": "h100-sxm", "gpus": 128, "model": "qwen3-30b-a3b", "seq_len": 32768,
             "tokens_per_sec": 500000, "tokens_per_sec_scope": "cluster", "flops_per_token": 1.0e10, "mfu": 0.3}]})");
        QVERIFY(d.runs[1].withheld);
        const auto scaling = std::find_if(
            d.comparison.begin(), d.comparison.end(), [](const Finding& f) { return f.code == "scaling"; });
        QVERIFY(scaling != d.comparison.end());
        QVERIFY2(scaling->message.find("Corrected MFU") == std::string::npos, scaling->message.c_str());
        QVERIFY(!scaling->figures.contains("mfu"));
        QVERIFY(scaling->figures.contains("scaling_efficiency"));
        QVERIFY(std::none_of(d.comparison.begin(), d.comparison.end(),
            [](const Finding& f) { return f.code == "reported_mfu_change_artifact"; }));
    }

    void b200ScalingReport()
    {
        std::ifstream in(MFU_SOURCE_DIR "/examples/b200-scaling-report.json");
        std::stringstream text;
        text << in.rdbuf();
        const Diagnosis d = diagnoseText(text.str());
        QCOMPARE(d.runs.size(), size_t(2));
        const auto& two = d.runs[0];
        const auto& eight = d.runs[1];

        // Both runs: the peak is 4,500 TFLOPS per GPU, the B200's sparse BF16 figure, summed over the GPUs...
        for (const auto& run : d.runs) {
            const Finding* sparse = test::findFinding(run.findings, "peak_is_sparse");
            QVERIFY2(sparse, codes(run.findings).c_str());
            QCOMPARE(sparse->figures.at("peak_used_tflops_per_gpu"), 4500.0);
            QCOMPARE(sparse->figures.at("dense_peak_tflops_per_gpu"), 2250.0);
            // ...divided into ONE GPU's achieved TFLOPS.
            QVERIFY2(test::findFinding(run.findings, "per_gpu_over_cluster_peak"), codes(run.findings).c_str());
            // 8.78 GF counts the embeddings: 8.34 GF with PaLM's 6(N - N_emb) + 12LHQS.
            const Finding* emb = test::findFinding(run.findings, "flops_include_embeddings");
            QVERIFY2(emb, codes(run.findings).c_str());
            QCOMPARE(qRound(emb->figures.at("corrected_flops_per_token") / 1e7) / 100.0, 8.34);
        }
        // Tokens/s are per GPU: the 8-GPU run's step time confirms it (25,165,824 / 29.452 s / 8 = 106,809).
        QCOMPARE(qRound(eight.tokensPerSecPerGpu), 106809);
        QCOMPARE(qRound(two.tokensPerSecPerGpu), 106979);
        // The 2-GPU run's 1,838 ms step is impossible (15 PFLOP/s per GPU); its tokens/s implies 29.4 s.
        const Finding* step = test::findFinding(two.findings, "step_time_inconsistent");
        QVERIFY2(step, codes(two.findings).c_str());
        QCOMPARE(qRound(step->figures.at("implied_step_time_s") * 10) / 10.0, 29.4);
        QVERIFY(!test::findFinding(eight.findings, "step_time_inconsistent"));

        // Real MFU of each run: ~39.7% (PaLM FLOP/token), ~41.7% with the log's own 8.78 GF. Not 10.44% / 2.61%.
        QCOMPARE(percent(two.mfu), 39.7);
        QCOMPARE(percent(eight.mfu), 39.6);
        QCOMPARE(percent(*two.mfuWithStatedFlops), 41.7); // 106,979 x 8.78e9 / 2,250e12
        QCOMPARE(percent(*eight.mfuWithStatedFlops), 41.7);
        QCOMPARE(d.mfu, eight.mfu);

        // It scaled: per-GPU throughput unchanged, 4x the cluster throughput on 4x the GPUs.
        const Finding* scaling = test::findFinding(d.comparison, "scaling");
        QVERIFY(scaling);
        QVERIFY(scaling->figures.at("scaling_efficiency") > 0.99);
        QVERIFY(qAbs(scaling->figures.at("throughput_ratio") - 4.0) < 0.01); // 854,472 / 213,958
        QVERIFY(QString::fromStdString(scaling->message).contains(QStringLiteral("it scaled")));
        QVERIFY(test::findFinding(d.comparison, "different_work_per_step"));
        // The headline "collapse" 10.44% -> 2.61% is named as an artefact of the MFU arithmetic.
        const Finding* artefact = test::findFinding(d.comparison, "reported_mfu_change_artifact");
        QVERIFY(artefact);
        QCOMPARE(qRound(artefact->figures.at("stated_mfu_ratio") * 100) / 100.0, 0.25);
    }

    void nanoGptA100PeakOnH100()
    {
        // nanoGPT divides by 312 TFLOPS whatever the GPU.
        const Diagnosis d = diagnoseText(R"({"gpu":"h100-sxm","gpus":1,"params":124439808,"tokens_per_sec":400000,
            "peak_tflops":312,"mfu":0.957,"flops_per_token":7.466e8})");
        const Finding* f = test::findFinding(d.runs[0].findings, "peak_wrong_gpu");
        QVERIFY2(f, codes(d.runs[0].findings).c_str());
        QVERIFY(QString::fromStdString(f->message).contains(QStringLiteral("A100")));
        QCOMPARE(f->figures.at("dense_peak_tflops_per_gpu"), 989.0);
        QCOMPARE(percent(d.mfu), percent(400000 * 6.0 * 124439808 / 989e12));
    }

    // A stated peak is the closest figure within 1%, and every GPU that has it: 989 TFLOPS on an A100 is the
    // Hoppers' BF16 peak (the MI300A's 980.6 is within 1% and had been named), and 1,979 TFLOPS is both their sparse
    // BF16 figure and their dense FP8 peak (it had matched "no known GPU").
    void statedPeakOfAnotherGpuIsTheClosest()
    {
        const auto wrongGpu = [](const char* peak) {
            const Diagnosis d = diagnoseText(std::string(R"({"gpu":"a100-sxm-80gb","model":"llama-3.1-8b",)")
                + R"("seq_len":8192,"tokens_per_sec":3000,"tokens_per_sec_scope":"per_gpu","peak_tflops":)" + peak
                + "}");
            const Finding* f = test::findFinding(d.runs[0].findings, "peak_wrong_gpu");
            return f ? f->message : "no peak_wrong_gpu: " + codes(d.runs[0].findings);
        };
        const std::string hopper = wrongGpu("989");
        QVERIFY2(hopper.find("dense BF16 peak") != std::string::npos, hopper.c_str());
        QVERIFY2(hopper.find("H100") != std::string::npos && hopper.find("H200") != std::string::npos, hopper.c_str());
        QVERIFY2(hopper.find("MI300A") == std::string::npos, hopper.c_str());
        const std::string fp8 = wrongGpu("1979");
        QVERIFY2(fp8.find("dense FP8 peak") != std::string::npos, fp8.c_str());
        QVERIFY2(fp8.find("2:4 structured sparsity") != std::string::npos, fp8.c_str());
        const std::string mi300a = wrongGpu("980.6");
        QVERIFY2(
            mi300a.find("MI300A") != std::string::npos && mi300a.find("H100") == std::string::npos, mi300a.c_str());
    }

    // A V100 has no BF16: its MFU is against the dense FP16 peak, and the diagnosis says so (issue 35: "BF16 peak"
    // of an FP16 GPU), in the corrected MFU, a stated peak it does not recognise and the bound alike.
    void v100PeakIsNamedFp16()
    {
        const Diagnosis d = diagnoseText(R"({"runs": [{"label": "v100", "gpu": "v100-sxm2-32gb", "gpus": 1,
            "model": "llama-3.1-8b", "seq_len": 2048, "tokens_per_sec": 1000, "tokens_per_sec_scope": "per_gpu",
            "peak_tflops": 222}]})");
        const Finding* corrected = test::findFinding(d.runs[0].findings, "corrected_mfu");
        QVERIFY2(corrected, codes(d.runs[0].findings).c_str());
        QVERIFY2(corrected->message.find("dense FP16") != std::string::npos, corrected->message.c_str());
        const Finding* peak = test::findFinding(d.runs[0].findings, "peak_unrecognised");
        QVERIFY2(peak, codes(d.runs[0].findings).c_str());
        QVERIFY2(peak->message.find("dense FP16 peak") != std::string::npos, peak->message.c_str());
        for (const Finding& f : d.runs[0].findings)
            QVERIFY2(f.message.find("BF16") == std::string::npos, f.message.c_str());
        QCOMPARE(d.runs[0].peakPrecision, std::string("FP16"));
    }

    // The run's MFU is "corrected" only where the report stated another; one that states none, or the same within
    // 3%, is checked.
    void correctedOnlyWhereTheStatedMfuDeparts()
    {
        const std::string run = R"({"runs": [{"label": "b200", "gpu": "b200", "gpus": 8, "model": "llama-3.1-8b",
            "seq_len": 8192, "tokens_per_sec": 10000, "tokens_per_sec_scope": "per_gpu")";
        const auto summary = [](const Diagnosis& d) {
            const Finding* f = test::findFinding(d.runs[0].findings, "corrected_mfu");
            return f ? f->message : "no corrected_mfu: " + codes(d.runs[0].findings);
        };
        const Diagnosis none = diagnoseText(run + "}]}");
        QVERIFY2(summary(none).rfind("MFU from the figures: ", 0) == 0, summary(none).c_str());
        const double mfu = none.runs[0].mfu;
        QVERIFY(mfu > 0.2 && mfu < 0.3);

        const Diagnosis same = diagnoseText(run + R"(, "mfu": )" + std::to_string(mfu * 1.01) + "}]}");
        QVERIFY2(summary(same).rfind("MFU from the figures: ", 0) == 0, summary(same).c_str());
        QVERIFY2(summary(same).find(": it holds.") != std::string::npos, summary(same).c_str());

        const Diagnosis other = diagnoseText(run + R"(, "mfu": 0.40}]})");
        QVERIFY2(summary(other).rfind("Corrected MFU: ", 0) == 0, summary(other).c_str());
        QVERIFY2(summary(other).find("The report said 40.00%.") != std::string::npos, summary(other).c_str());
        QCOMPARE(other.runs[0].mfu, mfu);
    }

    void tokensPerSecIgnoringGradAccum()
    {
        // Logger computed micro_batch x seq / step time: 8 x 4096 x 8 GPUs / 2.0 s = 131,072, forgetting 16
        // micro-steps.
        const Diagnosis d = diagnoseText(R"({"gpu":"h100-sxm","gpus":8,"model":"llama-3.1-8b","seq_len":4096,
            "micro_batch":8,"grad_accum":16,"step_time_s":32.0,"tokens_per_sec":8192,"tokens_per_sec_scope":"cluster"})");
        const auto& run = d.runs[0];
        QVERIFY2(test::findFinding(run.findings, "tokens_per_sec_ignores_grad_accum"), codes(run.findings).c_str());
        QCOMPARE(run.tokensPerSecCluster, 8.0 * 4096 * 16 * 8 / 32.0);
    }

    void sixNOnLongSequences()
    {
        const Diagnosis d = diagnoseText(R"({"gpu":"b200","gpus":8,"model":"llama-3.1-8b","seq_len":131072,
            "tokens_per_sec":20000,"flops_per_token":48181567488})"); // 6N, total params
        const Finding* f = test::findFinding(d.runs[0].findings, "attention_omitted");
        QVERIFY2(f, codes(d.runs[0].findings).c_str());
        QCOMPARE(QString::fromStdString(f->severity), QStringLiteral("warning"));
        QVERIFY(f->figures.at("attention_flops_per_token") > f->figures.at("stated_flops_per_token"));
    }

    void impossibleMfu()
    {
        const Diagnosis d = diagnoseText(R"({"gpu":"a100-sxm-80gb","gpus":1,"model":"llama-3.1-8b","seq_len":8192,
            "tokens_per_sec":20000,"mfu":1.3})");
        QVERIFY(test::findFinding(d.runs[0].findings, "mfu_above_100"));
        QVERIFY(test::findFinding(d.runs[0].findings, "impossible_throughput"));
    }

    // A BF16+FP8 run may pass the BF16 peak its MFU is quoted against, up to its FP8 peak: 18,790 tokens/s of Llama 3.1
    // 8B (57.91 GFLOP/token) on one H100 is 1,088 TFLOPS, 110% of 989.5 and 55% of 1,979. The same figures stated as a
    // BF16 run fit no reading of the GPU; twice as many fit none for FP8 either, and the bound names the FP8 peak.
    void fp8MayPassTheBf16Peak()
    {
        const char* fp8 = R"({"gpu":"h100-sxm","gpus":1,"model":"llama-3.1-8b","seq_len":8192,"precision":"fp8",
            "tokens_per_sec":18790,"mfu":1.1})";
        const RunDiagnosis run = diagnoseText(fp8).runs[0];
        QVERIFY2(run.consistent && !test::findFinding(run.findings, "mfu_above_100"), codes(run.findings).c_str());
        QVERIFY(std::abs(run.mfu - 1.1) < 0.005);
        QVERIFY(run.mfuVsFp8Peak && std::abs(*run.mfuVsFp8Peak - 0.55) < 0.003);

        const RunDiagnosis bf16 = diagnoseText(R"({"gpu":"h100-sxm","gpus":1,"model":"llama-3.1-8b","seq_len":8192,
            "tokens_per_sec":18790,"mfu":1.1})")
                                      .runs[0];
        QVERIFY(!bf16.consistent);
        const Finding* above = test::findFinding(bf16.findings, "mfu_above_100");
        QVERIFY(above && above->message.rfind("MFU above 100% is impossible", 0) == 0);

        const RunDiagnosis twice = diagnoseText(R"({"gpu":"h100-sxm","gpus":1,"model":"llama-3.1-8b","seq_len":8192,
            "precision":"fp8","tokens_per_sec":37580})")
                                       .runs[0];
        QVERIFY(!twice.consistent);
        QCOMPARE(twice.boundPeakPrecision, std::string("FP8"));
        QCOMPARE(qRound(twice.maxTokensPerSecPerGpu), qRound(1979e12 / 57'914'449'920.0));
        const Finding* bound = test::findFinding(twice.findings, "no_consistent_reading");
        QVERIFY2(bound && bound->message.find("its dense FP8 peak of 1,979") != std::string::npos,
            bound ? bound->message.c_str() : codes(twice.findings).c_str());
        QVERIFY(bound->message.find("(200.10% MFU)") != std::string::npos); // 1,979 / 989 (the preset's BF16 peak)
    }

    // H100's dense FP8 peak, 1,979 TFLOPS, is also its sparse BF16 figure, and B200's dense FP4 peak (9,000) its
    // sparse FP8 one: a BF16+FP8 or BF16+FP4 run that divides by its linear layers' dense peak is not wrong (the
    // corrected MFU gives that figure too), while a BF16 run dividing by the same number used a sparse figure.
    void lowPrecisionRunsMayDivideByTheirDensePeak()
    {
        const auto peakFindings = [](const char* gpu, const char* precision, double peak) {
            const nlohmann::json run = { { "gpu", gpu }, { "gpus", 8 }, { "model", "llama-3.1-8b" },
                { "seq_len", 8192 }, { "tokens_per_sec", 12000 }, { "tokens_per_sec_scope", "per_gpu" },
                { "precision", precision }, { "peak_tflops", peak } };
            return diagnoseText(run.dump()).runs[0].findings;
        };
        for (const auto& [gpu, precision, peak] : { std::tuple { "h100-sxm", "fp8", 1979.0 },
                 std::tuple { "b200", "fp8", 4500.0 }, std::tuple { "b200", "fp4", 9000.0 } }) {
            const std::vector<Finding> findings = peakFindings(gpu, precision, peak);
            for (const char* code : { "peak_is_sparse", "peak_wrong_precision", "peak_unrecognised" })
                QVERIFY2(!test::findFinding(findings, code), (std::string(gpu) + " " + codes(findings)).c_str());
        }
        const std::vector<Finding> bf16 = peakFindings("h100-sxm", "bf16", 1979.0);
        const Finding* sparse = test::findFinding(bf16, "peak_is_sparse");
        QVERIFY2(sparse, codes(bf16).c_str());
        QCOMPARE(qRound(sparse->figures.at("dense_peak_tflops_per_gpu")), 989);
    }

    // An NVFP4 run on a GB300 at 147% of the BF16 peak (MLPerf v5.1's 405B ran 3,682 TFLOPS per GPU) is a corrected
    // MFU like any other, with its MFU against the FP4 peak beside it, as calc and predict give it.
    void fp4RunGetsItsFp4Peak()
    {
        const Diagnosis d = diagnoseText(R"({"gpu":"gb300","gpus":512,"model":"llama-3.1-8b","seq_len":8192,
            "precision":"fp4","tokens_per_sec":60000,"tokens_per_sec_scope":"per_gpu"})");
        const RunDiagnosis& run = d.runs[0];
        QVERIFY2(run.consistent && !test::findFinding(run.findings, "mfu_above_100"), codes(run.findings).c_str());
        QVERIFY(run.mfu > 1.0);
        QVERIFY(run.fp4PeakFlopsPerGpu && run.mfuVsFp4Peak);
        QCOMPARE(*run.mfuVsFp4Peak, run.achievedFlopsPerGpu / *run.fp4PeakFlopsPerGpu);
        const nlohmann::json j = diagnosisToJson(d);
        QCOMPARE(j["runs"][0]["mfu_vs_fp4_peak"].get<double>(), *run.mfuVsFp4Peak);
        const Finding* corrected = test::findFinding(run.findings, "corrected_mfu");
        QVERIFY(corrected && corrected->message.find("Against the dense FP4 peak") != std::string::npos);
    }

    // 20,000 tokens/s of an 8B model on one A100 needs 1,158 TFLOPS against 312: no reading of the figures fits the
    // GPU. There is no corrected MFU (it used to print "corrected MFU 371.24%"), only the bound: 312e12 / 57.91e9 =
    // 5,387 tokens/s per GPU at 100% MFU.
    void noConsistentReadingGivesTheBound()
    {
        const Diagnosis d = diagnoseText(R"({"gpu":"a100-sxm-80gb","gpus":1,"model":"llama-3.1-8b","seq_len":8192,
            "tokens_per_sec":20000,"mfu":1.3})");
        const RunDiagnosis& run = d.runs[0];
        QVERIFY(!run.consistent);
        QCOMPARE(qRound(run.maxTokensPerSecPerGpu), qRound(312e12 / 57'914'449'920.0));
        QVERIFY(!test::findFinding(run.findings, "corrected_mfu"));
        const Finding* bound = test::findFinding(run.findings, "no_consistent_reading");
        QVERIFY2(bound, codes(run.findings).c_str());
        QCOMPARE(bound->figures.at("max_tokens_per_sec_per_gpu"), run.maxTokensPerSecPerGpu);
        // The report's own 130% is still named; no MFU "implied by the figures" above 100% is.
        const Finding* above = test::findFinding(run.findings, "mfu_above_100");
        QVERIFY(above && above->message.find("report states 130.00%") != std::string::npos);
        const std::string text = diagnosisToText(d);
        QVERIFY2(text.find("Run 'run': corrected MFU") == std::string::npos, text.c_str());
        QVERIFY2(text.find("no consistent reading of the figures fits the GPU: at most 5,387 tokens/s per GPU")
                != std::string::npos,
            text.c_str());
        const nlohmann::json j = diagnosisToJson(d);
        QVERIFY(j["mfu"].is_null());
        QVERIFY(j["runs"][0]["mfu"].is_null());
        QCOMPARE(j["runs"][0]["consistent"].get<bool>(), false);
    }

    // A BF16+FP8 run: MFU against both dense peaks, labelled, as calc does. B200: 2,250 BF16, 4,500 FP8 TFLOPS, so
    // the FP8 reading is half the BF16 one.
    void fp8RunGetsBothPeaks()
    {
        const Diagnosis d = diagnoseText(R"({"gpu":"b200","gpus":1,"model":"llama-3.1-8b","precision":"fp8",
            "seq_len":8192,"tokens_per_sec":21111})");
        const RunDiagnosis& run = d.runs[0];
        QVERIFY(run.consistent);
        QCOMPARE(qRound(run.mfu * 10000), 5434);
        QVERIFY(run.mfuVsFp8Peak && run.fp8PeakFlopsPerGpu);
        QCOMPARE(*run.fp8PeakFlopsPerGpu, 4500e12);
        QCOMPARE(*run.mfuVsFp8Peak, run.mfu / 2.0);
        const std::string text = diagnosisToText(d);
        QVERIFY2(
            text.find("corrected MFU 54.34% vs the dense BF16 peak, 27.17% vs the dense FP8 peak") != std::string::npos,
            text.c_str());
        QCOMPARE(diagnosisToJson(d)["runs"][0]["mfu_vs_fp8_peak"].get<double>(), *run.mfuVsFp8Peak);
        // A BF16 run has no FP8 reading.
        const Diagnosis bf16 = diagnoseText(R"({"gpu":"b200","gpus":1,"model":"llama-3.1-8b","seq_len":8192,
            "tokens_per_sec":21111})");
        QVERIFY(!bf16.runs[0].mfuVsFp8Peak);
        QVERIFY(diagnosisToJson(bf16)["runs"][0]["mfu_vs_fp8_peak"].is_null());
        for (const auto& f : bf16.runs[0].findings)
            QVERIFY(f.code != "fp8_without_fp8_peak");
        // FP8 stated on an A100, which has no FP8 tensor cores: said, and MFU stays against the BF16 peak.
        const Diagnosis a100 = diagnoseText(R"({"gpu":"a100-sxm-80gb","gpus":1,"model":"llama-3.1-8b",
            "precision":"fp8","seq_len":8192,"tokens_per_sec":2000})");
        QVERIFY(!a100.runs[0].mfuVsFp8Peak);
        bool said = false;
        for (const auto& f : a100.runs[0].findings)
            said = said || (f.code == "fp8_without_fp8_peak" && f.severity == "warning");
        QVERIFY(said);
        // FP4 stated on an H100 (FP8 tensor cores, no FP4): said likewise; on a B200 it is not.
        const Diagnosis h100 = diagnoseText(R"({"gpu":"h100-sxm","gpus":1,"model":"llama-3.1-8b",
            "precision":"fp4","seq_len":8192,"tokens_per_sec":9000})");
        bool saidFp4 = false;
        for (const auto& f : h100.runs[0].findings)
            saidFp4 = saidFp4 || (f.code == "fp4_without_fp4_peak" && f.severity == "warning");
        QVERIFY(saidFp4);
        const Diagnosis b200 = diagnoseText(R"({"gpu":"b200","gpus":1,"model":"llama-3.1-8b",
            "precision":"fp4","seq_len":8192,"tokens_per_sec":21111})");
        for (const auto& f : b200.runs[0].findings)
            QVERIFY(f.code != "fp4_without_fp4_peak");
    }

    void consistentReportHasNoErrors()
    {
        // Lambda's worked example (8B, 21,111 tokens/s, 54.34%), stated correctly.
        const Diagnosis d = diagnoseText(R"({"gpu":"b200","gpus":1,"model":"llama-3.1-8b","seq_len":8192,
            "tokens_per_sec":21111,"flops_per_token":57914449920,"achieved_tflops":1222.6,"peak_tflops":2250,
            "mfu":0.5434})");
        for (const auto& f : d.runs[0].findings)
            QVERIFY2(f.severity == "info", (f.code + ": " + f.message).c_str());
        QCOMPARE(qRound(d.mfu * 10000) / 100.0, 54.34);
    }

    void badReports_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("expected");
        QTest::newRow("no gpu") << R"({"gpus":2,"tokens_per_sec":1})"
                                << "run.gpu: missing";
        QTest::newRow("unknown gpu") << R"({"gpu":"z9000","tokens_per_sec":1,"params":1})"
                                     << "unknown hardware preset";
        QTest::newRow("typo key") << R"({"gpu":"b200","tokens_per_secs":1})"
                                  << "run.tokens_per_secs: unknown key";
        QTest::newRow("negative") << R"({"gpu":"b200","params":1,"tokens_per_sec":-3})"
                                  << "greater than zero";
        // Past any real job, with the key named (1e200 tokens/s had printed a 200-digit TFLOPS, 1e300 an inf).
        QTest::newRow("tokens/s past any job") << R"({"gpu":"b200","params":1,"tokens_per_sec":1e200})"
                                               << "run.tokens_per_sec: 1e+200 is beyond any real job";
        QTest::newRow("TFLOPS past any job") << R"({"gpu":"b200","params":1,"achieved_tflops":1e300})"
                                             << "run.achieved_tflops: 1e+300 is beyond any real job";
        QTest::newRow("string number") << R"({"gpu":"b200","params":1,"gpus":"8"})"
                                       << "must be a number";
        QTest::newRow("no throughput") << R"({"gpu":"b200","params":1000})"
                                       << "no throughput stated";
        QTest::newRow("no flops") << R"({"gpu":"b200","tokens_per_sec":5})"
                                  << "give a model";
        QTest::newRow("no seq for model") << R"({"gpu":"b200","model":"llama-3.1-8b","tokens_per_sec":5})"
                                          << "seq_len";
        QTest::newRow("empty runs") << R"({"runs":[]})"
                                    << "non-empty array";
        QTest::newRow("broken") << R"({"gpu": )"
                                << "report.json: not valid JSON at byte";
        // Another of the product's inputs is named for what it is, not refused for its first key.
        QTest::newRow("a config.json") << R"({"model_type":"llama","architectures":["LlamaForCausalLM"]})"
                                       << "report.json: is a Hugging Face config.json, not a report of training runs";
        QTest::newRow("a trace") << R"({"traceEvents":[]})"
                                 << "report.json: is a profiler trace (Chrome/Kineto JSON), not a report";
        QTest::newRow("a scenario") << R"({"format":"mfu-explorer-scenario","version":3})"
                                    << "report.json: is an MFU Explorer scenario file, not a report";
    }
    void gzipIsNamed() // a .json.gz given where the report's JSON text belongs
    {
        try {
            diagnoseText(std::string("\x1f\x8b\x08\x00", 4));
            QFAIL("expected an InputError");
        } catch (const InputError& e) {
            QCOMPARE(QString::fromUtf8(e.what()),
                QStringLiteral(
                    "report.json: is gzip-compressed (a profiler trace?), not a report of training runs (JSON)"));
        }
    }
    void badReports()
    {
        QFETCH(QString, json);
        QFETCH(QString, expected);
        try {
            diagnoseText(json.toStdString());
            QFAIL("expected an InputError");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(expected), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestDiagnosis)
#include "tst_diagnosis.moc"
