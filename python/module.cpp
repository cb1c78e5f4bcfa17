// The Python module `mfu_explorer`: one function per subcommand of the command line, returning the dict its --json
// prints (the same code run in-process, python/cli_call.h), and DataFrames for notebooks (trace_kernels,
// sweep_points). docs/python.md shows it at work.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <QCoreApplication>

#include <algorithm>
#include <clocale>
#include <deque>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/application_info.h"
#include "python/cli_call.h"
#include "python/kernel_frame.h"

namespace py = pybind11;
using namespace mfu::python;

namespace {

struct Function {
    const char* name; // in Python
    const char* subcommand;
    QStringList leading; // words before the positional arguments ("merge")
    const char* signature;
    std::set<std::string> repeated; // options given once per value (the others take a comma-separated list)
    std::set<std::string> refused; // options whose output is not the JSON
    const char* about = ""; // said before the --help text, when the subcommand's own words do not cover it
};

// A contract, like the command line's flags: these Python names, these subcommands. Options that repeat are those
// the subcommand reads with QCommandLineParser::values() (tests/python/test_functions.py checks the list against
// app/cli/).
const std::vector<Function>& functions()
{
    static const std::vector<Function> list {
        { "calc", "calc", {}, "calc(**options)", {}, {} },
        { "diagnose", "diagnose", {}, "diagnose(*files, **options)", { "log" }, {} },
        { "predict", "predict", {}, "predict(**options)", {}, {} },
        { "sweep", "sweep", {}, "sweep(**options)", {}, { "csv" },
            "sweep_points(**options) gives the points as a DataFrame.\n" },
        { "plan", "plan", {}, "plan(**options)", {}, {} },
        { "validate", "validate", {}, "validate(**options)", {}, {},
            "check=True raises CheckFailed, with the report as its .result, where the command line exits 1.\n" },
        { "trace", "trace", {}, "trace(*files, **options)", { "compare", "kernel-rules" }, {} },
        { "trace_merge", "trace", { QStringLiteral("merge") }, "trace_merge(*summaries, **options)",
            { "compare", "kernel-rules" }, {},
            "The reduce step of a cluster-scale run (docs/cluster-scale.md): the per-rank summaries (files or "
            "folders) merged into what trace() of the same traces gives.\n" },
        { "calibrate", "calibrate", {}, "calibrate(*traces, **options)", { "kernel-rules" }, {},
            "Fits the cost model's terms to a traced run (the options describe it, as predict's do); out= writes the "
            "file predict(calibration=...), sweep and plan read.\n" },
        { "cost", "cost", {}, "cost(**options)", {}, {} },
        { "presets", "presets", {}, "presets(**options)", {}, {} },
    };
    return list;
}

const Function& function(const std::string& name)
{
    for (const Function& f : functions())
        if (name == f.name)
            return f;
    throw std::logic_error("no function " + name);
}

// Docstrings live as long as the module: pybind11 keeps the pointer.
const char* keep(std::string text)
{
    static std::deque<std::string> texts;
    return texts.emplace_back(std::move(text)).c_str();
}

std::string docstring(const Function& f)
{
    std::string command = std::string("mfu-explorer ") + f.subcommand;
    for (const QString& w : f.leading)
        command += " " + w.toStdString();
    std::string doc = std::string(f.signature) + " -> dict\n\nWhat `" + command
        + " ... --json` prints, as a dict (equal to it). Keyword arguments are the long options below with dashes as "
          "underscores (--tokens-per-sec-per-gpu X is tokens_per_sec_per_gpu=X); a switch is True or False; a list "
          "is one comma-separated value for values, compare, stage_layers and recompute_modules (any other option "
          "refuses a list)";
    if (!f.repeated.empty()) {
        std::string names;
        for (const std::string& r : f.repeated)
            names += (names.empty() ? "--" : ", --") + r;
        doc += ", except for " + names + ", which repeat once per item";
    }
    doc += "; positional arguments are the files. Bad input raises ValueError with the command line's one-line "
           "error.\n";
    doc += f.about;
    for (const std::string& r : f.refused)
        doc += "--" + r + " is not taken: its output is not JSON.\n";
    return doc + "\n`" + command + " --help`:\n\n" + helpText(f.subcommand);
}

// The point first (x, precision), then the current configuration's figures, the best's, and why there is no best;
// json_normalize gives them in the JSON's alphabetical order.
py::list sweepColumnOrder(const py::iterable& columns)
{
    const auto group = [](const std::string& c) {
        return c == "x" ? 0 : c == "precision" ? 1 : c.rfind("current.", 0) == 0 ? 2 : c.rfind("best.", 0) == 0 ? 3 : 4;
    };
    std::vector<std::string> names;
    for (const py::handle& c : columns)
        names.push_back(c.cast<std::string>());
    std::stable_sort(names.begin(), names.end(),
        [&group](const std::string& a, const std::string& b) { return group(a) < group(b); });
    return py::cast(names);
}

py::object callSubcommand(const Function& f, const py::args& args, const py::kwargs& kwargs)
{
    const QStringList words = cliWords(f.subcommand, f.leading, args, kwargs, f.repeated, f.refused);
    return jsonResult(runCaptured(words), f.subcommand);
}

// The binary's application object: QCoreApplication for the presets' resources and settings paths, named as the
// binary names itself so that both read the same user preset folder.
void ensureApplication()
{
    if (QCoreApplication::instance())
        return;
    static int argc = 1;
    static char name[] = "mfu_explorer";
    static char* argv[] = { name, nullptr };
    // Qt sets the process's locale from the environment; Python keeps LC_NUMERIC at "C" and so do we.
    const std::string locale = std::setlocale(LC_ALL, nullptr);
    new QCoreApplication(argc, argv); // lives as long as the process, as the binary's does
    std::setlocale(LC_ALL, locale.c_str());
    mfu::app::setApplicationInfo();
}

} // namespace

