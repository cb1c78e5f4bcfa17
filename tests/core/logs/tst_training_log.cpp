// Training-log parsers on the line formats of torchtitan (both eras, ANSI colours), Megatron-LM, nanoGPT, multi-line
// iteration blocks and a user pattern; run settings printed once; detection by content; medians after warm-up;
// errors; progress and cancel.
#include <QtTest>

#include <sstream>

#include "core/errors.h"
#include "core/logs/training_log.h"
#include "core/trace/byte_source.h"

using namespace mfu::trace;

namespace {
TrainingLog parse(const std::string& text, const std::optional<LogPattern>& pattern = {})
{
    std::istringstream in(text);
    return parseTrainingLog(in, "train.log", pattern);
}
} // namespace

class TestTraceLogs : public QObject {
    Q_OBJECT

private slots:
    void torchtitanWithColours()
    {
        const TrainingLog log
            = parse("[titan] 2025-01-01 12:00:00,000 - root - INFO - Training starts at step 1\n"
                    "[titan] 2025-01-01 12:00:05,000 - root - INFO - \x1b[31mstep: 20  \x1b[32mloss: 11.83506  "
                    "\x1b[33mgrad_norm:  9.6669  \x1b[34mmemory: 48.87GiB(51.44%)  \x1b[35mtps: 4,376  "
                    "\x1b[36mtflops: 253.41  \x1b[35mmfu: 25.62%\x1b[39m\n");
        QCOMPARE(log.format, std::string("torchtitan"));
        QCOMPARE(log.steps.size(), size_t(1));
        const LogStep& s = log.steps[0];
        QCOMPARE(s.step, int64_t(20));
        QCOMPARE(*s.tokensPerSec, 4376.0);
        QCOMPARE(*s.tflops, 253.41);
        QCOMPARE(*s.mfu, 0.2562);
        QCOMPARE(*s.loss, 11.83506);
        QVERIFY(!s.stepSeconds);
    }

    // torchtitan's memory figure is the memory in use and its share of the device's: the device's memory is a fact
    // of the log (issue 35: 9.46 GiB at 64.99% is a 14.56 GiB device, not the A100 its 312 TFLOPS fallback suggests).
    void deviceMemoryFromTorchtitansMemoryFigure()
    {
        const TrainingLog log = parse("step:  1  loss: 12.0  memory:  9.46GiB(64.99%)  tps: 7,000  tflops: 30.6  "
                                      "mfu: 9.81%\n"
                                      "step:  2  loss: 11.0  memory: 12.00GiB(82.45%)  tps: 7,000  tflops: 30.6  "
                                      "mfu: 9.81%\n");
        QVERIFY(log.facts.deviceMemoryBytes);
        QCOMPARE(qRound(*log.facts.deviceMemoryBytes / (1024.0 * 1024 * 1024) * 100), 1456); // the first line wins
        // Under 1% in use the rounded figures say too little; no memory figure, no fact.
        QVERIFY(!parse("step: 1  loss: 1.0  memory: 0.01GiB(0.01%)  tps: 7\n").facts.deviceMemoryBytes);
        QVERIFY(!parse("step: 1  loss: 1.0  tps: 7\n").facts.deviceMemoryBytes);
    }

    void torchtitanWpsEra()
    {
        const TrainingLog log = parse("step: 10  loss: 9.1000  memory: 30.10GiB(40.00%)  wps: 2,100  mfu: 12.50%\n");
        QCOMPARE(*log.steps[0].tokensPerSec, 2100.0);
        QVERIFY(!log.steps[0].tflops);
        QCOMPARE(*log.steps[0].mfu, 0.125);
    }

