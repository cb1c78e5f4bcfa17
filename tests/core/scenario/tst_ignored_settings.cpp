// Settings a scenario states that do nothing for its run are named with why (core/scenario/ignored_settings.h); the
// ones that act, or sit at their default, are not.
#include <QTest>

#include "core/scenario/ignored_settings.h"
#include "costmodel_fixtures.h"
#include "model_fixtures.h"

using namespace mfu;
using namespace mfu::test;

namespace {
std::vector<std::string> flagsOf(const std::vector<IgnoredSetting>& ignored)
{
    std::vector<std::string> flags;
    for (const IgnoredSetting& i : ignored)
        flags.emplace_back(i.flag);
    return flags;
}
} // namespace

class TestIgnoredSettings : public QObject {
    Q_OBJECT
private slots:
    void defaultsIgnoreNothing()
    {
        QVERIFY(ignoredSettings(scenarioFor(llama31_8b(), "h100-sxm", 8, 8192)).empty());
        QVERIFY(ignoredSettings(scenarioFor(mixtral_8x7b(), "h100-sxm", 8, 8192)).empty());
    }

    void statedButWithoutEffect()
    {
        Scenario s = scenarioFor(llama31_8b(), "h100-sxm", 8, 8192);
        s.flags.fusedExpertMlp = true;
        s.flags.fp4Recipe = Fp4Recipe::Mxfp4;
        s.parallelism.schedule = PipelineSchedule::ZeroBubble;
        s.parallelism.asyncTp = true;
        s.flags.recomputeLayers = 4;
        const auto ignored = ignoredSettings(s);
        QCOMPARE(flagsOf(ignored),
            (std::vector<std::string> {
                "async-tp", "schedule", "recompute-layers", "fp4-recipe", "fused-expert-mlp" }));
        QCOMPARE(std::string(ignored.back().why), std::string("the model has no experts"));
        QCOMPARE(ignoredSettingsText({ ignored.back() }), std::string("--fused-expert-mlp (the model has no experts)"));
        // Where they act, they are not named.
        s.model = mixtral_8x7b();
        s.precision = TrainingPrecision::BF16_FP4;
        s.parallelism.tp = 2;
        s.parallelism.pp = 2;
        s.activationCheckpointing = ActivationCheckpointing::Full;
        QVERIFY(ignoredSettings(s).empty());
    }
};

QTEST_GUILESS_MAIN(TestIgnoredSettings)
#include "tst_ignored_settings.moc"
