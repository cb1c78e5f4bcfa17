#pragma once
// trace_kernels: every GPU activity of one or more traces as a pandas DataFrame, a row each
// (core/trace/kernel_table.h).
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

namespace mfu::python {

namespace py = pybind11;

// Columns: rank, step (pandas Int64, <NA> outside the analysed steps), name, category, kind, stream, device,
// start_ns, duration_ns, source_file, then flops, model_flops, bytes, achieved_tflops, achieved_gbps, precision
// (NaN where the file records no shapes). Throws py::value_error with the reader's message.
py::object kernelFrame(const std::vector<std::string>& paths, const std::vector<std::string>& kernelRuleFiles);

} // namespace mfu::python
