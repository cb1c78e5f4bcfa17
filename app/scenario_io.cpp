#include "app/scenario_io.h"

#include <QSaveFile>

#include <cerrno>
#include <cstring>

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
    errno = 0;
    const qint64 written = file.write(text.data(), static_cast<qint64>(text.size()));
    const int writeErrno = errno;
    if (written != static_cast<qint64>(text.size())) {
        // A short write (file size limit, quota) leaves QFileDevice without an error of its own ("Unknown error")
        // and commit() would then succeed with a truncated file; the system's reason is in errno.
        QString reason = file.errorString();
        if (file.error() == QFileDevice::NoError)
            reason = writeErrno != 0 ? QString::fromLocal8Bit(std::strerror(writeErrno))
                                     : QStringLiteral("only %1 of %2 bytes written").arg(written).arg(text.size());
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
