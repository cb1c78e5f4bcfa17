#pragma once
// A subcommand of the command line called from Python: keyword arguments become its long options, it runs
// in-process with its output captured (app/cli/cli_common.h, OutputCapture), and what `--json` printed comes back
// parsed by Python's json module, so a function returns exactly what the binary prints.
#include <pybind11/pybind11.h>

#include <QStringList>

#include <set>
#include <string>

namespace mfu::python {

namespace py = pybind11;

// The subcommand's command-line words for a call: args[0] the subcommand, then each keyword argument as a long
// option (dashes for underscores: tokens_per_sec_per_gpu=X is --tokens-per-sec-per-gpu=X; True a switch, False
// and None left out; a list or tuple repeats the option when it is one of `repeated`, is one comma-separated value
// for the options that take a list (--values, --compare, --stage-layers, --recompute-modules) and is refused
// elsewhere; numbers as Python writes them), then --json, then `--`, then the positional arguments (str or
// os.PathLike). `leading` words come first among the positionals ("merge" for trace merge). Throws py::value_error for
// a value that is none of these, or for a keyword the function does not take (json, help and `refused`).
QStringList cliWords(const std::string& subcommand, const QStringList& leading, const py::args& positional,
    const py::kwargs& options, const std::set<std::string>& repeated, const std::set<std::string>& refused);

struct CliOutput {
    int status = 0;
    std::string out;
    std::string err;
};

// Runs the subcommand (words[0]) in-process, its output captured; one call at a time in the process (a lock), the
// GIL released meanwhile. A QCoreApplication must exist (the module makes one).
CliOutput runCaptured(const QStringList& words);

// A subcommand that printed its JSON and exited non-zero without an error line: validate --check's failure.
struct CheckFailed {
    std::string message;
    py::object result; // the JSON printed, parsed
};

// Exit status 0: the JSON printed, parsed by json.loads, each stderr line a Python warning (presets' file
// problems). A non-zero status with an error line: py::value_error carrying that line; without one: CheckFailed.
py::object jsonResult(const CliOutput& output, const std::string& subcommand);

// The subcommand's --help text, as the binary prints it.
std::string helpText(const std::string& subcommand);

} // namespace mfu::python