    // nanotron's step line, its figures in human_format ("1.23K" ms, "107K" tokens/s per GPU), and a user's
    // pattern whose capture carries a suffix: read as every other reader reads "853K", where they had been dropped.
    void nanotronAndSuffixedFigures()
    {
        const TrainingLog log
            = parse("[default0]:07/18/2024 12:00:01 [INFO|DP=0|PP=0|TP=0|ip-26-0-160-225]: iteration: 2 / 100 | "
                    "consumed_tokens: 2.1M | elapsed_time_per_iteration_ms: 1.23K | tokens_per_sec: 853K | "
                    "tokens_per_sec_per_gpu: 107K | global_batch_size: 256 | lm_loss: 5.6 | lr: 0.0003 | "
                    "model_tflops_per_gpu: 441 | hardware_tflops_per_gpu: 441 | grad_norm: 0.5\n");
        QCOMPARE(log.format, std::string("nanotron"));
        QCOMPARE(log.scope, LogScope::PerGpu);
        QCOMPARE(log.steps.size(), size_t(1));
        QCOMPARE(log.steps[0].step, int64_t(2));
        QCOMPARE(*log.steps[0].stepSeconds, 1.23);
        QCOMPARE(*log.steps[0].tokensPerSec, 107000.0);
        QCOMPARE(*log.steps[0].tflops, 441.0);
        QCOMPARE(*log.steps[0].loss, 5.6);
        QCOMPARE(*log.facts.globalBatchSamples, int64_t(256));
        LogPattern p;
        p.regex = R"(it (\d+) t (\S+))";
        p.stepGroup = 1;
        p.tokensPerSecGroup = 2;
        const TrainingLog custom = parse("it 1 t 853K\nit 2 t 1.5M\n", p);
        QCOMPARE(*custom.steps[0].tokensPerSec, 853000.0);
        QCOMPARE(*custom.steps[1].tokensPerSec, 1.5e6);
    }

    void megatron()
    {
        const TrainingLog log = parse(
            " [2025-01-01 12:00:00.000000] iteration       20/     100 | consumed samples: 2560 | elapsed time per "
            "iteration (ms): 1234.5 | throughput per GPU (TFLOP/s/GPU): 401.2 | learning rate: 3.000000E-04 | "
            "global batch size:   128 | lm loss: 5.123456E+00 | loss scale: 1.0 |\n");
        QCOMPARE(log.format, std::string("megatron"));
        const LogStep& s = log.steps[0];
        QCOMPARE(s.step, int64_t(20));
        QCOMPARE(*s.stepSeconds, 1.2345);
        QCOMPARE(*s.tflops, 401.2);
        QCOMPARE(*s.loss, 5.123456);
        QVERIFY(!s.mfu); // Megatron logs no MFU
    }

    void nanogptAndItsWarmupMfu()
    {
        const TrainingLog log = parse("iter 0: loss 10.9000, time 5000.00ms, mfu -100.00%\n"
                                      "iter 1: loss 9.0000, time 130.00ms, mfu -100.00%\n"
                                      "iter 2: loss 8.0000, time 120.00ms, mfu 40.00%\n"
                                      "iter 3: loss 7.0000, time 124.00ms, mfu 42.00%\n"
                                      "step 3: train loss 7.0, val loss 7.1\n");
        QCOMPARE(log.format, std::string("nanogpt"));
        QCOMPARE(log.steps.size(), size_t(4));
        QVERIFY(!log.steps[0].mfu); // -100% means "not estimated yet"
        QCOMPARE(*log.steps[0].stepSeconds, 5.0);
        const LogSummary s = summarizeLog(log, 1); // drop iter 0 (compilation)
        QCOMPARE(s.stepsUsed, size_t(3));
        QCOMPARE(*s.medianStepSeconds, 0.124); // median of 130, 120, 124 ms
        QCOMPARE(*s.medianMfu, 0.41); // median of 40% and 42%
        QVERIFY(!s.medianTflops);
    }

    void customPattern()
    {
        LogPattern p;
        p.regex = "it=(\\d+) dt=([\\d.]+)ms tflops=([\\d.]+)";
        p.stepGroup = 1;
        p.stepTimeGroup = 2;
        p.stepTimeScaleToSeconds = 1e-3;
        p.tflopsGroup = 3;
        const TrainingLog log = parse("noise\nit=7 dt=250.0ms tflops=300.5\n", p);
        QCOMPARE(log.format, std::string("custom"));
        QCOMPARE(log.steps[0].step, int64_t(7));
        QCOMPARE(*log.steps[0].stepSeconds, 0.25);
        QCOMPARE(*log.steps[0].tflops, 300.5);
    }

