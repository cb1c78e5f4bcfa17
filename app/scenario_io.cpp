#include "app/scenario_io.h"

#include <QSaveFile>

#include "app/preset_store.h"

namespace mfu::app {

bool saveScenarioFile(const QString& path, const ScenarioDocument& document, QString* errorMessage)
{
    const auto fail = [&](const QString& reason) {
        if (errorMessage)
            *errorMessage = QStringLiteral("Could not save %1: %2").arg(path, reason);
        return false;
    };
    const std::string text = scenarioFileText(document);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return fail(file.errorString());
    if (file.write(text.data(), static_cast<qint64>(text.size())) != static_cast<qint64>(text.size())) {
        const QString reason = file.errorString();
        file.cancelWriting();
        return fail(reason);
    }
    if (!file.commit())
        return fail(file.errorString());
    return true;
}

ScenarioDocument openScenarioFile(const QString& path)
{
    return readScenarioFile(path.toStdString(), &presetLibrary());
}

} // namespace mfu::app
