// Settings a scenario states that do nothing for its run are named with why (core/scenario/ignored_settings.h); the
// ones that act, or sit at their default, are not.
#include <QTest>

#include <algorithm>
#include <string_view>

#include "core/scenario/ignored_settings.h"
#include "core/scenario/settings.h"
#include "costmodel_fixtures.h"
#include "model_fixtures.h"

using namespace mfu;
using namespace mfu::test;

namespace {

// The setting moved off its default, by its own kind: a switch flipped, another choice, a count or number within
// its bounds, a module list for the text settings.
void setOffDefault(const Setting& setting, Scenario& s)
{
    switch (setting.kind) {
    case SettingKind::Switch:
        setting.set(s, 1 - setting.get(s));
        return;
    case SettingKind::Choice:
        for (const SettingChoice& c : setting.choices)
            if (c.value != setting.get(s)) {
                setting.set(s, c.value);
                return;
            }
        return;
    case SettingKind::Count:
        setting.set(s, setting.get(s) == setting.maximum ? setting.minimum : setting.maximum);
        return;
    case SettingKind::Number: {
        const double current = setting.getNumber(s);
        for (double v : { setting.maximumNumber, 1.0, 0.5, setting.minimumNumber })
            if (v != current && v >= setting.minimumNumber && v <= setting.maximumNumber
                && (!setting.valid || setting.valid(v))) {
                setting.setNumber(s, v);
                return;
            }
        return;
    }
    case SettingKind::Text:
        setting.setText(s, setting.key == "activation_offload_modules" ? "expert_fc1" : "mlp");
        return;
    }
}

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

    void everyRuleNamesATableSettingAndFires()
    {
        // A dense BF16 run without TP, a pipeline, CP or checkpointing, its data parallelism DDP: every setting some
        // runs ignore, moved off its default, is ignored here, under its own key. A rule keyed by a word the table
        // does not have would never fire.
        const auto keys = settingsSomeRunsIgnore();
        QVERIFY(keys.size() >= 20);
        Scenario s = scenarioFor(llama31_8b(), "h100-sxm", 8, 8192);
        s.parallelism.dataParallel = DataParallelKind::Ddp;
        for (std::string_view key : keys) {
            const Setting* setting = findSetting(key);
            QVERIFY2(setting, std::string(key).c_str());
            setOffDefault(*setting, s);
            QVERIFY2(!isSettingDefault(*setting, s), std::string(key).c_str());
        }
        // The gradient sync's overlap is DDP's and ZeRO-1's: it is ignored once the data parallelism shards weights.
        const auto ignored = ignoredSettings(s);
        s.parallelism.dataParallel = DataParallelKind::Fsdp;
        const auto ignoredUnderFsdp = ignoredSettings(s);
        const auto has = [](const std::vector<IgnoredSetting>& list, std::string_view key) {
            return std::any_of(list.begin(), list.end(), [&](const IgnoredSetting& i) { return i.key == key; });
        };
        for (std::string_view key : keys)
            QVERIFY2(has(ignored, key) || has(ignoredUnderFsdp, key), std::string(key).c_str());
        QCOMPARE(ignored.size(), keys.size() - 1);
        QVERIFY(!has(ignored, "overlap_grad_reduce") && has(ignoredUnderFsdp, "overlap_grad_reduce"));
        QVERIFY(has(ignoredUnderFsdp, "overlap_param_gather"));
    }

    // The two overlap switches of DDP and ZeRO-1 under the default FSDP: stated, without effect, and said.
    void overlapSwitchesUnderFsdp()
    {
        Scenario s = scenarioFor(llama31_8b(), "h100-sxm", 64, 8192);
        s.parallelism.dataParallel = DataParallelKind::Fsdp;
        s.flags.overlapParamGather = false;
        s.flags.overlapGradReduce = false;
        QCOMPARE(flagsOf(ignoredSettings(s)),
            (std::vector<std::string> { "no-overlap-grad-reduce", "no-overlap-param-gather" }));
        s.parallelism.dataParallel = DataParallelKind::Zero1;
        QVERIFY(ignoredSettings(s).empty());
        s.parallelism.dataParallel = DataParallelKind::Ddp;
        QCOMPARE(flagsOf(ignoredSettings(s)), (std::vector<std::string> { "no-overlap-param-gather" }));
    }
};

QTEST_GUILESS_MAIN(TestIgnoredSettings)
#include "tst_ignored_settings.moc"
