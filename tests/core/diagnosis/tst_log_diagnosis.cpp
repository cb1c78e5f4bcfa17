// From a training log to the core diagnosis. The B200 scaling report's raw terminal lines (2-GPU and 8-GPU runs of
// LLaMA 1.36B on B200) must give the same findings and corrected MFU as the figures its report states
// (tst_diagnosis.cpp's the report, from examples/b200-scaling-report.json): a 4,500 TFLOPS sparse per-GPU denominator,
// a per-GPU numerator over a cluster peak, and real MFU 39.7% / 39.6%. Also: log settings vs user context, torchtitan's
// per-GPU scope, and the documented JSON.
#include <QtTest>

#include <nlohmann/json.hpp>

#include <sstream>

#include "core/diagnosis/diagnosis.h"
#include "core/diagnosis/diagnosis_json.h"
#include "core/diagnosis/log_diagnosis.h"
#include "core/errors.h"
#include "core/logs/log_json.h"
#include "diagnosis_test_support.h"
#include "shipped_presets.h"

using namespace mfu;
using mfu::test::percent;
using namespace mfu::trace;

namespace {

// The B200 scaling report, "Raw Terminal Logs" (box-drawing separators and emoji as in the report; progress bars
// shortened).
const char* const kTwoGpuLog = R"(  Device:                NVIDIA B200
  GPUs:                  2
  Memory per GPU:        191.5 GB
  Precision:             bfloat16
  Hardware peak:         9000.0 TFLOPS (B200 bf16)
  FLOPs per token:       8.78 GFLOPs
  Batch size (micro):    24
  Gradient accum steps:  64
  Effective batch size:  3072
  Tokens per iteration:  6,291,456
  Max iterations:        1,000
Training:   0%|                                                     | 0/1000 [00:00<?, ?iter/s]
Iter 0: loss 10.8422, time 32054ms (warming up...)
Training:   1%|▌                                                   | 10/1000 [00:48<36:31,  2.21s/iter]
────────────────────────────────────────────────────────────────────────────────
📍 Iter     10 │ Loss: 10.7652 │ Time: 1838ms │ LR: 1.65e-06
────────────────────────────────────────────────────────────────────────────────
⚡ MFU: 10.44% │ Achieved: 939.7 TF │ Peak: 9000.0 TF
   Tokens/s: 106979 │ FLOPs/token: 8.78 GF (6N+12LHQT: N=1.294B)
💾 Memory: 13.53 GB alloc │ 103.26 GB peak │ 111.23 GB reserved
)";

const char* const kEightGpuLog = R"(  Device:                NVIDIA B200
  GPUs:                  8
  Hardware peak:         36000.0 TFLOPS (B200 bf16)
  Batch size (micro):    24
  Gradient accum steps:  64
  Effective batch size:  12288
  Tokens per iteration:  25,165,824
Training:   0%|                                                     | 0/100 [00:00<?, ?iter/s]
Iter 0: loss 10.8414, time 59848ms (warming up...)
Training:  10%|████▍                                       | 10/100 [05:23<44:35, 29.73s/iter]
────────────────────────────────────────────────────────────────────────────────
📍 Iter     10 │ Loss: 10.7715 │ Time: 29452ms │ LR: 1.65e-06
────────────────────────────────────────────────────────────────────────────────
⚡ MFU: 2.61% │ Achieved: 938.2 TF │ Peak: 36000.0 TF
   Tokens/s: 106809 │ FLOPs/token: 8.78 GF (6N+12LHQT: N=1.294B)
💾 Memory: 13.53 GB alloc │ 103.26 GB peak │ 111.23 GB reserved
Training:  12%|█████▏                                      | 12/100 [06:22<43:17, 29.52s/iter]
)";

TrainingLog parse(const std::string& text)
{
    std::istringstream in(text);
    return parseTrainingLog(in, "train.log");
}

ReportedRun runFrom(const std::string& text, LogRunContext context)
{
    const TrainingLog log = parse(text);
    return reportedRunFromLog(log, summarizeLog(log, 1), context, test::shippedPresets().hardware());
}

// A log read against a scenario's model, GPU and sequence length (the GPU count from the log, unless set after).
LogRunContext logContext(const char* label, const char* model, const char* gpu, int64_t seqLen)
{
    LogRunContext c;
    c.label = label;
    c.model = *test::shippedPresets().findModel(model);
    c.hardware = *test::shippedPresets().findHardware(gpu);
    c.seqLen = seqLen;
    return c;
}

