// Training logs with lines of 100,000 characters and more: std::regex recursed once per character and overflowed the
// stack (a crash in the CLI, the window and Python) on `Device: ...`, `GPUs: 111...`, `Iter N | Loss: ...` and a
// user's --log-pattern. Each must read without a crash and give what the line says, or nothing where the line
// cannot say it; a line over a mebibyte is skipped and counted rather than held whole.
#include <QtTest>

#include <sstream>

#include "core/errors.h"
#include "core/logs/training_log.h"

using namespace mfu::trace;

namespace {

constexpr size_t kLong = 100000;

TrainingLog parse(const std::string& text, const std::optional<LogPattern>& pattern = {})
{
    std::istringstream in(text);
    return parseTrainingLog(in, "train.log", pattern);
}

const std::string kNanogptStep = "iter 100: loss 3.1234, time 123.45ms, mfu 41.20%\n";

} // namespace

class TestHostileLogs : public QObject {
    Q_OBJECT
private slots:
    void longDeviceLine()
    {
        // The device name runs to the end of the line: beyond what a search sees, it is not known, not cut short.
        TrainingLog log = parse("Device: NVIDIA " + std::string(kLong, 'H') + "\n" + kNanogptStep);
        QCOMPARE(log.steps.size(), size_t(1));
        QVERIFY(!log.facts.device);
        log = parse("Device: NVIDIA H200\n" + std::string(kLong, ' ') + "Device: other\n" + kNanogptStep);
        QCOMPARE(log.facts.device.value_or(""), std::string("NVIDIA H200"));
    }

    void longGpuCount()
    {
        TrainingLog log = parse("GPUs: " + std::string(kLong, '1') + "\n" + kNanogptStep);
        QVERIFY(!log.facts.gpus); // no count has 100,000 digits
        log = parse("GPUs: 64 " + std::string(kLong, 'x') + "\n" + kNanogptStep);
        QCOMPARE(log.facts.gpus.value_or(0), 64);
    }

    // Step figures no number type holds or no job reaches, in a torchtitan log: E notation past a double's range,
    // nan and inf, a tokens/s of 100,000 digits, negative throughput. None becomes a figure (an inf tokens/s would
    // make every product of it inf), the step itself stays, and the one plain line keeps its figures.
    void figuresBeyondAnyNumber()
    {
        const TrainingLog log = parse("step: 1  loss: 2.0  tps: 1e400  tflops: 300  mfu: 30%\n"
                                      "step: 2  loss: 2.0  tps: nan  tflops: inf  mfu: 30%\n"
                                      "step: 3  loss: 2.0  tps: "
            + std::string(kLong, '9')
            + "  tflops: 300  mfu: 30%\n"
              "step: 4  loss: 2.0  tps: -5000  tflops: -1e3  mfu: -30%\n"
              "step: 5  loss: 2.0  tps: 5000  tflops: 300  mfu: 30%\n");
        QCOMPARE(log.steps.size(), size_t(5));
        for (size_t i = 0; i < 4; ++i) {
            QVERIFY2(!log.steps[i].tokensPerSec, qPrintable(QString::number(log.steps[i].tokensPerSec.value_or(0))));
            QVERIFY(!log.steps[i].tflops || *log.steps[i].tflops == 300.0);
        }
        QVERIFY(!log.steps[1].tflops);
        QVERIFY(!log.steps[3].tflops);
        QVERIFY(!log.steps[3].mfu);
        QCOMPARE(log.steps[4].tokensPerSec.value_or(0), 5000.0);
        QCOMPARE(log.steps[4].mfu.value_or(0), 0.3);
    }

    void longIterationBlockLines()
    {
        const std::string text = "Iter     10 | Loss: 10.7652 | Time: 1838ms | " + std::string(kLong, '-') + "\n"
            + "MFU: 10.44% | Achieved: 939.7 TF | Peak: 9000.0 TF " + std::string(kLong, '=') + "\n" + "Iter "
            + std::string(kLong, '1') + " | Loss: 1.0\n" // no step number has 100,000 digits
            + "Iter     20 | Loss: " + std::string(kLong, '9') + "\n"; // nor a loss
        const TrainingLog log = parse(text);
        QCOMPARE(log.format, std::string("iter_block"));
        QCOMPARE(log.steps.size(), size_t(2));
        QCOMPARE(log.steps[0].step, int64_t(10));
        QCOMPARE(log.steps[0].loss.value_or(0), 10.7652);
        QCOMPARE(log.steps[0].stepSeconds.value_or(0), 1.838);
        QCOMPARE(log.steps[0].mfu.value_or(0), 0.1044);
        QCOMPARE(log.steps[1].step, int64_t(20));
        QVERIFY(!log.steps[1].loss);
    }

    void userPatternOnLongLines()
    {
        const LogPattern p = logPatternFromGroups("step (\\d+) .*time ([\\d.]+)", "step=1,time_s=2");
        // The fields within the first 4 KiB: read. Beyond: the line gives no step (it cannot be read whole).
        const TrainingLog log = parse("step 1 " + std::string(kLong, 'a') + "\n" + "step 2 time 1.5 "
                + std::string(kLong, 'b') + "\n" + "step 3 " + std::string(kLong, 'c') + " time 2.5\n",
            p);
        QCOMPARE(log.steps.size(), size_t(1));
        QCOMPARE(log.steps[0].step, int64_t(2));
        QCOMPARE(log.steps[0].stepSeconds.value_or(0), 1.5);
        // A number cut by the window's end is not read as the digits it has.
        const LogPattern digits = logPatternFromGroups("step (\\d+)", "step=1");
        QVERIFY_THROWS_EXCEPTION(mfu::InputError, parse("step " + std::string(kLong, '7') + "\n", digits));
    }

    void overlongPatternIsRefused()
    {
        const LogPattern p = logPatternFromGroups(std::string(100000, 'a') + "(\\d+)", "step=1");
        try {
            parse(kNanogptStep, p);
            QFAIL("a 100,000-character pattern was compiled");
        } catch (const mfu::InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("longer than 2000 characters")), e.what());
        }
    }

    void lineOverAMebibyteIsSkippedAndCounted()
    {
        const TrainingLog log = parse(std::string(3 << 20, 'z') + "\n" + kNanogptStep + std::string(2 << 20, 'y'));
        QCOMPARE(log.longLinesSkipped, size_t(2)); // the last has no newline
        QCOMPARE(log.steps.size(), size_t(1));
        QCOMPARE(log.steps[0].mfu.value_or(0), 0.412);
        // A line of exactly the buffer's length minus nothing, and a last line without newline, still read.
        const TrainingLog plain = parse("x\n" + kNanogptStep.substr(0, kNanogptStep.size() - 1));
        QCOMPARE(plain.steps.size(), size_t(1));
        QCOMPARE(plain.longLinesSkipped, size_t(0));
    }
};

QTEST_GUILESS_MAIN(TestHostileLogs)
#include "tst_hostile_logs.moc"
