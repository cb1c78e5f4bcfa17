#include "app/scenario_io.h"

#include "app/preset_store.h"
#include "widgets/atomic_file.h"

namespace mfu::app {

bool saveScenarioFile(const QString& path, const ScenarioDocument& document, QString* errorMessage)
{
    const auto fail = [&](const QString& reason) {
        if (errorMessage)
            *errorMessage = QStringLiteral("Could not save %1: %2").arg(path, reason);
        return false;
    };
    const std::string text = scenarioFileText(document);
    QString reason;
    if (!widgets::writeFileAtomically(path, QByteArray::fromStdString(text), &reason))
        return fail(reason);
    return true;
}

ScenarioDocument openScenarioFile(const QString& path)
{
    return readScenarioFile(path.toStdString(), &presetLibrary());
}

} // namespace mfu::app