LogRunContext reportContext(const char* label)
{
    LogRunContext c;
    c.label = label;
    c.model = *test::shippedPresets().findModel("llama-1.36b"); // the GPU comes from the log's "Device:" line
    return c;
}

} // namespace

class TestLogDiagnosis : public QObject {
    Q_OBJECT
private slots:
    void b200ScalingRunsFromTheirLogs()
    {
        const ReportedRun two = runFrom(kTwoGpuLog, reportContext("2 GPU"));
        const ReportedRun eight = runFrom(kEightGpuLog, reportContext("8 GPU"));
        // What the logs state, read as the report's JSON states it.
        QCOMPARE(two.hardware.id, std::string("b200"));
        QCOMPARE(two.gpus, 2);
        QCOMPARE(eight.gpus, 8);
        QCOMPARE(*two.seqLen, int64_t(2048)); // 6,291,456 / (24 x 64 x 2 GPUs)
        QCOMPARE(*eight.tokensPerStep, 25165824.0);
        QCOMPARE(*two.stepTimeSeconds, 1.838); // iteration 10: iteration 0 is warm-up
        QCOMPARE(*eight.tokensPerSec, 106809.0);
        QCOMPARE(*two.achievedFlops, 939.7e12);
        QCOMPARE(*eight.peakFlops, 36000e12);
        QCOMPARE(*two.flopsPerToken, 8.78e9);
        QCOMPARE(*two.mfu, 0.1044);

        const Diagnosis d = diagnose({ two, eight }, test::shippedPresets().hardware());
        for (const auto& run : d.runs) {
            const Finding* sparse = test::findFinding(run.findings, "peak_is_sparse");
            QVERIFY(sparse);
            QCOMPARE(sparse->figures.at("peak_used_tflops_per_gpu"), 4500.0);
            QCOMPARE(sparse->figures.at("dense_peak_tflops_per_gpu"), 2250.0);
            QVERIFY(test::findFinding(run.findings, "per_gpu_over_cluster_peak"));
            QVERIFY(test::findFinding(run.findings, "flops_include_embeddings"));
        }
        QVERIFY(test::findFinding(d.runs[0].findings, "step_time_inconsistent"));
        QCOMPARE(percent(d.runs[0].mfu), 39.7);
        QCOMPARE(percent(d.runs[1].mfu), 39.6);
        QVERIFY(test::findFinding(d.comparison, "scaling"));
        QVERIFY(test::findFinding(d.comparison, "reported_mfu_change_artifact"));
    }

    void eachReportLogAlone()
    {
        // One log at a time (the `trace LOGFILE` path) reaches the same corrected MFU.
        const auto& hw = test::shippedPresets().hardware();
        QCOMPARE(percent(diagnose({ runFrom(kTwoGpuLog, reportContext("2 GPU")) }, hw).mfu), 39.7);
        QCOMPARE(percent(diagnose({ runFrom(kEightGpuLog, reportContext("8 GPU")) }, hw).mfu), 39.6);
    }

    void userContextWinsOverTheLog()
    {
        LogRunContext c = reportContext("override");
        c.hardware = *test::shippedPresets().findHardware("h100-sxm");
        c.gpus = 4;
        c.seqLen = 1024;
        c.tokensPerStep = 1e6;
        const ReportedRun run = runFrom(kEightGpuLog, c);
        QCOMPARE(run.hardware.id, std::string("h100-sxm"));
        QCOMPARE(run.gpus, 4);
        QCOMPARE(*run.seqLen, int64_t(1024));
        QCOMPARE(*run.tokensPerStep, 1e6);
    }

