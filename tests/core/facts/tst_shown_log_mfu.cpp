// The one policy for a training log's recomputed MFU (core/facts/shown_log_mfu.h): shown when the log ran on the GPU
// the figure divides by, withheld with the GPU named when it did not (the device it names, or the GPU whose peak its
// TFLOPS / MFU divided by), whichever surface asks.
#include <QTest>

#include <sstream>

#include "b200_scaling_log.h"
#include "core/facts/shown_log_mfu.h"
#include "core/number_format.h"
#include "core/presets/presets.h"
#include "shipped_presets.h"

using namespace mfu;

namespace {

const std::vector<HardwareSpec>& hardware()
{
    return test::shippedPresets().hardware();
}

// The B200 scaling report's 8-GPU log (iteration blocks): it names its device, NVIDIA B200.
trace::TrainingLog b200Log()
{
    std::istringstream in(test::kB200ScalingLog);
    return trace::parseTrainingLog(in, "b200-8gpu.log");
}

trace::LogRunContext context(const char* model, const char* gpu, int64_t seq)
{
    trace::LogRunContext c;
    c.label = "run.log";
    c.model = *test::shippedPresets().findModel(model);
    if (gpu)
        c.hardware = *test::shippedPresets().findHardware(gpu);
    c.seqLen = seq;
    return c;
}

} // namespace

class TestShownLogMfu : public QObject {
    Q_OBJECT
private slots:
    // Read against its own GPU (or none given: the log's device is the GPU) the recomputed MFU is shown: 39.x%, as
    // the report's test of the same log reads it.
    void ownGpuIsShown()
    {
        for (const char* gpu : { "b200", static_cast<const char*>(nullptr) }) {
            const ShownLogMfu shown = shownLogMfu(b200Log(), context("llama-1.36b", gpu, 2048), hardware());
            QVERIFY(!shown.withheld);
            QVERIFY(!shown.warning);
            QVERIFY(shown.mfu());
            QVERIFY2(formatPercent(*shown.mfu()).rfind("39.", 0) == 0, formatPercent(*shown.mfu()).c_str());
            QCOMPARE(*shown.mfu(), shown.check.diagnosis->mfu);
        }
    }

    // The same log read against an H100: the diagnosis still computes a figure on the H100's peak, but the policy
    // shows none and names the log's GPU. Before issue 34 only the window withheld it; `trace LOGFILE --gpu` and the
    // report printed it.
    void namedOtherGpuIsWithheld()
    {
        const ShownLogMfu shown = shownLogMfu(b200Log(), context("llama-1.36b", "h100-sxm", 2048), hardware());
        QVERIFY(shown.check.diagnosis);
        QVERIFY(shown.check.diagnosis->runs.front().hasCorrectedMfu()); // the diagnosis alone would print it
        QVERIFY(!shown.mfu());
        QVERIFY(shown.withheld);
        QVERIFY2(shown.withheld->find("the file ran on NVIDIA B200") != std::string::npos, shown.withheld->c_str());
        QVERIFY2(shown.withheld->find("its peak does not apply") != std::string::npos, shown.withheld->c_str());
    }

    // A log that names no GPU but whose TFLOPS / MFU is a B200's peak (253.41 / 11.26% = 2,251 TFLOPS), read against
    // an H100: withheld, the B200 named.
    void impliedOtherGpuIsWithheld()
    {
        std::string text;
        for (int step = 1; step <= 4; ++step)
            text += "step: " + std::to_string(step)
                + "  loss: 9.1  memory: 60GiB(33%)  tps: 4,376  tflops: 253.41  mfu: 11.26%\n";
        std::istringstream in(text);
        const trace::TrainingLog log = trace::parseTrainingLog(in, "b200.log");
        const ShownLogMfu onH100 = shownLogMfu(log, context("llama-3.1-8b", "h100-sxm", 8192), hardware());
        QVERIFY(!onH100.mfu());
        QVERIFY(onH100.withheld);
        QVERIFY2(onH100.withheld->find("B200") != std::string::npos, onH100.withheld->c_str());
        const ShownLogMfu onB200 = shownLogMfu(log, context("llama-3.1-8b", "b200", 8192), hardware());
        QVERIFY(!onB200.withheld);
        QVERIFY(onB200.mfu());
    }

    // No diagnosis (no GPU anywhere): nothing shown, nothing withheld by the policy; the check says why.
    void noDiagnosis()
    {
        std::istringstream in("iter 1: loss 3.2000, time 500.00ms, mfu 30.00%\n"
                              "iter 2: loss 3.1000, time 500.00ms, mfu 30.00%\n");
        const trace::TrainingLog log = trace::parseTrainingLog(in, "nanogpt.log");
        const ShownLogMfu shown = shownLogMfu(log, context("llama-3.1-8b", nullptr, 8192), hardware());
        QVERIFY(!shown.check.diagnosis);
        QVERIFY(!shown.check.unavailable.empty());
        QVERIFY(!shown.mfu());
        QVERIFY(!shown.withheld);
    }
};

QTEST_APPLESS_MAIN(TestShownLogMfu)
#include "tst_shown_log_mfu.moc"
