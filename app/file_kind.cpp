#include "app/file_kind.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>

#include "core/io/read_file.h"
#include "core/logs/training_log.h"

namespace mfu::app {

QString openFileFilter()
{
    return QObject::tr("Everything MFU Explorer opens (*.json *.json.gz *.sqlite *.log *.txt *.out);;"
                       "Profiler traces (*.json *.json.gz *.sqlite);;"
                       "Training logs (*.log *.txt *.out);;"
                       "Configs and scenarios (*.json);;"
                       "All files (*)");
}

FileKind sniffFileKind(const QString& path)
{
    QFile file(path);
    if (!isRegularFile(QFile::encodeName(path).toStdString()) || !file.open(QIODevice::ReadOnly))
        return FileKind::Unknown; // a FIFO or a device would block the read
    const QByteArray head = file.peek(64 * 1024);
    if (head.contains("\"traceEvents\"") || path.endsWith(QLatin1String(".json.gz"), Qt::CaseInsensitive)
        || path.endsWith(QLatin1String(".pt.trace.json"), Qt::CaseInsensitive))
        return FileKind::Trace;
    if (trace::looksLikeTrainingLog(std::string_view(head.constData(), static_cast<size_t>(head.size()))))
        return FileKind::TrainingLog;
    // Configs, scenarios and presets are small; anything big that is not a trace is not ours.
    if (file.size() > 16 * 1024 * 1024)
        return FileKind::Unknown;
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll());
    if (!doc.isObject())
        return FileKind::Unknown;
    const QJsonObject o = doc.object();
    const QString format = o.value(QLatin1String("format")).toString();
    if (format == QLatin1String("mfu-explorer-scenario"))
        return FileKind::Scenario;
    if (format == QLatin1String("mfu-explorer-hardware") || format == QLatin1String("mfu-explorer-models"))
        return FileKind::Preset;
    if (o.contains(QLatin1String("model_type")) || o.contains(QLatin1String("architectures")))
        return FileKind::HfConfig;
    return FileKind::OtherJson;
}

} // namespace mfu::app
