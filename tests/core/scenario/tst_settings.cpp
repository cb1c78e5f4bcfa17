// The settings table (core/scenario/settings.h): every setting round-trips through a scenario file, is refused
// beyond the same bounds from a file and from text, reads from a validation run's flat keys, and names no key, flag
// or field twice.
#include <QTest>

#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/io/field_reader.h"
#include "core/scenario/scenario_file.h"
#include "core/scenario/settings.h"
#include "core/scenario/settings_doc.h"
#include "shipped_presets.h"

using namespace mfu;

namespace {

ScenarioDocument documentOn(const Scenario& settings)
{
    ScenarioDocument d;
    d.scenario = settings;
    d.scenario.model = *test::shippedPresets().findModel("deepseek-v3");
    d.scenario.cluster.hardware = *test::shippedPresets().findHardware("h100-sxm");
    d.scenario.cluster.gpuCount = 1024;
    return d;
}

// A value away from the default for each kind: the largest count, the last choice, the other switch position.
void setAwayFromDefault(const Setting& s, Scenario& scenario)
{
    switch (s.kind) {
    case SettingKind::Count:
        applySettingValue(s, s.maximum, scenario);
        return;
    case SettingKind::Switch:
        applySettingValue(s, s.get(scenario) != 0 ? 0 : 1, scenario);
        return;
    case SettingKind::Choice:
        applySettingValue(s, s.choices.back().value, scenario);
        return;
    case SettingKind::Number:
        applySettingNumber(s, s.maximumNumber, scenario);
        return;
    case SettingKind::Text:
        applySettingText(s,
            s.key == "pipeline_layout"                  ? "Et*3|(tt|)*29m|L"
                : s.key == "activation_offload_modules" ? "expert_fc1,moe_act"
                                                        : "moe_act,layernorm",
            scenario);
        return;
    }
}

nlohmann::json fileWith(const Setting& s, const nlohmann::json& value)
{
    nlohmann::json file = scenarioToJson(documentOn(Scenario {}));
    switch (s.section) {
    case SettingSection::Top:
        file[std::string(s.key)] = value;
        break;
    case SettingSection::Workload:
        file["workload"][std::string(s.key)] = value;
        break;
    case SettingSection::Parallelism:
        file["parallelism"][std::string(s.key)] = value;
        break;
    case SettingSection::Flags:
        file["flags"][std::string(s.key)] = value;
        break;
    }
    return file;
}

} // namespace

class TestSettings : public QObject {
    Q_OBJECT
private slots:
    void keysFlagsAndFieldsAreUnique()
    {
        std::set<std::string_view> keys, flags, fields;
        for (const Setting& s : scenarioSettings()) {
            QVERIFY2(keys.insert(s.key).second, s.key.data());
            for (std::string_view alias : s.aliases)
                QVERIFY2(keys.insert(alias).second, alias.data());
            if (!s.flag.empty())
                QVERIFY2(flags.insert(s.flag).second, s.flag.data());
            if (!s.field.empty())
                QVERIFY2(fields.insert(s.field).second, s.field.data());
            QVERIFY2(!s.help.empty(), s.key.data());
            QVERIFY2(s.kind != SettingKind::Choice || !s.choices.empty(), s.key.data());
        }
        for (const SettingShorthand& shorthand : settingShorthands()) {
            QVERIFY2(flags.insert(shorthand.flag).second, shorthand.flag.data());
            for (const auto& [key, value] : shorthand.sets)
                QVERIFY2(findSetting(key), key.data());
        }
    }

    // Each setting moved off its default alone, written and read back: the file carries it, and nothing else moves.
    void everySettingRoundTripsThroughAFile()
    {
        for (const Setting& s : scenarioSettings()) {
            Scenario changed;
            setAwayFromDefault(s, changed);
            QVERIFY2(!isSettingDefault(s, changed), s.key.data());
            const ScenarioDocument back = scenarioFromJson(scenarioToJson(documentOn(changed)), "round trip", nullptr);
            for (const Setting& other : scenarioSettings())
                QVERIFY2(settingValueText(other, back.scenario) == settingValueText(other, changed),
                    (std::string(s.key) + " changed, " + std::string(other.key) + " read back as "
                        + settingValueText(other, back.scenario))
                        .c_str());
        }
    }

    // A setting left at its default and not written when default is absent from the file (older builds open it).
    void defaultsStayOutOfTheFileWhereDeclared()
    {
        const nlohmann::json file = scenarioToJson(documentOn(Scenario {}));
        for (const Setting& s : scenarioSettings()) {
            const nlohmann::json& section = s.section == SettingSection::Top ? file
                : s.section == SettingSection::Workload                      ? file.at("workload")
                : s.section == SettingSection::Parallelism                   ? file.at("parallelism")
                                                                             : file.at("flags");
            QCOMPARE(section.contains(std::string(s.key)), s.writtenWhenDefault);
        }
    }

    // The same bounds from a file and from text (a flag, a field): the largest value is taken, one more is refused
    // with the key and the range in the message.
    void countBoundsAreTheSameFromAFileAndFromText()
    {
        for (const Setting& s : scenarioSettings()) {
            if (s.kind != SettingKind::Count)
                continue;
            const ScenarioDocument atMost = scenarioFromJson(fileWith(s, s.maximum), "bounds", nullptr);
            QCOMPARE(s.get(atMost.scenario), s.maximum);
            try {
                scenarioFromJson(fileWith(s, s.maximum + 1), "bounds", nullptr);
                QFAIL((std::string(s.key) + ": a file beyond the maximum was read").c_str());
            } catch (const InputError& e) {
                QVERIFY2(std::string(e.what()).find(std::string(s.key)) != std::string::npos, e.what());
            }
            Scenario scenario;
            applySettingText(s, std::to_string(s.maximum), scenario);
            QCOMPARE(s.get(scenario), s.maximum);
            try {
                applySettingText(s, std::to_string(s.maximum + 1), scenario);
                QFAIL((std::string(s.key) + ": text beyond the maximum was taken").c_str());
            } catch (const InputError& e) {
                QVERIFY2(std::string(e.what()).find(settingRangeText(s)) != std::string::npos, e.what());
            }
            QVERIFY(!countBoundsReason(s, s.minimum - 1).empty());
            QVERIFY(countBoundsReason(s, s.minimum).empty());
        }
    }

