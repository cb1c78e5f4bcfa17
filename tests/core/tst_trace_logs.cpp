// Training-log parsers on the line formats of torchtitan (both eras, ANSI colours), Megatron-LM, nanoGPT and a
// user pattern; medians after warm-up; errors.
#include <QtTest>

#include <sstream>

#include "core/errors.h"
#include "core/trace/training_log.h"

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
        QCOMPARE(*s.tokensPerSecPerGpu, 4376.0);
        QCOMPARE(*s.tflopsPerGpu, 253.41);
        QCOMPARE(*s.mfu, 0.2562);
        QCOMPARE(*s.loss, 11.83506);
        QVERIFY(!s.stepSeconds);
    }

    void torchtitanWpsEra()
    {
        const TrainingLog log = parse("step: 10  loss: 9.1000  memory: 30.10GiB(40.00%)  wps: 2,100  mfu: 12.50%\n");
        QCOMPARE(*log.steps[0].tokensPerSecPerGpu, 2100.0);
        QVERIFY(!log.steps[0].tflopsPerGpu);
        QCOMPARE(*log.steps[0].mfu, 0.125);
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
        QCOMPARE(*s.tflopsPerGpu, 401.2);
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
        QVERIFY(!s.medianTflopsPerGpu);
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
        QCOMPARE(*log.steps[0].tflopsPerGpu, 300.5);
    }

    void errors()
    {
        QVERIFY_THROWS_EXCEPTION(mfu::InputError, parse("nothing to see\nhere\n"));
        LogPattern bad;
        bad.regex = "(";
        QVERIFY_THROWS_EXCEPTION(mfu::InputError, parse("x\n", bad));
    }
};

QTEST_GUILESS_MAIN(TestTraceLogs)
#include "tst_trace_logs.moc"
