#pragma once
// The work a trace's recorded shapes give (op_flops.h), counted once per operator and attributed to the GPU kernels
// that did it, per step, per kernel, per category and per operator problem (the roofline's marks).
//
// Once per operator: operators nest (aten::linear calls aten::addmm; scaled_dot_product_attention calls
// _scaled_dot_product_flash_attention calls _flash_attention_forward), and an operator of a counted family that has
// another one of a model-work family inside it on its thread is counted through that one: the innermost counts.
// Elementwise and normalisation operators are counted when no counted operator runs inside them (aten::_to_copy
// through its aten::copy_).
//
// Attribution: a kernel's CUDA launch (its correlation id) ran on a host thread inside an operator (the innermost
// one holding it there, the one whose External id the launch carries); the kernel belongs to the innermost operator
// of a counted family that holds the launch. An operator's FLOPs go to its
// matrix kernels (GEMM and attention categories; all its kernels when it has none of those) in proportion to their
// time, its bytes to all its kernels the same way. An operator's work is inside the analysed steps as far as its
// kernels are: an operator none of whose kernels was found (a trace without launches, work outside the profiled
// window) is counted over the whole file but in no step.
//
// Two counts: what the kernels executed (per kernel, category and operator problem: their achieved TFLOPS), and the
// model FLOPs (the totals, per precision and step: the trace MFU), which leave out what a kernel recomputes (a fused
// attention backward's second Q·Kᵀ, OpWork::recomputedFlops).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/trace/gemm_precision.h"
#include "core/trace/steps.h"
#include "core/trace/timeline.h"

namespace mfu::trace {

// FLOPs per precision key (GemmPrecision::key(): "bf16", "fp8", "mxfp4", ...; "unknown" when neither the types
// nor the kernel say), in a fixed order for stable output.
struct PrecisionFlops {
    std::string key;
    GemmPrecision precision;
    bool known = true;
    double flops = 0;
};
using FlopsByPrecision = std::vector<PrecisionFlops>; // sorted by key
void addFlops(FlopsByPrecision& into, std::optional<GemmPrecision> precision, double flops);
double totalFlops(const FlopsByPrecision& f);

// The work attributed to the kernels of one name (or one category), over the analysed steps. Its FLOPs are those
// the kernels executed, recomputation included, so that its TFLOPS are their achieved rate (a roofline's mark).
struct KernelWork {
    std::string name; // the kernel name, or the category key
    KernelCategory category = KernelCategory::Other;
    int64_t count = 0; // kernels with attributed work
    int64_t ns = 0; // their summed durations
    double flops = 0;
    double bytes = 0;
    std::optional<GemmPrecision> precision; // of the model FLOPs that ran on them (the largest share)
    double tflops() const { return ns > 0 ? flops / (static_cast<double>(ns) * 1e-9) / 1e12 : 0.0; }
    double bandwidthGBps() const { return ns > 0 ? bytes / (static_cast<double>(ns) * 1e-9) / 1e9 : 0.0; }
    double intensity() const { return bytes > 0 ? flops / bytes : 0.0; } // FLOP per byte
};

// One roofline mark: an operator on one problem (its name, shapes and precision), every call of it in the analysed
// steps together.
struct OpProblem {
    std::string op; // "aten::mm"
    std::string shapes; // "[8944, 1024], [1024, 1024]"
    std::string kernel; // the kernel that took most of its time
    KernelCategory category = KernelCategory::Other; // of that kernel
    OpKind kind = OpKind::None;
    std::optional<GemmPrecision> precision;
    GemmDims gemm; // a matmul's M, N, K (OpWork::gemm)
    AttentionDims attention; // an attention call's (OpWork::attention)
    bool causal = false, backward = false;
    int64_t calls = 0;
    int64_t ns = 0; // summed duration of its kernels
    double flops = 0;
    double bytes = 0;
    double tflops() const { return ns > 0 ? flops / (static_cast<double>(ns) * 1e-9) / 1e12 : 0.0; }
    double intensity() const { return bytes > 0 ? flops / bytes : 0.0; }
};

struct OpFlops {
    bool recordsShapes = false; // some operator of the trace carries Input Dims
    // Over the whole file, each operator once.
    double matmulFlops = 0; // aten::mm, addmm, bmm, baddbmm, _scaled_mm (the contract's key)
    double groupedGemmFlops = 0;
    double attentionFlops = 0; // model FLOPs: the backward's four gradient products, not its recomputed Q·Kᵀ
    double attentionRecomputedFlops = 0; // the Q·Kᵀ the fused backward kernels compute again (OpWork::recomputedFlops)
    double convolutionFlops = 0;
    double elementwiseBytes = 0;
    double normalizationBytes = 0;
    int64_t opsWithShapes = 0; // model-work operators counted from their shapes
    int64_t opsWithoutShapes = 0; // innermost model-work operators whose shapes are missing or unreadable
    int64_t opsWithImpossibleShapes = 0; // of those, the ones whose shapes name tensors no device could hold
    int64_t opsWithoutKernels = 0; // counted model-work operators with no kernel found, or only copies and fills
    // A backward pass ran: some counted operator is one, or the autograd engine's ranges are recorded (training, not
    // inference).
    bool backward = false;
    FlopsByPrecision byPrecision; // model FLOPs, whole file
    // Inside the analysed steps (their kernels' share).
    FlopsByPrecision inSteps;
    // The matrix FLOPs the kernels executed in the analysed steps, recomputation included (a fused attention
    // backward's second Q·Kᵀ; the forward that activation checkpointing runs again is among the operators anyway):
    // the hardware FLOPs of the trace HFU.
    FlopsByPrecision inStepsExecuted;
    std::vector<FlopsByPrecision> perStep; // per analysed step, same order as the plan's steps
    double outsideStepsFlops = 0; // model FLOPs of the whole file not in the analysed steps
    // GEMM and attention kernel time in the analysed steps, and the part of it no counted operator's shapes reach
    // (kernels a CUDA graph replays: their operators ran at capture and record nothing; operators without shapes).
    int64_t matrixKernelNs = 0;
    int64_t unattributedMatrixNs = 0;
    double unattributedMatrixShare() const
    {
        return matrixKernelNs > 0 ? static_cast<double>(unattributedMatrixNs) / static_cast<double>(matrixKernelNs)
                                  : 0.0;
    }
    // The recorded shapes reach at least 80% of the matrix kernels' time: the operators describe the step's work (a
    // CUDA graph's replay or operators without shapes would hide part of it).
    bool shapesReachMatrixKernels() const
    {
        return recordsShapes && matrixKernelNs > 0 && unattributedMatrixShare() < 0.2;
    }
    std::vector<KernelWork> categories; // per kernel category with attributed work (key in `name`)
    std::vector<KernelWork> kernels; // per kernel name with attributed work, most FLOPs first
    std::vector<OpProblem> problems; // roofline marks, longest first
    // Computation kernels of the analysed steps (not communication, copies or memsets) and those of them no counted
    // operator gave FLOPs or bytes (launched outside any operator whose shapes the trace records: a CUDA graph's
    // replay, a library's own kernels): what a roofline of the marks leaves out.
    int64_t computationKernels = 0;
    int64_t computationNs = 0;
    int64_t kernelsWithoutWork = 0;
    int64_t nsWithoutWork = 0;
    std::string longestWithoutWork; // the name with the most time among them

