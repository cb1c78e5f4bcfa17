#pragma once
// `mfu-explorer trace LOGFILE`: the training-log side of the trace command (cmd_trace.cpp routes here by content).
#include <QCommandLineParser>
#include <QStringList>

namespace mfu::cli {

// Prints the log's steps, medians and, when a GPU and FLOP/token are known, the diagnosis of its claimed MFU.
int runTraceLog(const QCommandLineParser& parser, const QStringList& files);

} // namespace mfu::cli
