#include "python/cli_call.h"

#include <mutex>
#include <stdexcept>

#include "app/cli/cli_common.h"
#include "app/cli/subcommand.h"
#include "core/scenario/settings.h"

namespace mfu::python {

namespace {

std::mutex& callLock()
{
    static std::mutex lock;
    return lock;
}

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

// One value as a command-line word: str, os.PathLike, int or float (bool is handled by the caller).
std::string word(const py::handle& value, const std::string& what)
{
    if (py::isinstance<py::bool_>(value))
        throw py::value_error(what + ": True/False belongs to a switch, not in a list or a positional argument");
    if (py::isinstance<py::str>(value))
        return value.cast<std::string>();
    if (py::hasattr(value, "__fspath__"))
        return py::module_::import("os").attr("fspath")(value).cast<std::string>();
    // Python's numbers and numpy's (numpy registers its scalars with the numbers ABCs); repr of a float is its
    // shortest exact form, 1e+16 as such.
    const py::module_ numbers = py::module_::import("numbers");
    if (py::isinstance(value, numbers.attr("Integral")))
        return py::repr(py::int_(py::reinterpret_borrow<py::object>(value))).cast<std::string>();
    if (py::isinstance(value, numbers.attr("Real")))
        return py::repr(py::float_(py::reinterpret_borrow<py::object>(value))).cast<std::string>();
    throw py::value_error(what + ": cannot pass a " + py::type::of(value).attr("__name__").cast<std::string>()
        + " (give a str, a path, a number, True/False, or a list of these)");
}

// The options whose one value is a comma-separated list (QCommandLineParser reads them once and splits them). A
// Python list given to any other option is refused: joined, gpus=[8, 16] would be "8,16", and [1, 600, 500]
// "1,600,500", a number that reads as 1,600,500.
// Options that take a comma-separated list: the sweep's and cost's own, torchtitan's stage split, and every
// setting the table writes as a list of words (core/scenario/settings.h: recompute_modules).
const std::set<std::string>& commaListOptions()
{
    static const std::set<std::string> names = [] {
        std::set<std::string> out { "values", "compare", "stage-layers" };
        for (const Setting& s : scenarioSettings())
            if (s.textAsList && !s.flag.empty())
                out.insert(std::string(s.flag));
        return out;
    }();
    return names;
}

std::string joinedList(const py::handle& list, const std::string& option)
{
    std::string joined;
    for (const py::handle& item : list) {
        const std::string w = word(item, option);
        if (w.find(',') != std::string::npos)
            throw py::value_error(option + ": the list item '" + w + "' holds a comma, which separates the items");
        joined += (joined.empty() ? "" : ",") + w;
    }
    return joined;
}

} // namespace

QStringList cliWords(const std::string& subcommand, const QStringList& leading, const py::args& positional,
    const py::kwargs& options, const std::set<std::string>& repeated, const std::set<std::string>& refused)
{
    QStringList words { q(subcommand) };
    for (const auto& [key, value] : options) {
        std::string flag = key.cast<std::string>();
        for (char& c : flag)
            if (c == '_')
                c = '-';
        if (flag == "json" || flag == "help" || refused.count(flag))
            throw py::value_error(key.cast<std::string>() + ": not taken here (every function returns what --json "
                + "prints; its --help is the function's docstring)");
        const std::string option = "--" + flag;
        if (value.is_none() || (py::isinstance<py::bool_>(value) && !value.cast<bool>()))
            continue;
        if (py::isinstance<py::bool_>(value)) {
            words << q(option);
        } else if ((py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) && repeated.count(flag)) {
            for (const py::handle& item : value)
                words << q(option + "=" + word(item, option));
        } else if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
            if (!commaListOptions().count(flag))
                throw py::value_error(key.cast<std::string>() + ": takes one value, not a list (a list is taken by "
                    + "values, compare, stage_layers and recompute_modules, and by the options that repeat)");
            words << q(option + "=" + joinedList(value, option));
        } else {
            // --name=value: a value that starts with a dash stays the option's value.
            words << q(option + "=" + word(value, option));
        }
    }
    words << QStringLiteral("--json") << QStringLiteral("--") << leading;
    for (const py::handle& p : positional)
        words << q(word(p, "positional argument"));
    return words;
}

CliOutput runCaptured(const QStringList& words)
{
    const cli::Subcommand* sub = cli::findSubcommand(words.first());
    if (!sub)
        throw std::logic_error("no subcommand " + words.first().toStdString());
    py::gil_scoped_release noGil;
    const std::lock_guard<std::mutex> one(callLock());
    CliOutput r;
    {
        cli::OutputCapture capture;
        r.status = sub->run(words);
        r.out = std::move(capture.out);
        r.err = std::move(capture.err);
    }
    return r;
}

py::object jsonResult(const CliOutput& output, const std::string& subcommand)
{
    std::string err = output.err;
    while (!err.empty() && err.back() == '\n')
        err.pop_back();
    const auto parsed = [&output] { return py::module_::import("json").attr("loads")(py::str(output.out)); };
    if (output.status != 0 && err.empty() && !output.out.empty())
        throw CheckFailed { "mfu-explorer " + subcommand + " exited with status " + std::to_string(output.status)
                + " after printing its report (.result)",
            parsed() };
    if (output.status != 0)
        throw py::value_error(err.empty() ? "exit status " + std::to_string(output.status) : err);
    if (!err.empty()) {
        const py::object warn = py::module_::import("warnings").attr("warn");
        size_t start = 0;
        while (start <= err.size()) {
            const size_t end = std::min(err.find('\n', start), err.size());
            warn(err.substr(start, end - start));
            start = end + 1;
        }
    }
    return parsed();
}

std::string helpText(const std::string& subcommand)
{
    return runCaptured({ q(subcommand), QStringLiteral("--help") }).out;
}

} // namespace mfu::python