    double modelFlops() const { return matmulFlops + groupedGemmFlops + attentionFlops + convolutionFlops; }
};

// Needs the activities classified (classifyActivities) and the step plan.
OpFlops countOpFlops(const Timeline& timeline, const StepPlan& plan, size_t maxProblems = 200);

// The work attributed to each GPU activity (indexed as timeline.activities), as countOpFlops attributes and sums
// it: what a per-kernel table shows beside each kernel. Needs the activities classified; zero for an activity no
// counted operator launched (a collective, a kernel of a trace without shapes).
struct ActivityWork {
    double flops = 0; // all counted work it executed: model FLOPs, recomputation and elementwise operators' FLOPs
    double modelFlops = 0; // matrix multiplies, grouped GEMMs, attention, convolutions
    double bytes = 0;
    std::optional<GemmPrecision> precision; // of the operator whose model FLOPs ran on it
};
std::vector<ActivityWork> activityWork(const Timeline& timeline);

// Model FLOPs over a time against the dense peak at each precision: sum over precisions of FLOPs / peak, over
// seconds. nullopt when no FLOPs were counted, the GPU has no peak or the time is zero.
struct TraceMfu {
    double mfu = 0;
    double flops = 0;
    double seconds = 0;
    double equivalentPeakFlops = 0; // flops / (mfu x seconds): the peak the FLOPs were measured against, blended
    std::vector<std::string> fallbacks; // "fp8 counted at the BF16 peak" where the GPU has no peak at a precision
};
std::optional<TraceMfu> traceMfu(const FlopsByPrecision& flops, double seconds, const HardwareSpec& hardware);

} // namespace mfu::trace
