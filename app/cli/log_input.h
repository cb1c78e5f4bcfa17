#pragma once
// Training logs on the command line, shared by `trace LOGFILE` and `diagnose --log FILE`: the custom-pattern and
// warm-up options, detection by content, reading, and the user's scenario flags as the context of a log's run.
#include <QCommandLineParser>
#include <QString>

#include <optional>

#include "core/diagnosis/log_diagnosis.h"
#include "core/logs/training_log.h"

namespace mfu::cli {

// --log-pattern REGEX, --log-groups KEY=N,..., --warmup-steps N
void addLogOptions(QCommandLineParser& parser);
std::optional<trace::LogPattern> resolveLogPattern(const QCommandLineParser& parser);
size_t resolveWarmupSteps(const QCommandLineParser& parser);

// By content: a regular file that is not JSON, gzip or SQLite and holds a known step line in its first 256 KiB.
bool isTrainingLogFile(const QString& path);
// Throws InputError naming the file (unreadable, no step lines, bad pattern).
trace::TrainingLog readTrainingLog(const QString& path, const std::optional<trace::LogPattern>& pattern);
// --model/--params, --gpu, --gpus, --seq, --precision and --tokens-per-step where given (the log supplies the rest).
trace::LogRunContext logRunContext(const QCommandLineParser& parser, const QString& label);

} // namespace mfu::cli