    void iterationBlockAcrossLines()
    {
        // The B200 scaling report's logger: the step line, then MFU/achieved/peak and tokens/s / FLOP/token on the
        // lines after it.
        const TrainingLog log = parse("  GPUs:                  8\n"
                                      "  Device:                NVIDIA B200\n"
                                      "  Hardware peak:         36000.0 TFLOPS (B200 bf16)\n"
                                      "  Batch size (micro):    24\n"
                                      "  Gradient accum steps:  64\n"
                                      "  Tokens per iteration:  25,165,824\n"
                                      "Iter 0: loss 10.8414, time 59848ms (warming up...)\n"
                                      "Training:  10%|### | 10/100 [05:23<44:35, 29.73s/iter]\n"
                                      "Iter     10 | Loss: 10.7715 | Time: 29452ms | LR: 1.65e-06\n"
                                      "MFU: 2.61% | Achieved: 938.2 TF | Peak: 36000.0 TF\n"
                                      "   Tokens/s: 106809 | FLOPs/token: 8.78 GF (6N+12LHQT: N=1.294B)\n"
                                      "Memory: 13.53 GB alloc | 103.26 GB peak | 111.23 GB reserved\n");
        QCOMPARE(log.format, std::string("iter_block"));
        QVERIFY(log.scope == LogScope::Unknown);
        QCOMPARE(log.steps.size(), size_t(2));
        QCOMPARE(*log.steps[0].stepSeconds, 59.848);
        QCOMPARE(*log.steps[0].loss, 10.8414);
        QVERIFY(!log.steps[0].mfu);
        const LogStep& s = log.steps[1];
        QCOMPARE(s.step, int64_t(10));
        QCOMPARE(*s.stepSeconds, 29.452);
        QCOMPARE(*s.loss, 10.7715);
        QCOMPARE(*s.mfu, 0.0261);
        QCOMPARE(*s.tflops, 938.2);
        QCOMPARE(*s.peakTflops, 36000.0);
        QCOMPARE(*s.tokensPerSec, 106809.0);
        QCOMPARE(*s.flopsPerToken, 8.78e9);
        const LogFacts& f = log.facts;
        QCOMPARE(*f.gpus, 8);
        QCOMPARE(*f.device, std::string("NVIDIA B200"));
        QCOMPARE(*f.peakTflops, 36000.0);
        QCOMPARE(*f.microBatch, int64_t(24));
        QCOMPARE(*f.gradAccum, int64_t(64));
        QCOMPARE(*f.tokensPerStep, 25165824.0);
    }

    void settingsOfTorchtitanAndMegatron()
    {
        const TrainingLog titan = parse("GPU capacity: NVIDIA H100 80GB HBM3 (0) with 79.10GiB memory\n"
                                        "Peak FLOPS used for computing MFU: 9.890e+14\n"
                                        "Training starts at step 1, with local batch size 2, global batch size 16, "
                                        "sequence length 8192, total steps 1000\n"
                                        "step:  1  loss: 12.0  tps: 7,000  mfu: 38.00%\n");
        QCOMPARE(titan.scope, LogScope::PerGpu);
        QCOMPARE(*titan.facts.device, std::string("NVIDIA H100 80GB HBM3"));
        QCOMPARE(*titan.facts.peakTflops, 989.0);
        QCOMPARE(*titan.facts.globalBatchSamples, int64_t(16));
        QCOMPARE(*titan.facts.microBatch, int64_t(2));
        QCOMPARE(*titan.facts.seqLen, int64_t(8192));
        // torchtitan since 2025: the device type instead of "GPU", no device index.
        for (const char* line : { "CUDA capacity: NVIDIA H100 80GB HBM3 with 79.11GiB memory\n",
                 "[rank0]:[titan] 2025-06-01 10:00:02,000 - root - INFO - CUDA capacity: NVIDIA H100 80GB HBM3 with "
                 "79.11GiB memory\n",
                 "GPU capacity: NVIDIA H100 80GB HBM3 with 79.11GiB memory\n" })
            QCOMPARE(parse(std::string(line) + "step:  1  loss: 12.0  tps: 7,000  mfu: 38.00%\n").facts.device,
                std::optional<std::string>("NVIDIA H100 80GB HBM3"));
        const TrainingLog megatron = parse("    seq_length ...................................... 4096\n"
                                           "    world_size ...................................... 64\n"
                                           " iteration       10/     100 | elapsed time per iteration (ms): 900.0 | "
                                           "global batch size:   256 | lm loss: 6.0E+00 |\n");
        QCOMPARE(*megatron.facts.seqLen, int64_t(4096));
        QCOMPARE(*megatron.facts.gpus, 64);
        QCOMPARE(*megatron.facts.globalBatchSamples, int64_t(256));
    }

