#include "python/kernel_frame.h"

#include <pybind11/numpy.h>

#include <filesystem>
#include <limits>
#include <optional>
#include <stdexcept>

#include "core/io/read_file.h"
#include "core/trace/builtin_kernel_rules.h"
#include "core/trace/kernel_table.h"

namespace mfu::python {

namespace {

using trace::KernelRow;

template <typename T, typename Get> py::array_t<T> numbers(const std::vector<KernelRow>& rows, Get get)
{
    py::array_t<T> a(static_cast<py::ssize_t>(rows.size()));
    auto out = a.template mutable_unchecked<1>();
    for (size_t i = 0; i < rows.size(); ++i)
        out(static_cast<py::ssize_t>(i)) = get(rows[i]);
    return a;
}

// A column of strings drawn from `distinct`: one Python str per distinct value, shared by the rows that have it.
template <typename Get>
py::list strings(const std::vector<KernelRow>& rows, const std::vector<py::str>& distinct, Get index)
{
    py::list out(rows.size());
    for (size_t i = 0; i < rows.size(); ++i)
        out[i] = distinct[index(rows[i])];
    return out;
}

template <typename Key> std::vector<py::str> keyStrings(int count, Key key)
{
    std::vector<py::str> out;
    for (int i = 0; i < count; ++i)
        out.emplace_back(std::string(key(i)));
    return out;
}

// The work from recorded shapes: NaN where the file records no shapes (unknown), zero where no counted operator
// launched the activity (a collective); achieved TFLOPS and bandwidth over the activity's own duration.
void addWorkColumns(py::dict& columns, const std::vector<KernelRow>& rows)
{
    constexpr double unknown = std::numeric_limits<double>::quiet_NaN();
    auto work = [](const KernelRow& r, auto get) { return r.work ? get(*r.work) : unknown; };
    auto seconds = [](const KernelRow& r) { return static_cast<double>(r.durationNs) * 1e-9; };
    columns["flops"]
        = numbers<double>(rows, [&](const KernelRow& r) { return work(r, [](const auto& w) { return w.flops; }); });
    columns["model_flops"] = numbers<double>(
        rows, [&](const KernelRow& r) { return work(r, [](const auto& w) { return w.modelFlops; }); });
    columns["bytes"]
        = numbers<double>(rows, [&](const KernelRow& r) { return work(r, [](const auto& w) { return w.bytes; }); });
    columns["achieved_tflops"] = numbers<double>(rows, [&](const KernelRow& r) {
        return seconds(r) > 0 ? work(r, [](const auto& w) { return w.flops; }) / seconds(r) / 1e12 : unknown;
    });
    columns["achieved_gbps"] = numbers<double>(rows, [&](const KernelRow& r) {
        return seconds(r) > 0 ? work(r, [](const auto& w) { return w.bytes; }) / seconds(r) / 1e9 : unknown;
    });
    // The precision key trace()'s by_precision uses ("bf16", "fp8", "mxfp4"); None where no model FLOPs ran.
    py::list precision(rows.size());
    for (size_t i = 0; i < rows.size(); ++i)
        precision[i] = rows[i].work && rows[i].work->precision ? py::object(py::str(rows[i].work->precision->key()))
                                                               : py::object(py::none());
    columns["precision"] = precision;
}

} // namespace

py::object kernelFrame(const std::vector<std::string>& paths, const std::vector<std::string>& kernelRuleFiles)
{
    trace::KernelTable table;
    std::optional<std::string> error;
    {
        py::gil_scoped_release noGil; // reading is all C++: other Python threads run meanwhile
        try {
            const std::vector<std::filesystem::path> files(paths.begin(), paths.end());
            table = trace::readKernelTable(files, trace::kernelRulesWithUserFiles(kernelRuleFiles));
        } catch (const std::bad_alloc&) {
            error = outOfMemoryMessage();
        } catch (const std::exception& e) {
            error = e.what();
        }
    }
    if (error)
        throw py::value_error("trace_kernels: " + *error);
    const auto& rows = table.rows;
    std::vector<py::str> names(table.names.begin(), table.names.end());
    std::vector<py::str> files(table.files.begin(), table.files.end());
    const auto categories = keyStrings(
        trace::kKernelCategoryCount, [](int c) { return trace::categoryKey(static_cast<trace::KernelCategory>(c)); });
    const auto kinds = keyStrings(3, [](int k) { return trace::activityKindKey(static_cast<trace::ActivityKind>(k)); });

    const py::module_ pd = py::module_::import("pandas");
    // The step is missing outside the analysed steps: pandas' nullable integer, not a float with NaN.
    const py::object step = pd.attr("arrays").attr("IntegerArray")(
        numbers<int64_t>(rows, [](const KernelRow& r) { return r.step.value_or(0); }),
        numbers<bool>(rows, [](const KernelRow& r) { return !r.step.has_value(); }));
    py::dict columns;
    columns["rank"] = numbers<int64_t>(rows, [](const KernelRow& r) { return r.rank; });
    columns["step"] = step;
    columns["name"] = strings(rows, names, [](const KernelRow& r) { return r.name; });
    columns["category"] = strings(rows, categories, [](const KernelRow& r) { return size_t(r.category); });
    columns["kind"] = strings(rows, kinds, [](const KernelRow& r) { return size_t(r.kind); });
    columns["stream"] = numbers<int64_t>(rows, [](const KernelRow& r) { return r.stream; });
    columns["device"] = numbers<int64_t>(rows, [](const KernelRow& r) { return r.device; });
    columns["start_ns"] = numbers<int64_t>(rows, [](const KernelRow& r) { return r.startNs; });
    columns["duration_ns"] = numbers<int64_t>(rows, [](const KernelRow& r) { return r.durationNs; });
    columns["source_file"] = strings(rows, files, [](const KernelRow& r) { return r.file; });
    addWorkColumns(columns, rows);
    return pd.attr("DataFrame")(columns);
}

} // namespace mfu::python
