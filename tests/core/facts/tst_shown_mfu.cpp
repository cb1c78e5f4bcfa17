// The one policy for showing a measured MFU (core/facts/shown_mfu.h): shown with the facts the scenario does not
// share named beside it, withheld when the peak is another GPU's or the figure is impossible.
#include <QTest>

#include "core/facts/shown_mfu.h"
#include "core/model/model_spec.h"
#include "core/presets/presets.h"
#include "core/scenario/scenario_facts.h"
#include "shipped_presets.h"

using namespace mfu;

namespace {

// A bare 1e9-parameter model (6N = 6e9 FLOP/token) on one H100 SXM (989 TFLOPS dense BF16).
Scenario h100Scenario()
{
    Scenario s;
    s.model = bareModel(1000000000);
    s.cluster.hardware = *test::shippedPresets().findHardware("h100-sxm");
    s.cluster.gpuCount = 1;
    s.workload.seqLen = 8192;
    return s;
}

FileFacts h100Trace()
{
    FileFacts f;
    f.gpuName = "NVIDIA H100 80GB HBM3";
    return f;
}

const std::vector<HardwareSpec>& hardware()
{
    return test::shippedPresets().hardware();
}

} // namespace

class TestShownMfu : public QObject {
    Q_OBJECT
private slots:
    // 8,192 tokens per 0.5 s step: 16,384 tokens/s x 6e9 = 9.83e13 FLOP/s / 989e12 = 9.94%: shown, no warning.
    void sameGpuIsShown()
    {
        const Scenario s = h100Scenario();
        const ShownMfu shown
            = shownMeasuredMfu(scenarioMfuAtStepTime(s, 8192, 0.5), checkFacts(h100Trace(), s, 8192, hardware()));
        QVERIFY(shown.shown());
        QVERIFY(!shown.warning);
        QCOMPARE(shown.crossCheckable, std::optional(shown.computed.mfu));
        QVERIFY(std::abs(shown.computed.mfu - 16384 * 6e9 / 989e12) < 1e-12);
    }

    // The same H100 trace read against a B200 scenario: the peak is another GPU's, so no figure, whatever its size.
    void otherGpuIsWithheld()
    {
        Scenario s = h100Scenario();
        s.cluster.hardware = *test::shippedPresets().findHardware("b200");
        const ShownMfu shown
            = shownMeasuredMfu(scenarioMfuAtStepTime(s, 8192, 0.5), checkFacts(h100Trace(), s, 8192, hardware()));
        QVERIFY(!shown.shown());
        QVERIFY2(shown.withheld->find("its peak does not apply") != std::string::npos, shown.withheld->c_str());
        QVERIFY(shown.computed.mfu > 0 && shown.computed.mfu < 1); // plausible, and still withheld
        QVERIFY(!shown.crossCheckable); // another GPU's peak: nothing to set against the trace's own MFU
    }

    // Above 100% is withheld even on the right GPU, naming the fact that disagrees.
    void impossibleIsWithheld()
    {
        const Scenario s = h100Scenario();
        FileFacts f = h100Trace();
        f.gpuCount = 8;
        const ShownMfu shown
            = shownMeasuredMfu(scenarioMfuAtStepTime(s, 8192, 1e-3), checkFacts(f, s, 8192, hardware()));
        QVERIFY(shown.computed.mfu > 1);
        QVERIFY(!shown.shown());
        QVERIFY2(shown.withheld->find("GPU count 8 in the file vs 1 in the scenario") != std::string::npos,
            shown.withheld->c_str());
        // Withheld, but on the file's own GPU: the cross-check with the trace's own MFU still says why.
        QCOMPARE(shown.crossCheckable, std::optional(shown.computed.mfu));
    }

    // A plausible figure where the file states another GPU count: shown, with the difference said beside it.
    void differingFactIsWarned()
    {
        const Scenario s = h100Scenario();
        FileFacts f = h100Trace();
        f.gpuCount = 8;
        const ShownMfu shown
            = shownMeasuredMfu(scenarioMfuAtStepTime(s, 8192, 0.5), checkFacts(f, s, 8192, hardware()));
        QVERIFY(shown.shown());
        QVERIFY(shown.warning);
        QVERIFY2(shown.warning->find("GPU count 8 in the file vs 1 in the scenario") != std::string::npos,
            shown.warning->c_str());
    }
};

QTEST_APPLESS_MAIN(TestShownMfu)
#include "tst_shown_mfu.moc"