    void modelSizeAsLogsStateIt()
    {
        // torchtitan's model line, nanoGPT's count, and "N=" beside a FLOP formula (the B200 scaling report).
        const auto statedSize = [](const char* line) {
            return parse(std::string(line) + "\nstep:  1  loss: 12.0  tps: 7,000  mfu: 38.00%\n").facts.modelParams;
        };
        QCOMPARE(*statedSize("Model llama3 8B size: 8,030,261,248 total parameters"), 8030261248.0);
        QCOMPARE(*statedSize("number of parameters: 123.69M"), 123.69e6);
        QCOMPARE(*statedSize("   Tokens/s: 106809 | FLOPs/token: 8.78 GF (6N+12LHQT: N=1.294B)"), 1.294e9);
        // Megatron's per-rank count is one rank's share, not the model's; a bare "N=3" is no size.
        QVERIFY(!statedSize(" > number of parameters on (tensor, pipeline) model parallel rank (0, 0): 1234567"));
        QVERIFY(!statedSize("run N=3 seeds"));
    }

    // Figures in E notation keep their exponent: "1.9185E+04" ms is 19.185 s, not 1.9 ms (the corrected MFU would
    // be 100 times off). A ',' inside a figure groups digits in threes or the figure is not read.
    void figuresInENotationAndGroups()
    {
        const TrainingLog megatron
            = parse(" iteration       10/     100 | elapsed time per iteration (ms): 1.9185E+04 | throughput per GPU "
                    "(TFLOP/s/GPU): 4.012e2 | lm loss: 6.0E+00 |\n");
        QCOMPARE(megatron.steps[0].stepSeconds.value_or(-1), 19.185);
        QCOMPARE(megatron.steps[0].tflops.value_or(-1), 401.2);
        const TrainingLog block = parse("  GPUs:                  8e0\n"
                                        "  Tokens per iteration:  2.5165824E+07\n"
                                        "Iter     10 | Loss: 10.7715 | Time: 2.9452E+04ms | LR: 1.65e-06\n"
                                        "MFU: 2.61% | Achieved: 9.382e2 TF | Peak: 36000.0 TF\n"
                                        "   Tokens/s: 1,9185 | FLOPs/token: 8.78 GF\n");
        const LogStep& s = block.steps[0];
        QCOMPARE(s.stepSeconds.value_or(-1), 29.452);
        QCOMPARE(s.tflops.value_or(-1), 938.2);
        QVERIFY(!s.tokensPerSec); // "1,9185": no grouping of threes, so not 19,185 nor 1.9185
        QCOMPARE(block.facts.gpus.value_or(-1), 8);
        QCOMPARE(block.facts.tokensPerStep.value_or(-1), 25165824.0);
        const TrainingLog titan = parse("step: 10  loss:  5.0000  memory: 10.00GiB(10.00%)  tps: 3,456  tflops: "
                                        "1,234.5  mfu: 40.00%\n");
        QCOMPARE(titan.steps[0].tokensPerSec.value_or(-1), 3456.0); // Python's f"{n:,}"
        QCOMPARE(titan.steps[0].tflops.value_or(-1), 1234.5);
    }