    void torchtitanIsPerGpuAndCountsSamples()
    {
        LogRunContext c;
        c.label = "titan";
        c.model = *test::shippedPresets().findModel("llama-1.36b");
        c.gpus = 8;
        const ReportedRun run
            = runFrom("GPU capacity: NVIDIA H100 80GB HBM3 (0) with 79.10GiB memory\n"
                      "Training starts at step 1, with local batch size 2, global batch size 16, sequence length "
                      "2048, total steps 10\n"
                      "step:  1  loss: 12.0  tps: 9,000  tflops: 80.0  mfu: 8.00%\n"
                      "step:  2  loss: 11.0  tps: 10,000  tflops: 90.0  mfu: 9.00%\n"
                      "step:  3  loss: 10.0  tps: 12,000  tflops: 100.0  mfu: 10.00%\n",
                c);
        QCOMPARE(run.hardware.id, std::string("h100-sxm"));
        QVERIFY(run.tokensPerSecScope == StatedScope::PerGpu);
        QVERIFY(run.achievedScope == StatedScope::PerGpu);
        QCOMPARE(*run.tokensPerSec, 11000.0); // median of steps 2 and 3
        QCOMPARE(*run.tokensPerStep, 16.0 * 2048);
        const Diagnosis d = diagnose({ run }, test::shippedPresets().hardware());
        QCOMPARE(d.runs[0].tokensPerSecPerGpu, 11000.0);
    }

