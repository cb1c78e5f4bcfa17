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
#include "core/presets/hf_config.h"
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

std::vector<ValidationRun> withCommands(std::vector<ValidationRun> runs)
{
    statePredictCommands(runs, app::presetLibrary(), &app::shippedValidationDefinitions());
    return runs;
}

std::vector<ValidationRun> shippedRuns()
{
    return withCommands(validationRunsFromJson(shippedTable(), app::presetLibrary(), "runs.json"));
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
        const std::vector<ValidationRun> runs
            = withCommands(validationRunsFromJson(table.dump(), app::presetLibrary(), "mine.json"));
        QCOMPARE(
            runs[0].command.unstatable, "no model preset is named 'my-model', nor does a config.json there hold it");
        QVERIFY(runs[0].command.arguments.empty());
        QCOMPARE(runs[1].command.unstatable, "the model preset 'llama-3.1-8b' is not this run's model");
        QVERIFY2(runs[2].command.stated(), runs[2].command.unstatable.c_str());
    }

    // Flags -> scenario -> command -> scenario: the command states what the flags made (packing, padding, vision
    // tokens, the formula and switches included), and states it again the same way.
    void commandRestatesTheFlags_data()
    {
        QTest::addColumn<QStringList>("flags");
        QTest::newRow("dense, packed, FP8 rowwise, eager")
            << QStringList { "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--gpus", "64", "--seq", "32k", "--tp",
                   "4", "--pp", "2", "--virtual-stages", "2", "--ac", "selective", "--precision", "fp8", "--fp8-recipe",
                   "rowwise", "--doc-length", "2048", "--padding-fraction", "0.1", "--flop-formula", "six_n", "--eager",
                   "--autocast", "--no-sequence-parallel", "--micro-batch", "2", "--global-batch-tokens", "4194304" };
        QTest::newRow("MoE with the 2026 levers") << QStringList { "--model", "qwen3-30b-a3b", "--gpu", "b200",
            "--gpus", "16", "--ep", "8", "--expert-dispatcher", "deepep", "--expert-overlap-kind", "1f1b",
            "--cuda-graphs", "full_iteration", "--fused-expert-mlp", "--optimizer-offload-fraction", "0.5",
            "--precision", "fp8", "--fp8-recipe", "mxfp8", "--attention-mask", "packed", "--doc-length", "1000" };
        QTest::newRow("the cluster's own network") << QStringList { "--model", "qwen3-30b-a3b", "--gpu", "h100-sxm",
            "--gpus", "32", "--ep", "16", "--scale-out-gbps", "200" };
        QTest::newRow("a published run's own model and GPU")
            << QStringList { "--model", "nanotron-llama-3b", "--gpu", "h100-sxm-96gb-hbm2e", "--gpus", "128" };
        const QString vl = QStringLiteral(MFU_SOURCE_DIR "/../shared/models/Qwen--Qwen3-VL-8B-Instruct.config.json");
        if (QFileInfo::exists(vl))
            QTest::newRow("vision tokens, a config.json by path") << QStringList { "--model", vl, "--gpu", "h100-sxm",
                "--gpus", "8", "--vision-tokens", "1024", "--vision-tokens-per-image", "256", "--vision-frozen" };
        else
            qInfo("../shared/models absent: the vision row is skipped");
    }
    void commandRestatesTheFlags()
    {
        QFETCH(QStringList, flags);
        const auto scenarioOf = [](QStringList args) {
            args.prepend(QStringLiteral("predict"));
            QCommandLineParser parser;
            cli::addScenarioOptions(parser);
            if (!parser.parse(args))
                qFatal("%s", qPrintable(parser.errorText()));
            return cli::scenarioFromFlags(parser);
        };
        const auto modelFile = [](const std::string& path) -> std::optional<ModelSpec> {
            QFile f(QString::fromStdString(path));
            if (!f.open(QIODevice::ReadOnly))
                return std::nullopt;
            return modelFromHfConfigText(f.readAll().toStdString(), path);
        };
        const auto commandOf = [&](const Scenario& s) {
            return predictCommandFor(s, app::presetLibrary(), &app::shippedValidationDefinitions(), modelFile);
        };
        const Scenario first = scenarioOf(flags);
        const PredictCommand command = commandOf(first);
        QVERIFY2(command.stated(), command.unstatable.c_str());
        QStringList again;
        for (size_t i = 1; i < command.arguments.size(); ++i) // after "predict"
            again << QString::fromStdString(command.arguments[i]);
        const Scenario second = scenarioOf(again);
        const StepPrediction a = evaluate(first), b = evaluate(second);
        QVERIFY2(sameNumber(a.stepTimeSeconds, b.stepTimeSeconds), shellCommandLine(command.arguments).c_str());
        QVERIFY(sameNumber(a.mfu, b.mfu) && sameNumber(a.memory.total(), b.memory.total()));
        QCOMPARE(commandOf(second).arguments, command.arguments);
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