    void factsBeyondTheirTypeAreLeftOut()
    {
        // Fuzzing found a 6.7e29 sequence length converted to int64 (undefined behaviour): a fact no integer can
        // hold is left out, as if unstated, and the steps still parse.
        const TrainingLog log
            = parse("    seq_length ...................................... 666666666666666666666666666666\n"
                    "    world_size ...................................... 99999999999\n"
                    "    global_batch_size ............................... 256\n"
                    " iteration       10/     100 | elapsed time per iteration (ms): 900.0 | "
                    "lm loss: 6.0E+00 |\n");
        QVERIFY(!log.facts.seqLen);
        QVERIFY(!log.facts.gpus); // beyond int
        QCOMPARE(log.steps.size(), size_t(1));
    }

    void singleStepIsKeptDespiteWarmup()
    {
        const LogSummary s = summarizeLog(parse("step: 5  loss: 3.0  tps: 1,000  mfu: 20.00%\n"), 1);
        QCOMPARE(s.stepsUsed, size_t(1));
        QCOMPARE(s.warmupStepsLeftOut, size_t(0)); // said, not hidden: the one step asked to be left out is used
        QCOMPARE(*s.medianMfu, 0.2);
        const LogSummary four = summarizeLog(parse("step: 1  tps: 900\nstep: 2  tps: 1,000\nstep: 3  tps: 1,000\n"
                                                   "step: 4  tps: 1,100\n"),
            10);
        QCOMPARE(four.warmupStepsLeftOut, size_t(3));
        QCOMPARE(*four.medianTokensPerSec, 1100.0);
    }

    // A step that states 0 tokens/s (stalled, or a logger's placeholder) measured nothing: out of the median, and a
    // log of zeros states no throughput at all (it was diagnosed as "faster than the GPU's peak").
    void zeroFiguresMeasureNothing()
    {
        const LogSummary some = summarizeLog(
            parse("step: 1  tps: 4,000  tflops: 200.0\nstep: 2  tps: 0  tflops: 0.0\nstep: 3  tps: 4,200  "
                  "tflops: 210.0\nstep: 4  tps: 4,400  tflops: 220.0\n"),
            1);
        QCOMPARE(some.stepsUsed, size_t(3));
        QCOMPARE(*some.medianTokensPerSec, 4300.0);
        QCOMPARE(*some.medianTflops, 215.0);
        QCOMPARE(some.zeroFiguresLeftOut, size_t(2)); // step 2's tps and tflops
        const LogSummary zeros = summarizeLog(parse("step: 1  tps: 0\nstep: 2  tps: 0\nstep: 3  tps: 0\n"), 1);
        QVERIFY(!zeros.medianTokensPerSec);
    }

    // A logger whose counter overflowed prints 2^63 tokens/s: beyond any real job, so the figure leaves its step and
    // is counted; the step's other figures and a claimed MFU above 100% (the diagnosis' finding) stay.
    void figuresBeyondAnyJobAreDropped()
    {
        const TrainingLog log = parse("step: 1  tps: 4,000  tflops: 200.0\n"
                                      "step: 2  tps: 9223372036854775808  tflops: 210.0  mfu: 120.0%\n"
                                      "step: 3  tps: 4,200  tflops: 2e10\nstep: 4  tps: 4,400  tflops: 220.0\n");
        QCOMPARE(log.implausibleFiguresDropped, size_t(2));
        QVERIFY(!log.steps[1].tokensPerSec);
        QCOMPARE(*log.steps[1].tflops, 210.0);
        QCOMPARE(*log.steps[1].mfu, 1.2);
        QVERIFY(!log.steps[2].tflops);
        const LogSummary s = summarizeLog(log, 1);
        QCOMPARE(*s.medianTokensPerSec, 4300.0);
        QCOMPARE(*s.medianTflops, 215.0);
        QCOMPARE(s.zeroFiguresLeftOut, size_t(0));
        QCOMPARE(parse("step: 1  tps: 10000000000000\n").implausibleFiguresDropped, size_t(0)); // the ceiling itself
    }

