#include "app/scenario_io.h"

#include <QFile>

#include "app/preset_store.h"
#include "app/validation_store.h"
#include "core/errors.h"
#include "core/io/atomic_file.h"
#include "core/presets/hf_config.h"

namespace mfu::app {

bool saveScenarioFile(const QString& path, const ScenarioDocument& document, QString* errorMessage)
{
    const auto fail = [&](const QString& reason) {
        if (errorMessage)
            *errorMessage = QStringLiteral("Could not save %1: %2").arg(path, reason);
        return false;
    };
    const std::string text = scenarioFileText(document);
    std::string reason;
    if (!writeFileAtomically(QFile::encodeName(path).toStdString(), text, &reason))
        return fail(QString::fromLocal8Bit(reason.c_str()));
    return true;
}

ScenarioDocument openScenarioFile(const QString& path)
{
    return readScenarioFile(path.toStdString(), &presetLibrary());
}

PredictCommand predictCommandOf(const Scenario& scenario)
{
    // A model imported from a config.json is named by its path, read as `--model PATH` reads it.
    const auto modelFile = [](const std::string& path) -> std::optional<ModelSpec> {
        try {
            return modelFromHfConfigFile(path);
        } catch (const InputError&) {
            return std::nullopt;
        }
    };
    return predictCommandFor(scenario, presetLibrary(), &shippedValidationDefinitions(), modelFile);
}

} // namespace mfu::app
