#pragma once
// Entry points of the subcommands (one cmd_<name>.cpp each). args[0] is the subcommand name.
#include <QStringList>

namespace mfu::cli {

int runPresets(const QStringList& args);
int runCalc(const QStringList& args);
int runDiagnose(const QStringList& args);
int runCost(const QStringList& args);

int runTrace(const QStringList& args);
int runPredict(const QStringList& args);
int runSweep(const QStringList& args);
int runPlan(const QStringList& args);
int runValidate(const QStringList& args);
int runCalibrate(const QStringList& args);

} // namespace mfu::cli