    void patternFromGroups()
    {
        const LogPattern p
            = logPatternFromGroups("it=(\\d+) dt=([\\d.]+)ms mfu=([\\d.]+)", "step=1,time_ms=2,mfu_percent=3");
        const TrainingLog log = parse("it=3 dt=500ms mfu=45.5\nit=4 dt=510ms mfu=44.5\n", p);
        QCOMPARE(log.steps.size(), size_t(2));
        QCOMPARE(log.steps[1].step, int64_t(4));
        QCOMPARE(*log.steps[1].stepSeconds, 0.51);
        QCOMPARE(*log.steps[1].mfu, 0.445);
        QVERIFY_THROWS_EXCEPTION(mfu::InputError, logPatternFromGroups("x", "speed=1"));
        QVERIFY_THROWS_EXCEPTION(mfu::InputError, logPatternFromGroups("x", "step=0"));
        QVERIFY_THROWS_EXCEPTION(mfu::InputError, logPatternFromGroups("x", "step"));
    }

    void detectionByContent_data()
    {
        QTest::addColumn<QByteArray>("head");
        QTest::addColumn<bool>("isLog");
        QTest::newRow("torchtitan") << QByteArray("[titan] INFO - step: 1  loss: 3.0  tps: 100\n") << true;
        QTest::newRow("nanogpt") << QByteArray("config...\niter 1: loss 9.0, time 130.00ms, mfu -100.00%\n") << true;
        QTest::newRow("megatron") << QByteArray(" [2025-01-01 12:00:00] iteration 1/ 10 | elapsed time per iteration "
                                                "(ms): 5.0 |")
                                  << true;
        QTest::newRow("iter block") << QByteArray("Iter     10 | Loss: 10.7 | Time: 1838ms\n") << true;
        QTest::newRow("json array") << QByteArray("[\n {\"name\": \"step: 1 tps: 2\"}]") << false;
        QTest::newRow("kineto json") << QByteArray("{\"traceEvents\": [{\"name\": \"step: 1 tps: 2\"}]}") << false;
        QTest::newRow("gzip") << QByteArray("\x1f\x8b\x08\x00step: 1 tps: 2", 15) << false;
        QTest::newRow("sqlite") << QByteArray("SQLite format 3\0step: 1 tps: 2", 30) << false;
        QTest::newRow("prose") << QByteArray("just some notes\nabout a step\n") << false;
        QTest::newRow("empty") << QByteArray() << false;
    }

    void detectionByContent()
    {
        QFETCH(QByteArray, head);
        QFETCH(bool, isLog);
        QCOMPARE(looksLikeTrainingLog(std::string_view(head.constData(), size_t(head.size()))), isLog);
    }

    void errors()
    {
        QVERIFY_THROWS_EXCEPTION(mfu::InputError, parse("nothing to see\nhere\n"));
        LogPattern bad;
        bad.regex = "(";
        QVERIFY_THROWS_EXCEPTION(mfu::InputError, parse("x\n", bad));
    }

    // Progress about every MiB, ending at the stream's size; a set cancel flag stops the read with Cancelled.
    void progressAndCancel()
    {
        std::string text;
        for (int step = 1; text.size() < 3'000'000; ++step)
            text += "iter " + std::to_string(step) + ": loss 3.1234, time 123.45ms, mfu 41.20%\n";
        std::vector<std::pair<uint64_t, uint64_t>> reports;
        ReadControl control;
        control.onProgress = [&reports](uint64_t done, uint64_t total) { reports.emplace_back(done, total); };
        std::istringstream in(text);
        const TrainingLog log = parseTrainingLog(in, "train.log", {}, control);
        QCOMPARE(log.format, std::string("nanogpt"));
        QCOMPARE(reports.size(), size_t(3)); // after the 1st and 2nd MiB, and at the end
        QVERIFY(reports[0].first >= (1u << 20) && reports[0].first < (1u << 20) + 100);
        QCOMPARE(reports.back(), std::make_pair(uint64_t(text.size()), uint64_t(text.size())));

        std::atomic<bool> cancel { true };
        ReadControl cancelled;
        cancelled.cancel = &cancel;
        std::istringstream again(text);
        QVERIFY_THROWS_EXCEPTION(Cancelled, parseTrainingLog(again, "train.log", {}, cancelled));
    }
};

QTEST_GUILESS_MAIN(TestTraceLogs)
#include "tst_training_log.moc"
