#pragma once
// Whether a traced run kept FP32 weights and cast them to 16 bits every step: torch.autocast over an FP32 model, as
// TorchTitan's single-GPU and DDP recipes and many research loops run it. The cost model charges those casts and the
// FP32 traffic around them (FrameworkFlags::autocast), so a calibration fitted without knowing leaves them in its
// memory-bound factor (2.92 on the PyTorch 2.11 H200 trace, about 1.0 with it known) and carries them into every
// other scenario.
//
// What the trace records of it, with record_shapes on:
//  - eager: `aten::_to_copy` of a 2-D FP32 tensor with the dtype argument BFloat16 or Half (15 or 5 among its
//    Concrete Inputs): autocast's cast of each nn.Linear weight, once per micro-step (its cast cache);
//  - torch.compile: an Inductor kernel that fuses nothing but the cast and layout views
//    (`triton_poi_fused__to_copy_t_11`), given the FP32 weight [3072, 1024] and its 16-bit buffer of as many
//    elements. Inductor records such kernels as operators with their buffers' shapes.
// A cast counts as a weight's when the 2-D matrix it casts is, in either orientation, an operand of one of the
// trace's matrix products (aten::mm and its kin record their operands' shapes): activations under autocast are cast
// too, and a 16-bit MoE model casts its FP32 routing weights [tokens, top-k], but neither is a GEMM's operand in that
// shape. FSDP's mixed precision casts in its all-gather (flat 1-D buffers) and Megatron's FP32 main parameters are
// copied into BF16 ones (aten::copy_, not a cast), so neither reads as autocast.
#include <cstdint>
#include <optional>
#include <string_view>

namespace mfu::trace {

struct OpArgs;
struct Timeline;
struct StepPlan;

// A 2-D FP32 matrix cast to 16 bits by one operator.
struct MatrixCast {
    int64_t startNs = 0;
    int64_t rows = 0;
    int64_t columns = 0;
};

// aten::_to_copy, or an Inductor kernel that fuses only a _to_copy and layout views (t, view, transpose, permute,
// clone, _unsafe_view): the operators whose shapes castOfFp32Matrix reads.
bool isCastOperator(std::string_view opName);

// Whether a cast operator's record says what it casts: its inputs' dims and types and, for aten::_to_copy, the
// dtype it casts to. A trace without them (older PyTorch writes no Concrete Inputs) cannot show a cast's absence.
bool castRecordsItsTypes(std::string_view opName, const OpArgs& args);

// The FP32 matrix an operator of isCastOperator casts to BF16 or FP16, from its recorded arguments; nullopt when it
// casts something else (another type, a vector, a 3-D activation) or its arguments say too little.
std::optional<MatrixCast> castOfFp32Matrix(std::string_view opName, const OpArgs& args);

struct Fp32MatrixCasts {
    double perStep = 0; // casts of GEMM operands in the median analysed step
    int64_t shapes = 0; // distinct [rows, columns] among them
    int64_t rows = 0, columns = 0; // the shape cast most often (an example to name)
    int stepsCounted = 0;
    bool castsRead = false; // the trace records at least one cast operator with its types (castRecordsItsTypes)
};

// Over the steps the CPU's ProfilerStep annotations delimit (a cast is a host operator); nullopt when the trace
// records no shapes, no matrix product's operands or has no such steps: it cannot say.
std::optional<Fp32MatrixCasts> fp32MatrixCasts(const Timeline& timeline, const StepPlan& plan);

// Autocast over FP32 weights: every linear layer's weight is cast each micro-step, so a step casts several matrices
// of more than one shape (q, k, v, o, gate, up and down of even a one-layer model). A lone cast (an FP32 rotary or
// position table) is not it.
inline constexpr double kAutocastCastsPerStep = 4;
bool castsWeightsEveryStep(const Fp32MatrixCasts& casts);
// No weight cast in a trace that records its casts: the weights were 16-bit (given that its GEMMs ran in 16 bits
// and its shapes reach them: ranUnderAutocast). Between the two (a cast or a few, one shape) it cannot tell.
bool castsNoWeight(const Fp32MatrixCasts& casts);

} // namespace mfu::trace
