#include "app/file_kind.h"

#include <QFile>
#include <QObject>

#include <optional>

#include "core/io/read_file.h"
#include "core/logs/training_log.h"

namespace mfu::app {

QString openFileFilter()
{
    return QObject::tr("Everything MFU Explorer opens (*.json *.json.gz *.sqlite *.log *.txt *.out);;"
                       "Profiler traces (*.json *.json.gz *.sqlite);;"
                       "Training logs (*.log *.txt *.out);;"
                       "Configs, scenarios and calibrations (*.json);;"
                       "All files (*)");
}

FileKind sniffFileKind(const QString& path, DocumentKind* document)
{
    QFile file(path);
    if (!isRegularFile(QFile::encodeName(path).toStdString()) || !file.open(QIODevice::ReadOnly))
        return FileKind::Unknown; // a FIFO or a device would block the read
    const QByteArray head = file.peek(qint64 { 64 } * 1024);
    if (head.contains("\"traceEvents\"") || path.endsWith(QLatin1String(".json.gz"), Qt::CaseInsensitive)
        || path.endsWith(QLatin1String(".pt.trace.json"), Qt::CaseInsensitive))
        return FileKind::Trace;
    if (trace::looksLikeTrainingLog(std::string_view(head.constData(), static_cast<size_t>(head.size()))))
        return FileKind::TrainingLog;
    const std::optional<DocumentKind> kind = documentKindOfFile(QFile::encodeName(path).toStdString());
    if (!kind)
        return FileKind::Unknown;
    if (document)
        *document = *kind;
    switch (*kind) {
    case DocumentKind::ProfilerTrace: // Chrome's array format, which carries no "traceEvents" key
        return FileKind::Trace;
    case DocumentKind::HfConfig:
        return FileKind::HfConfig;
    case DocumentKind::Scenario:
        return FileKind::Scenario;
    case DocumentKind::HardwarePresets:
    case DocumentKind::ModelPresets:
        return FileKind::Preset;
    case DocumentKind::Calibration:
        return FileKind::Calibration;
    case DocumentKind::None:
    case DocumentKind::ValidationTable:
    case DocumentKind::KernelRules:
    case DocumentKind::TraceSummary:
        break;
    }
    return FileKind::OtherJson;
}

} // namespace mfu::app