    void missingGpuIsAClearError()
    {
        LogRunContext c;
        c.label = "nano.log";
        try {
            runFrom("iter 1: loss 9.0, time 130.00ms, mfu 40.00%\n", c);
            QFAIL("expected an InputError");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("give the GPU")), e.what());
        }
    }

    // The log's device name goes through the presets' "match" patterns: a V100 log finds its preset (FP16 peak), a
    // bare "NVIDIA A100" is ambiguous and the error lists the candidates, an unknown part says to give the GPU.
    void deviceNameMatchesPresetPatterns()
    {
        LogRunContext c;
        c.label = "v100.log";
        const ReportedRun v100
            = runFrom("Device: Tesla V100-SXM2-32GB\niter 1: loss 9.0, time 130.00ms, mfu 40.00%\n", c);
        QCOMPARE(v100.hardware.id, std::string("v100-sxm2-32gb"));
        QCOMPARE(v100.hardware.mfuPeak().value_or(0), 125e12);
        c.label = "a100.log";
        try {
            runFrom("Device: NVIDIA A100\niter 1: loss 9.0, time 130.00ms, mfu 40.00%\n", c);
            QFAIL("expected an InputError");
        } catch (const InputError& e) {
            const QString what = QString::fromUtf8(e.what());
            QVERIFY2(what.startsWith("a100.log: ") && what.contains("could be any of") && what.contains("a100-sxm-40gb")
                    && what.contains("a100-sxm-80gb"),
                e.what());
        }
        c.label = "a6000.log";
        try {
            runFrom("Device: NVIDIA RTX A6000\niter 1: loss 9.0, time 130.00ms, mfu 40.00%\n", c);
            QFAIL("expected an InputError");
        } catch (const InputError& e) {
            QVERIFY2(
                QString::fromUtf8(e.what()).contains(QStringLiteral("('NVIDIA RTX A6000'); give the GPU")), e.what());
        }
    }

    // A log's own figures, checked before it is corrected against the scenario's model and GPU.
    void logOfAnotherModelIsNotCorrected()
    {
        // tps 7,318 with 0.52 TFLOPS: 71 MFLOP/token, a model ~800 times smaller than Llama 3.1 8B (57.9 GFLOP/token
        // at 8,192). Corrected against Llama 3.1 8B it would read 42.85%.
        LogRunContext c = logContext("tiny.log", "llama-3.1-8b", "h100-sxm", 8192);
        const std::string line = "step: %1  loss: 7.1  memory: 1.2GiB(1.5%)  tps: 7,318  tflops: 0.52  mfu: 0.05%\n";
        std::string log;
        for (int step = 1; step <= 4; ++step)
            log += QString::fromStdString(line).arg(step).toStdString();
        const Diagnosis d = diagnose({ runFrom(log, c) }, test::shippedPresets().hardware());
        const RunDiagnosis& run = d.runs.front();
        const Finding* mismatch = test::findFinding(run.findings, "log_model_mismatch");
        QVERIFY(mismatch);
        QCOMPARE(mismatch->severity, std::string("error"));
        QCOMPARE(qRound(mismatch->figures.at("implied_flops_per_token") / 1e6), 71); // 0.52e12 / 7,318
        QCOMPARE(mismatch->figures.at("model_flops_per_token"), 57'914'449'920.0);
        QCOMPARE(qRound(mismatch->figures.at("implied_params") / 1e6), 12); // 71 MFLOP / 6
        QVERIFY(!run.hasCorrectedMfu());
        QVERIFY(!test::findFinding(run.findings, "corrected_mfu"));
        const nlohmann::json j = diagnosisToJson(d);
        QVERIFY(j["mfu"].is_null());
        QCOMPARE(j["runs"][0]["mfu_withheld"].get<std::string>(), std::string("log_model_mismatch"));
        QCOMPARE(qRound(j["runs"][0]["implied_params"].get<double>() / 1e6), 12);
    }

    // Megatron prints TFLOP/s and the iteration time, not tokens/s: the global batch over the step time is its
    // tokens/s, and with its TFLOP/s it implies the FLOP/token its logger counted. 128 x 8,192 tokens in 12.346 s on 64
    // GPUs is 1,327 tokens/s per GPU; 401.2 TFLOP/s of it is 302 GFLOP/token, 1.6 times fewer than Llama 3.1 70B's 481
    // at 8,192 and below even its 6N: the log is not of this model (or not at this sequence length). At 639 TFLOP/s
    // it is: nothing said, and the corrected MFU given.
    void megatronTflopsWithTheStepTimeImplyTheModel_data()
    {
        QTest::addColumn<double>("tflops");
        QTest::addColumn<bool>("mismatch");
        QTest::newRow("another model") << 401.2 << true;
        QTest::newRow("this model") << 639.0 << false;
    }
    void megatronTflopsWithTheStepTimeImplyTheModel()
    {
        QFETCH(double, tflops);
        QFETCH(bool, mismatch);
        LogRunContext c = logContext("megatron.log", "llama-3.1-70b", "h100-sxm", 8192);
        c.gpus = 64;
        std::string log;
        for (int step = 10; step <= 50; step += 10)
            log += " iteration " + std::to_string(step)
                + "/ 100 | consumed samples: 2560 | elapsed time per iteration (ms): 12345.6 | throughput per GPU "
                  "(TFLOP/s/GPU): "
                + QString::number(tflops, 'f', 1).toStdString()
                + " | learning rate: 3.000000E-04 | global batch size: 128 | lm loss: 5.123456E+00 |\n";
        const Diagnosis d = diagnose({ runFrom(log, c) }, test::shippedPresets().hardware());
        const RunDiagnosis& run = d.runs.front();
        const Finding* found = test::findFinding(run.findings, "log_model_mismatch");
        QCOMPARE(found != nullptr, mismatch);
        QCOMPARE(run.hasCorrectedMfu(), !mismatch);
        if (mismatch) {
            QCOMPARE(qRound(found->figures.at("implied_flops_per_token") / 1e9), 302);
            QVERIFY2(found->message.find("1.6 times fewer") != std::string::npos, found->message.c_str());
        }
    }

    // Megatron's batch-size ramp-up: 32 sequences a step for ten iterations, then 128. The batch had been read once,
    // from the first line, and the log's 8,192 tokens/s per GPU at the full batch read as "another model" four times
    // smaller. The medians keep the steps at the last step's batch, the tokens a step are that batch's, and the
    // ramp's steps are counted as left out.
    void batchRampUpCountsTheFinalBatch()
    {
        LogRunContext c = logContext("ramp.log", "llama-3.1-8b", "h100-sxm", 8192);
        c.gpus = 8;
        std::string log;
        for (int step = 1; step <= 30; ++step) {
            const int batch = step <= 10 ? 32 : 128;
            const double ms = batch * 8192.0 / (8192.0 * 8) * 1000; // 8,192 tokens/s per GPU at either batch
            log += " iteration " + std::to_string(step)
                + "/ 100 | elapsed time per iteration (ms): " + QString::number(ms, 'f', 1).toStdString()
                + " | throughput per GPU (TFLOP/s/GPU): 474.4 | global batch size: " + std::to_string(batch)
                + " | lm loss: 5.0E+00 |\n";
        }
        const TrainingLog parsed = parse(log);
        const LogSummary summary = summarizeLog(parsed, 1);
        QCOMPARE(summary.globalBatchSamples, std::optional<int64_t>(128));
        QCOMPARE(summary.otherBatchStepsLeftOut, size_t(9)); // the first step is warm-up
        QCOMPARE(summary.stepsUsed, size_t(20));
        QCOMPARE(summary.medianStepSeconds, std::optional<double>(16.0));
        const Diagnosis d = diagnose({ runFrom(log, c) }, test::shippedPresets().hardware());
        QVERIFY(!test::findFinding(d.runs[0].findings, "log_model_mismatch"));
        QVERIFY(d.runs[0].hasCorrectedMfu());
        QCOMPARE(percent(d.mfu), 48.0);
    }

    // A Megatron log without its arguments block states no GPU count: 1 was assumed silently, and its figures read
    // as "another model, of about 1.07B parameters" beside a step time "3.8x the dense BF16 peak". The count is named
    // as the missing fact, with the count at which the figures fit; given it, the log holds. Read against the wrong
    // model, the step time is no longer blamed for the model's disagreement.
    void missingGpuCountIsNamedNotAnotherModel()
    {
        LogRunContext c = logContext("megatron.log", "llama-3.1-8b", "h100-sxm", 8192);
        std::string log;
        for (int step = 1; step <= 5; ++step)
            log += " iteration " + std::to_string(step)
                + "/ 100 | elapsed time per iteration (ms): 16000.0 | throughput per GPU (TFLOP/s/GPU): 421.6 | "
                  "global batch size: 128 | lm loss: 5.0E+00 |\n";
        Diagnosis d = diagnose({ runFrom(log, c) }, test::shippedPresets().hardware());
        const Finding* missing = test::findFinding(d.runs[0].findings, "log_gpu_count_missing");
        QVERIFY(missing);
        QCOMPARE(missing->figures.at("gpu_count_that_fits"), 8.0);
        QVERIFY(!test::findFinding(d.runs[0].findings, "log_model_mismatch"));
        QVERIFY(!test::findFinding(d.runs[0].findings, "step_time_inconsistent"));
        QCOMPARE(d.runs[0].withheld, std::optional<std::string>("log_gpu_count_missing"));
        c.gpus = 8;
        d = diagnose({ runFrom(log, c) }, test::shippedPresets().hardware());
        QVERIFY(d.runs[0].hasCorrectedMfu());
        QCOMPARE(percent(d.mfu), 48.0);
        c.model = *test::shippedPresets().findModel("llama-3.1-70b");
        d = diagnose({ runFrom(log, c) }, test::shippedPresets().hardware());
        QVERIFY(test::findFinding(d.runs[0].findings, "log_model_mismatch"));
        QVERIFY(!test::findFinding(d.runs[0].findings, "step_time_inconsistent"));
    }

    // A torchtitan log of a hybrid Mamba-Transformer MoE (Nemotron 3 Nano: 6 of 52 layers attend the whole
    // sequence) whose TFLOPS count PaLM's full attention on every layer: 928.07 TFLOPS at 9,000 tokens/s imply
    // 103.12 GFLOP/token, PaLM's count at 32k, where the model counts 29.28 layer by layer. The corrected MFU
    // was given with no word of why it is 3.5 times below the log's; the finding a stated count gets now says it.
    void impliedPalmCountOfAHybridIsNamed()
    {
        const ModelSpec* nano = test::shippedPresets().findModel("nemotron-3-nano-30b-a3b");
        if (!nano)
            QSKIP("no nemotron-3-nano-30b-a3b preset");
        LogRunContext c;
        c.label = "nano.log";
        c.model = *nano;
        c.hardware = *test::shippedPresets().findHardware("b200");
        c.seqLen = 32768;
        std::string log;
        for (int step = 1; step <= 4; ++step)
            log += "step: " + std::to_string(step) + "  loss: 3.0  tps: 9,000  tflops: 928.07  mfu: 41.25%\n";
        const Diagnosis d = diagnose({ runFrom(log, c) }, test::shippedPresets().hardware());
        const Finding* palm = test::findFinding(d.runs[0].findings, "palm_counts_every_layer_as_full_attention");
        QVERIFY(palm);
        QVERIFY2(palm->message.find("imply 103.1") != std::string::npos, palm->message.c_str());
        QCOMPARE(qRound(palm->figures.at("full_attention_layers")), 6);
        QVERIFY(d.runs[0].hasCorrectedMfu());
        QCOMPARE(percent(d.mfu), 11.7);
    }

    // nanoGPT divides by the A100's 312 TFLOPS on any GPU and prints no peak: its 42.09% on an H100 was corrected
    // to 9.68% with no word of the 3.2x. Its fixed denominator is checked as a stated peak (peak_wrong_gpu), and
    // its "tokens per iteration will be: 491,520" gives the tokens a step, where --tokens-per-step was needed.
    void nanoGptDividesByTheA100sPeak()
    {
        const ModelSpec* gpt2 = test::shippedPresets().findModel("gpt2");
        if (!gpt2)
            QSKIP("no gpt2 preset");
        LogRunContext c;
        c.label = "nanogpt.log";
        c.model = *gpt2;
        c.hardware = *test::shippedPresets().findHardware("h100-sxm");
        c.gpus = 8;
        c.seqLen = 1024;
        std::string log = "tokens per iteration will be: 491,520\n";
        for (int step = 0; step <= 6; ++step)
            log += "iter " + std::to_string(step) + ": loss 3.4, time 400.00ms, mfu " + (step < 5 ? "-100.00" : "42.09")
                + "%\n";
        const Diagnosis d = diagnose({ runFrom(log, c) }, test::shippedPresets().hardware());
        const Finding* peak = test::findFinding(d.runs[0].findings, "peak_wrong_gpu");
        QVERIFY(peak);
        QVERIFY2(peak->message.find("A100") != std::string::npos, peak->message.c_str());
        QCOMPARE(peak->figures.at("stated_peak_tflops"), 312.0);
        QVERIFY(d.runs[0].hasCorrectedMfu());
        QCOMPARE(qRound(d.runs[0].tokensPerSecPerGpu), 153600); // 491,520 tokens / 0.4 s / 8 GPUs
    }

    void logOfAnotherGpuIsNotCorrected()
    {
        // 253.41 TFLOPS at 11.26% MFU: the log divided by 2,250 TFLOPS, a B200's (or B300's) dense BF16 peak, while
        // the scenario says H100. Its FLOP/token (253.41e12 / 4,376 = 57.9 G) is Llama 3.1 8B's: only the GPU differs.
        LogRunContext c = logContext("b200.log", "llama-3.1-8b", "h100-sxm", 8192);
        std::string log;
        for (int step = 1; step <= 4; ++step)
            log += "step: " + std::to_string(step)
                + "  loss: 9.1  memory: 60GiB(33%)  tps: 4,376  tflops: 253.41  mfu: 11.26%\n";
        Diagnosis d = diagnose({ runFrom(log, c) }, test::shippedPresets().hardware());
        const Finding* mismatch = test::findFinding(d.runs[0].findings, "log_peak_mismatch");
        QVERIFY(mismatch);
        QVERIFY2(mismatch->message.find("B200") != std::string::npos, mismatch->message.c_str());
        QCOMPARE(qRound(mismatch->figures.at("implied_peak_tflops")), 2251);
        QVERIFY(!test::findFinding(d.runs[0].findings, "log_model_mismatch"));
        QCOMPARE(d.runs[0].impliedGpuId, std::optional<std::string>("b200"));
        QVERIFY(diagnosisToJson(d)["mfu"].is_null());
        // On the GPU it names, the same log is consistent and corrected.
        c.hardware = *test::shippedPresets().findHardware("b200");
        d = diagnose({ runFrom(log, c) }, test::shippedPresets().hardware());
        QVERIFY(!test::findFinding(d.runs[0].findings, "log_peak_mismatch"));
        QVERIFY(d.runs[0].hasCorrectedMfu());
        QCOMPARE(percent(d.mfu), 11.3);
    }

    // torchtitan prints the peak it divides by, its own device's ("Peak FLOPS used for computing MFU: 9.890e+14").
    // Read against a B200, that line says the run was on a Hopper, as the TFLOPS / MFU ratio says without it: the
    // correction is withheld and the GPUs of that peak named, never the MI300A's 980.6 TFLOPS (within 1% of 989),
    // and no "wrong peak" is charged to the log. On an H100 the same log holds.
    void printedPeakOfAnotherGpuNamesThatGpu()
    {
        LogRunContext c = logContext("h100.log", "llama-3.1-8b", "b200", 8192);
        std::string log = "[rank0]:[titan] 2025-06-01 10:00:04,000 - root - INFO - Peak FLOPS used for computing MFU: "
                          "9.890e+14\n";
        for (int step = 1; step <= 4; ++step)
            log += "[rank0]:[titan] 2025-06-01 10:00:05,000 - root - INFO - step: " + std::to_string(step)
                + "  loss:  9.1000  tps: 6,000  tflops: 347.48  mfu: 35.13%\n";
        Diagnosis d = diagnose({ runFrom(log, c) }, test::shippedPresets().hardware());
        const Finding* mismatch = test::findFinding(d.runs[0].findings, "log_peak_mismatch");
        QVERIFY(mismatch);
        QVERIFY2(mismatch->message.find("H100") != std::string::npos, mismatch->message.c_str());
        QVERIFY2(mismatch->message.find("MI300A") == std::string::npos, mismatch->message.c_str());
        QVERIFY(!test::findFinding(d.runs[0].findings, "peak_wrong_gpu"));
        QVERIFY(!d.runs[0].hasCorrectedMfu());
        c.hardware = *test::shippedPresets().findHardware("h100-sxm");
        d = diagnose({ runFrom(log, c) }, test::shippedPresets().hardware());
        QVERIFY(!test::findFinding(d.runs[0].findings, "log_peak_mismatch"));
        QVERIFY(!test::findFinding(d.runs[0].findings, "peak_wrong_gpu"));
        QCOMPARE(percent(d.mfu), 35.1);
    }

    // Issue 35: TFLOPS / MFU = 306 on a device of 14.6 GiB. The A100 has that peak but not that memory: the finding
    // says torchtitan's fallback, names no GPU, and the report offers no "on the A100 it would be".
    void fallbackPeakWithAContradictingMemoryNamesNoGpu()
    {
        LogRunContext c = logContext("t4.log", "llama-3.1-8b", "b200", 8192);
        std::string log;
        for (int step = 1; step <= 4; ++step)
            log += "step: " + std::to_string(step)
                + "  loss: 9.1  memory:  9.46GiB(64.99%)  tps: 528  tflops: 30.6  mfu: 10.00%\n";
        const Diagnosis d = diagnose({ runFrom(log, c) }, test::shippedPresets().hardware());
        QVERIFY(!test::findFinding(d.runs[0].findings, "log_peak_mismatch"));
        QVERIFY(!d.runs[0].impliedGpuId);
        const Finding* fallback = test::findFinding(d.runs[0].findings, "log_peak_fallback");
        QVERIFY(fallback);
        QVERIFY2(fallback->message.find("torchtitan's fallback peak (312.0 TFLOPS)") != std::string::npos,
            fallback->message.c_str());
        QVERIFY2(fallback->message.find("14.6 GiB") != std::string::npos, fallback->message.c_str());
        QCOMPARE(qRound(fallback->figures.at("device_memory_gib") * 100), 1456);
        // Counted on the B200 the window's scenario names, the 14.6 GiB device is no B200: no corrected MFU.
        const Finding* memory = test::findFinding(d.runs[0].findings, "log_memory_mismatch");
        QVERIFY(memory);
        QVERIFY2(memory->message.find("14.6 GiB") != std::string::npos
                && memory->message.find("167.6 GiB") != std::string::npos,
            memory->message.c_str());
        QCOMPARE(d.runs[0].withheld, std::optional<std::string>("log_memory_mismatch"));
        QVERIFY(!d.runs[0].hasCorrectedMfu());
        // On a GPU of that memory (a V100 16GB: 16 GB, 14.9 GiB) the same log is not refused for its memory.
        c.hardware = *test::shippedPresets().findHardware("v100-sxm2-16gb");
        const Diagnosis v100 = diagnose({ runFrom(log, c) }, test::shippedPresets().hardware());
        QVERIFY(!test::findFinding(v100.runs[0].findings, "log_memory_mismatch"));
    }

    // The same finding that says the model does not match the figures (237 times off) must not price the run on
    // the GPU it implies with that model.
    void noMfuOnTheImpliedGpuWhenTheModelDoesNotMatch()
    {
        LogRunContext c = logContext("tiny.log", "llama-3.1-8b", "h100-sxm", 8192);
        std::string log;
        // 0.52 TFLOPS at 7,318 tokens/s: 71 MFLOP/token (not Llama 3.1 8B's 57.9 G); / 0.0231% = 2,250 TFLOPS (B200)
        for (int step = 1; step <= 4; ++step)
            log += "step: " + std::to_string(step) + "  loss: 9.1  tps: 7,318  tflops: 0.52  mfu: 0.0231%\n";
        const Diagnosis d = diagnose({ runFrom(log, c) }, test::shippedPresets().hardware());
        QVERIFY(test::findFinding(d.runs[0].findings, "log_model_mismatch"));
        const Finding* peak = test::findFinding(d.runs[0].findings, "log_peak_mismatch");
        QVERIFY(peak);
        QVERIFY2(peak->message.find("it would be") == std::string::npos, peak->message.c_str());
        QVERIFY(!peak->figures.count("corrected_mfu_on_implied_gpu"));
    }

    // Every rank printing to one console: torchrun's "[rank3]:" prefix, lines interleaved. Each step counts once.
    void perRankCopiesOfAStepCountOnce()
    {
        std::string text;
        const int order[][2] = { { 0, 1 }, { 1, 1 }, { 0, 2 }, { 2, 1 }, { 3, 1 }, { 1, 2 }, { 2, 2 }, { 3, 2 },
            { 0, 3 }, { 1, 3 }, { 3, 3 }, { 2, 3 } };
        for (const auto& [rank, step] : order)
            text += "[rank" + std::to_string(rank)
                + "]:[titan] 2025-05-01 10:00:00,000 - root - INFO - step: " + std::to_string(step)
                + "  loss: 9.0  tps: " + std::to_string(4000 + 100 * rank) + "  tflops: 200.0  mfu: 20.22%\n";
        const TrainingLog log = parse(text);
        QCOMPARE(log.steps.size(), size_t(3));
        QCOMPARE(log.rankCopiesMerged, size_t(9));
        for (const LogStep& s : log.steps)
            QCOMPARE(*s.tokensPerSec, 4150.0); // the mean of the four ranks' 4,000..4,300
        QCOMPARE(summarizeLog(log, 1).stepsUsed, size_t(2));
        QCOMPARE(logToJson(log, summarizeLog(log, 1), 1)["rank_copies_merged"].get<int>(), 9);
    }

    void repeatedStepLinesWithoutPrefixCountOnce()
    {
        const TrainingLog log = parse("step: 1  loss: 9.0  tps: 1,000  tflops: 50.0  mfu: 5.06%\n"
                                      "step: 1  loss: 9.0  tps: 3,000  tflops: 50.0  mfu: 5.06%\n"
                                      "step: 2  loss: 8.0  tps: 2,000  tflops: 50.0  mfu: 5.06%\n"
                                      "step: 2  loss: 8.0  tps: 2,000  tflops: 50.0  mfu: 5.06%\n");
        QCOMPARE(log.steps.size(), size_t(2));
        QCOMPARE(*log.steps[0].tokensPerSec, 2000.0);
        QCOMPARE(log.rankCopiesMerged, size_t(2));
    }

    void restartIsNotACopy()
    {
        // Steps 1-6, then a restart from a checkpoint at step 3: another run in the same file, not copies.
        std::string text;
        for (int step : { 1, 2, 3, 4, 5, 6, 3, 4, 5 })
            text += "step: " + std::to_string(step) + "  loss: 9.0  tps: 1,000  tflops: 50.0  mfu: 5.06%\n";
        const TrainingLog log = parse(text);
        QCOMPARE(log.steps.size(), size_t(9));
        QCOMPARE(log.rankCopiesMerged, size_t(0));
    }

    void documentedJson()
    {
        const TrainingLog log = parse(kEightGpuLog);
        const nlohmann::json j = logToJson(log, summarizeLog(log, 1), 1);
        QCOMPARE(j["format"].get<std::string>(), std::string("iter_block"));
        QCOMPARE(j["scope"].get<std::string>(), std::string("unknown"));
        QCOMPARE(j["facts"]["gpus"].get<int>(), 8);
        QCOMPARE(j["steps"].size(), size_t(2));
        QVERIFY(j["steps"][0]["mfu_claimed"].is_null());
        QCOMPARE(j["steps"][1]["mfu_claimed"].get<double>(), 0.0261);
        QCOMPARE(j["summary"]["steps_used"].get<size_t>(), size_t(1));
        QCOMPARE(j["summary"]["median_step_time_s"].get<double>(), 29.452);
        for (const char* key : { "median_tokens_per_sec", "median_tflops", "median_mfu_claimed", "median_peak_tflops",
                 "median_flops_per_token" })
            QVERIFY2(j["summary"].contains(key), key);
    }
};

QTEST_GUILESS_MAIN(TestLogDiagnosis)
#include "tst_log_diagnosis.moc"