PYBIND11_MODULE(mfu_explorer, m)
{
    ensureApplication();
    py::options options;
    options.disable_function_signatures(); // each docstring starts with its own signature line
    m.doc() = "MFU Explorer from Python: one function per subcommand of `mfu-explorer` (calc, diagnose, predict, "
              "sweep, plan, validate, trace, trace_merge, calibrate, cost, presets), each returning the dict its "
              "--json prints, "
              "and DataFrames for notebooks: trace_kernels (a row per GPU kernel) and sweep_points (a row per sweep "
              "point). Calls run the command line's own code in this process, one at a time. See docs/python.md.";
    m.attr("__version__") = MFU_VERSION_STRING;

    const py::object checkFailed
        = py::reinterpret_steal<py::object>(PyErr_NewExceptionWithDoc("mfu_explorer.CheckFailed",
            "validate(check=True) found the cost model outside its documented bound (the command line's exit "
            "status 1); .result holds the report.",
            PyExc_Exception, nullptr));
    m.attr("CheckFailed") = checkFailed;

    py::dict repeated;
    for (const Function& f : functions()) {
        repeated[f.name] = py::cast(f.repeated);
        m.def(
            f.name,
            [f, checkFailed](const py::args& args, const py::kwargs& kwargs) {
                try {
                    return callSubcommand(f, args, kwargs);
                } catch (const CheckFailed& failed) {
                    py::object e = checkFailed(failed.message);
                    e.attr("result") = failed.result;
                    PyErr_SetObject(checkFailed.ptr(), e.ptr());
                    throw py::error_already_set();
                }
            },
            keep(docstring(f)));
    }
    m.attr("_repeated_options") = repeated;

    m.def(
        "sweep_points",
        [](const py::kwargs& kwargs) {
            const py::dict sweep = callSubcommand(function("sweep"), py::args(), kwargs);
            py::object frame = py::module_::import("pandas").attr("json_normalize")(sweep["points"]);
            frame = frame[sweepColumnOrder(frame.attr("columns"))];
            frame.attr("attrs")["axis"] = sweep["axis"];
            return frame;
        },
        keep("sweep_points(**options) -> pandas.DataFrame\n\nsweep(**options)'s points as a table, one row per "
             "point: x (the swept value), precision, then the current configuration's and the planner's best "
             "figures with the nested keys joined by dots (current.mfu, current.tflops_per_gpu, best.mfu, "
             "best.config..., best_problem); .attrs['axis'] names the axis. Options as sweep():\n\n"
            + helpText("sweep")));

    m.def(
        "trace_kernels",
        [](const py::args& paths, const py::object& kernel_rules) {
            const py::object fspath = py::module_::import("os").attr("fspath");
            std::vector<std::string> files;
            for (const py::handle& p : paths)
                files.push_back(fspath(p).cast<std::string>());
            if (files.empty())
                throw py::value_error("trace_kernels: give at least one trace file or folder");
            std::vector<std::string> rules;
            if (py::isinstance<py::str>(kernel_rules) || py::hasattr(kernel_rules, "__fspath__"))
                rules.push_back(fspath(kernel_rules).cast<std::string>()); // one file
            else if (!kernel_rules.is_none())
                for (const py::handle& r : kernel_rules)
                    rules.push_back(fspath(r).cast<std::string>());
            return kernelFrame(files, rules);
        },
        py::kw_only(), py::arg("kernel_rules") = py::none(),
        "trace_kernels(*paths, kernel_rules=None) -> pandas.DataFrame\n\nEvery GPU activity (kernels, memory copies, "
        "memsets) of the traces, one row each: paths are trace files (Kineto .json/.json.gz, Nsight SQLite) or "
        "folders of one run's ranks, read one at a time. Columns: rank (distributedInfo.rank, else the file's "
        "position, as trace() numbers ranks), step (the analysed ProfilerStep's number, <NA> outside the analysed "
        "steps), name, category (trace()'s category keys: gemm, attention_fwd, comm_allreduce, ...), kind (kernel, "
        "memcpy, memset), stream, device, start_ns (absolute, the clock of trace()'s steps[].start_ns), "
        "duration_ns, source_file; then the work of the operators that launched it, from their recorded shapes "
        "(as trace()'s op_flops attributes it: an operator's FLOPs to its matrix kernels in proportion to their time): "
        "flops, model_flops (matrix multiplies, grouped GEMMs, attention, convolutions), bytes, achieved_tflops, "
        "achieved_gbps and precision (the by_precision key, None where no model FLOPs ran); NaN where the file "
        "records no shapes, 0 where no counted operator launched it. The rows of kind 'kernel' with a step are, rank "
        "by rank, trace()'s "
        "kernel_count. kernel_rules: a file, or a list of files, of extra classification rules tried before the "
        "built-in ones, as trace(kernel_rules=[...]).");
}