    // The sequence length reads "32k" as 32,768 tokens on every surface, and 20M is as welcome in the window as
    // on the command line (both take the table's 100M bound).
    void sequenceLengthSpeaksTokens()
    {
        const Setting& seq = *findSetting("seq_len");
        Scenario s;
        applySettingText(seq, "32k", s);
        QCOMPARE(s.workload.seqLen, int64_t(32'768));
        applySettingText(seq, "20M", s);
        QCOMPARE(s.workload.seqLen, int64_t(20 * 1'048'576));
        QVERIFY_THROWS_EXCEPTION(InputError, applySettingText(seq, "1G", s));
    }

    void choicesReadTheirAliasesAndOlderBooleans()
    {
        Scenario s;
        applySettingText(*findSetting("precision"), "FP16", s);
        QCOMPARE(s.precision, TrainingPrecision::BF16);
        applySettingText(*findSetting("precision"), "bf16_fp8", s);
        QCOMPARE(s.precision, TrainingPrecision::BF16_FP8);
        applySettingText(*findSetting("schedule"), "interleaved", s);
        QCOMPARE(s.parallelism.schedule, PipelineSchedule::Interleaved1F1B);
        try {
            applySettingText(*findSetting("schedule"), "gpipe", s);
            QFAIL("an unknown schedule was taken");
        } catch (const InputError& e) {
            QCOMPARE(std::string(e.what()), std::string("'gpipe' is not one of 1f1b, interleaved_1f1b or zero_bubble"));
        }
        // Files before the overlap kinds wrote true for DualPipe.
        const ScenarioDocument older
            = scenarioFromJson(fileWith(*findSetting("expert_overlap"), true), "older", nullptr);
        QCOMPARE(older.scenario.parallelism.expertOverlap, ExpertOverlap::DualPipe);
        QCOMPARE(scenarioToJson(older)["parallelism"]["expert_overlap"], nlohmann::json(true));
    }

    void numbersKeepTheirRule()
    {
        const Setting& f = *findSetting("expert_capacity_factor");
        Scenario s;
        applySettingText(f, "1.25", s);
        QCOMPARE(s.parallelism.expertCapacityFactor, 1.25);
        QVERIFY_THROWS_EXCEPTION(InputError, applySettingText(f, "0.5", s));
        QVERIFY_THROWS_EXCEPTION(InputError, applySettingText(f, "17", s));
        QVERIFY_THROWS_EXCEPTION(InputError, scenarioFromJson(fileWith(f, 0.5), "rule", nullptr));
    }

    // A validation run is one flat object with the table's keys and their aliases ("seq", "checkpointing").
    void flatObjectsReadEverySection()
    {
        const nlohmann::json run = { { "seq", 4096 }, { "checkpointing", "full" }, { "tp", 8 }, { "compiled", false },
            { "virtual_stages", 4 }, { "recompute_modules", "moe_act" }, { "precision", "fp8" } };
        Scenario s;
        readSettings(FieldReader(run, ""), std::nullopt, s);
        applyImpliedSettings(s, false);
        QCOMPARE(s.workload.seqLen, int64_t(4096));
        QCOMPARE(s.activationCheckpointing, ActivationCheckpointing::Full);
        QCOMPARE(s.parallelism.tp, 8);
        QCOMPARE(s.flags.compiled, false);
        QCOMPARE(s.parallelism.schedule, PipelineSchedule::Interleaved1F1B); // implied by the virtual stages
        QCOMPARE(s.flags.recomputeModules, unsigned(RecomputeMoeActivation));
        QCOMPARE(s.precision, TrainingPrecision::BF16_FP8);
        try {
            readSettings(FieldReader(nlohmann::json { { "seq", 4096 }, { "tp", 0 } }, "runs[3]"), std::nullopt, s);
            QFAIL("tp 0 was read");
        } catch (const FieldError& e) {
            QCOMPARE(e.key(), std::string("runs[3].tp"));
        }
    }

    // docs/cli.md holds the table built from the settings: a flag added, renamed or re-bounded without the docs fails
    // here, and the expected table is written beside the test binary to paste in.
    void docsShowTheTable()
    {
        std::ifstream in(MFU_SOURCE_DIR "/docs/cli.md");
        QVERIFY(in);
        std::stringstream text;
        text << in.rdbuf();
        const std::string doc = text.str();
        const std::string begin = "<!-- settings table: built from core/scenario/settings_table.cpp -->\n";
        const std::string end = "<!-- end of settings table -->";
        const size_t from = doc.find(begin);
        const size_t to = doc.find(end);
        QVERIFY2(from != std::string::npos && to != std::string::npos, "docs/cli.md lost its settings table markers");
        const std::string shown = doc.substr(from + begin.size(), to - from - begin.size());
        const std::string expected = settingsMarkdownTable();
        if (shown != expected) {
            std::ofstream("settings_table.md") << expected;
            QFAIL("docs/cli.md's settings table differs from the settings: paste settings_table.md (written in the "
                  "test's working directory) between its markers");
        }
    }
};

QTEST_APPLESS_MAIN(TestSettings)
#include "tst_settings.moc"
