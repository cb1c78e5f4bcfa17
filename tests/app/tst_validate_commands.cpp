// Every published run of the validation table whose model and GPU are presets is stated by the `predict` command
// `validate` gives it, and that command, read by the command line's own parser, predicts what `validate` predicts for
// the run: one scenario, one prediction, whichever surface states it.
#include <QCommandLineParser>
#include <QFile>
#include <QtTest>

#include <cmath>

#include "app/cli/scenario_flags.h"
#include "app/preset_store.h"
#include "app/validation_store.h"
#include "core/costmodel/cost_model.h"
#include "core/costmodel/validation.h"
#include "core/scenario/predict_command.h"

using namespace mfu;

namespace {

std::string shippedTable()
{
    QFile file(QStringLiteral(MFU_SOURCE_DIR "/presets/validation/runs.json"));
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read the validation table");
    return file.readAll().toStdString();
}

std::vector<ValidationRun> shippedRuns()
{
    return validationRunsFromJson(
        shippedTable(), app::presetLibrary(), "runs.json", &app::shippedValidationDefinitions());
}

// Equal within rounding of the last bits of a sum.
bool sameNumber(double a, double b)
{
    return std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b));
}

} // namespace

class TestValidateCommands : public QObject {
    Q_OBJECT
private slots:
    void everyCommandPredictsWhatValidateDoes()
    {
        const std::vector<ValidationRun> runs = shippedRuns();
        const ValidationReport report = runValidation(runs);
        size_t stated = 0;
        for (const ValidationRow& row : report.rows) {
            const ValidationRun& run = *row.run;
            if (!run.command.stated())
                continue;
            ++stated;
            const std::string line = run.id + ": " + shellCommandLine(run.command.arguments);
            QStringList args;
            for (const std::string& a : run.command.arguments)
                args << QString::fromStdString(a);
            QCommandLineParser parser;
            cli::addScenarioOptions(parser);
            QVERIFY2(parser.parse(args), qPrintable(QString::fromStdString(line) + ": " + parser.errorText()));
            QVERIFY2(parser.positionalArguments().isEmpty(), line.c_str());
            const Scenario s = cli::scenarioFromFlags(parser);
            const StepPrediction p = evaluate(s);
            QVERIFY2(sameNumber(p.stepTimeSeconds, row.prediction.stepTimeSeconds),
                (line + ": " + std::to_string(p.stepTimeSeconds) + " s against "
                    + std::to_string(row.prediction.stepTimeSeconds))
                    .c_str());
            QVERIFY2(sameNumber(p.memory.total(), row.prediction.memory.total()), line.c_str());
            QVERIFY2(sameNumber(p.mfu, row.prediction.mfu), line.c_str());
        }
        // Every run: those on a preset model and GPU, and those on the table's own (--model and --gpu name both).
        QCOMPARE(stated, runs.size());
    }

    // A table of the user's own: a model it defines under an id the command line does not name has no command, nor
    // has one that redefines a preset's id with other figures (the flag would name the preset); a preset model
    // the table leaves alone has one.
    void aModelNoFlagNamesHasNoCommand()
    {
        nlohmann::json table = nlohmann::json::parse(shippedTable());
        nlohmann::json mine = table["models"][0];
        mine["id"] = "my-model";
        nlohmann::json redefined = nlohmann::json::parse(R"({"id": "llama-3.1-8b", "name": "not Llama",
            "layers": 2, "hidden": 512, "heads": 8, "kv_heads": 8, "ffn_dim": 1024, "vocab": 1000,
            "activation": "swiglu", "norm": "rmsnorm", "source": "test"})");
        table["models"] = { mine, redefined };
        nlohmann::json run = table["runs"][0];
        run["model"] = "my-model";
        run["id"] = "mine";
        nlohmann::json shadowed = run;
        shadowed["model"] = "llama-3.1-8b";
        shadowed["id"] = "shadowed";
        shadowed.erase("pipeline_layout");
        nlohmann::json preset = shadowed;
        preset["model"] = "llama-3.1-70b";
        preset["id"] = "preset";
        table["runs"] = { run, shadowed, preset };
        const std::vector<ValidationRun> runs = validationRunsFromJson(
            table.dump(), app::presetLibrary(), "mine.json", &app::shippedValidationDefinitions());
        QCOMPARE(
            runs[0].command.unstatable, "no model preset is named 'my-model', nor does a config.json there hold it");
        QVERIFY(runs[0].command.arguments.empty());
        QCOMPARE(runs[1].command.unstatable, "the model preset 'llama-3.1-8b' is not this run's model");
        QVERIFY2(runs[2].command.stated(), runs[2].command.unstatable.c_str());
    }

    void shellLineReadsBackAsTheSameWords()
    {
        QCOMPARE(shellCommandLine({ "predict", "--pipeline-layout", "Et*3|(tt|)*29m|L", "--tp", "8" }),
            "mfu-explorer predict --pipeline-layout 'Et*3|(tt|)*29m|L' --tp 8");
        QCOMPARE(shellCommandLine({ "--model", "it's", "" }), "mfu-explorer --model 'it'\\''s' ''");
        QCOMPARE(shellCommandLine({ "--recompute-modules", "moe_act,layernorm", "--fraction", "0.25" }),
            "mfu-explorer --recompute-modules moe_act,layernorm --fraction 0.25");
    }
};

QTEST_GUILESS_MAIN(TestValidateCommands)
#include "tst_validate_commands.moc"
