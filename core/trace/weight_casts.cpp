#include "core/trace/weight_casts.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "core/trace/op_args.h"
#include "core/trace/op_flops.h"
#include "core/trace/steps.h"
#include "core/trace/timeline.h"

namespace mfu::trace {

namespace {

constexpr std::string_view kToCopy = "aten::_to_copy";

// PyTorch's ScalarType codes, as `Concrete Inputs` print a dtype argument.
constexpr std::string_view kHalfCode = "5";
constexpr std::string_view kBFloat16Code = "15";

// The fused operators of an Inductor kernel's name: "triton_poi_fused__to_copy_t_11" -> "_to_copy_t". Empty when
// the name is not of that form.
std::string_view fusedOperators(std::string_view name)
{
    constexpr std::string_view kFused = "fused_";
    if (!isInductorKernel(name) || name.substr(11, kFused.size()) != kFused)
        return {};
    std::string_view ops = name.substr(11 + kFused.size());
    const size_t lastUnderscore = ops.rfind('_');
    if (lastUnderscore == std::string_view::npos)
        return {};
    const std::string_view index = ops.substr(lastUnderscore + 1);
    if (index.empty() || !std::all_of(index.begin(), index.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return {};
    return ops.substr(0, lastUnderscore);
}

// After the leading _to_copy, only views of the same elements: the cast of a weight, transposed for the GEMM.
bool onlyLayoutAfter(std::string_view rest)
{
    while (!rest.empty()) {
        const size_t end = rest.find('_');
        const std::string_view word = rest.substr(0, end);
        rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
        if (word.empty())
            continue;
        if (word != "t" && word != "view" && word != "transpose" && word != "permute" && word != "clone"
            && word != "unsafe")
            return false;
    }
    return true;
}

bool isSixteenBit(ScalarType t)
{
    return t == ScalarType::BFloat16 || t == ScalarType::Half;
}

// A 2-D FP32 input's [rows, columns], with both dims positive.
std::optional<std::pair<int64_t, int64_t>> fp32Matrix(const OpArgs& args, size_t input)
{
    const auto dims = args.shape(input);
    if (args.type(input) != ScalarType::Float || dims.size() != 2 || dims[0] <= 0 || dims[1] <= 0)
        return std::nullopt;
    return std::make_pair(dims[0], dims[1]);
}

int64_t elements(std::span<const int64_t> dims)
{
    int64_t n = 1;
    for (const int64_t d : dims) {
        if (d <= 0 || n > INT64_MAX / d)
            return -1;
        n *= d;
    }
    return dims.empty() ? -1 : n;
}

} // namespace

bool isCastOperator(std::string_view name)
{
    if (name == kToCopy)
        return true;
    const std::string_view ops = fusedOperators(name);
    constexpr std::string_view kCast = "_to_copy";
    return ops.substr(0, kCast.size()) == kCast && onlyLayoutAfter(ops.substr(kCast.size()));
}

bool castRecordsItsTypes(std::string_view name, const OpArgs& args)
{
    if (!args.hasDims || args.inputs() == 0 || args.types.empty())
        return false;
    return name != kToCopy || !args.concreteText(1).empty();
}

std::optional<MatrixCast> castOfFp32Matrix(std::string_view name, const OpArgs& args)
{
    if (!args.hasDims || !isCastOperator(name))
        return std::nullopt;
    if (name == kToCopy) {
        // aten::_to_copy(self, dtype, layout, device, pin_memory, non_blocking, memory_format)
        const auto matrix = fp32Matrix(args, 0);
        const std::string_view dtype = args.concreteText(1);
        if (!matrix || elements(args.shape(0)) < 0 || (dtype != kBFloat16Code && dtype != kHalfCode))
            return std::nullopt;
        return MatrixCast { 0, matrix->first, matrix->second };
    }
    // An Inductor kernel's buffers, inputs before outputs: the FP32 source, then the 16-bit destination of as many
    // elements. The other order is a gradient cast back to FP32 (triton_poi_fused__to_copy_3: BF16 in, FP32 out).
    for (size_t i = 0; i < args.inputs(); ++i) {
        const auto matrix = fp32Matrix(args, i);
        const int64_t count = elements(args.shape(i)); // -1 past int64: a corrupt shape, no cast
        if (!matrix || count < 0)
            continue;
        for (size_t j = i + 1; j < args.inputs(); ++j)
            if (isSixteenBit(args.type(j)) && elements(args.shape(j)) == count)
                return MatrixCast { 0, matrix->first, matrix->second };
    }
    return std::nullopt;
}

std::optional<Fp32MatrixCasts> fp32MatrixCasts(const Timeline& t, const StepPlan& plan)
{
    if (!t.recordsShapes || t.matmulOperands.empty() || plan.source != StepSource::CpuAnnotation || plan.steps.empty())
        return std::nullopt;
    const auto isOperand = [&t](int64_t rows, int64_t columns) {
        return std::binary_search(t.matmulOperands.begin(), t.matmulOperands.end(), std::make_pair(rows, columns))
            || std::binary_search(t.matmulOperands.begin(), t.matmulOperands.end(), std::make_pair(columns, rows));
    };
    struct StepCasts {
        int64_t casts = 0;
        std::map<std::pair<int64_t, int64_t>, int64_t> byShape;
    };
    std::vector<StepCasts> perStep(plan.steps.size());
    // Casts are in start order (the reader's), steps in time order: one pass.
    size_t step = 0;
    for (const MatrixCast& c : t.fp32MatrixCasts) {
        while (step < plan.steps.size() && plan.steps[step].annotationEndNs <= c.startNs)
            ++step;
        if (step == plan.steps.size())
            break;
        if (c.startNs < plan.steps[step].annotationStartNs || !isOperand(c.rows, c.columns))
            continue;
        ++perStep[step].casts;
        ++perStep[step].byShape[{ c.rows, c.columns }];
    }
    std::sort(perStep.begin(), perStep.end(), [](const auto& a, const auto& b) { return a.casts < b.casts; });
    const StepCasts& median = perStep[(perStep.size() - 1) / 2]; // the lower median: a step that ran
    Fp32MatrixCasts out;
    out.perStep = static_cast<double>(median.casts);
    out.shapes = static_cast<int64_t>(median.byShape.size());
    out.stepsCounted = static_cast<int>(perStep.size());
    out.castsRead = t.castsRead > 0;
    int64_t most = 0;
    for (const auto& [shape, count] : median.byShape)
        if (count > most) {
            most = count;
            out.rows = shape.first;
            out.columns = shape.second;
        }
    return out;
}

bool castsWeightsEveryStep(const Fp32MatrixCasts& casts)
{
    return casts.perStep >= kAutocastCastsPerStep && casts.shapes >= 2;
}

bool castsNoWeight(const Fp32MatrixCasts& casts)
{
    return casts.castsRead && casts.perStep == 0;
}

} // namespace mfu::trace
