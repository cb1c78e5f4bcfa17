#pragma once
// JSON of the work a trace's shapes give and of its steps' critical paths, as `trace --json` prints them per rank:
//   op_flops { matmul_flops, attention_flops, ops_with_shapes, ops_without_shapes, by_precision, trace_mfu (FIXED),
//              grouped_gemm_flops, convolution_flops, model_flops, flops_in_steps, by_precision_in_steps,
//              flops_outside_steps, ..., steps[] {step, flops, trace_mfu}, categories, kernels[] }
//   roofline { gpu, hbm_bandwidth_bytes_per_sec, ceilings[] {precision, label, peak_tflops, ridge_intensity},
//              marks[] }
//   critical_path { span_s, shares {gpu_compute, communication, memory, launch_host, idle}, seconds, steps[],
//                   chain_step, chain[] {kind, label, start_ns, duration_s, count, share, category?} }
#include <optional>

#include <nlohmann/json.hpp>

#include "core/model/hardware_spec.h"
#include "core/trace/analysis.h"

namespace mfu::trace {

// gpu: the preset the trace's GPU name means (trace_mfu.h's traceHardware); without it trace_mfu is null.
nlohmann::json opFlopsToJson(const RankAnalysis& rank, const std::optional<HardwareSpec>& gpu);
nlohmann::json rooflineToJson(const OpFlops& flops, const std::optional<HardwareSpec>& gpu);
nlohmann::json criticalPathToJson(const CriticalPath& path);

} // namespace mfu::trace
