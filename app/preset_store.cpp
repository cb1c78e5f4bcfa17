#include "app/preset_store.h"

#include <QDirIterator>
#include <QFile>
#include <QStandardPaths>

#include <algorithm>

#include "core/io/read_file.h"

namespace mfu::app {

namespace {
void loadResourceFolder(PresetLibrary& library, const QString& root)
{
    QStringList files;
    QDirIterator it(root, { QStringLiteral("*.json") }, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        files << it.next();
    std::sort(files.begin(), files.end()); // deterministic override order
    for (const QString& path : files) {
        QFile f(path);
        const bool onDisk = !path.startsWith(QLatin1Char(':')); // not a Qt resource: a FIFO there would block the open
        if ((onDisk && !isRegularFile(QFile::encodeName(path).toStdString())) || !f.open(QIODevice::ReadOnly)) {
            library.loadText(path.toStdString(), {}); // records "cannot read" as a problem
            continue;
        }
        const QByteArray bytes = f.readAll();
        library.loadText(path.toStdString(), std::string_view(bytes.constData(), size_t(bytes.size())));
    }
}
} // namespace

QString userPresetFolder()
{
    const QByteArray overridden = qgetenv("MFU_EXPLORER_PRESETS_DIR");
    if (!overridden.isEmpty())
        return QString::fromLocal8Bit(overridden);
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/presets");
}

const PresetLibrary& presetLibrary()
{
    static const PresetLibrary library = [] {
        PresetLibrary lib;
        loadResourceFolder(lib, QStringLiteral(":/presets"));
        loadResourceFolder(lib, userPresetFolder());
        return lib;
    }();
    return library;
}

} // namespace mfu::app
