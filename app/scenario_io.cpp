#include "app/scenario_io.h"

#include <QFile>

#include "app/preset_store.h"
#include "core/io/atomic_file.h"

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

} // namespace mfu::app
