#pragma once
// Runs the real mfu-explorer binary, as scripts do, and returns its exit status, stdout and stderr.
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace mfu::test {

struct CliResult {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
    QJsonObject json() const { return QJsonDocument::fromJson(out).object(); }
};

inline CliResult runCli(const QStringList& args)
{
    QProcess p;
    p.setProgram(QStringLiteral(MFU_CLI_BINARY));
    p.setArguments(args);
    p.start();
    CliResult r;
    if (!p.waitForFinished(60000)) {
        p.kill();
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

} // namespace mfu::test
