#pragma once
// The arguments PyTorch's profiler records for an operator when shapes are on (record_shapes=True): per input its
// dims (`Input Dims`), element type (`Input type`) and, for scalars and lists, its value as text (`Concrete Inputs`).
// The reader fills one OpArgs per cpu_op event and reuses it, so reading shapes allocates nothing in the steady
// state. An input that is a tensor list (`TensorList`, recorded as a list of dims) keeps one dim: its elements.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mfu::trace {

// Element types as the profiler names them ("c10::BFloat16", "float", "c10::Float8_e4m3fn", ...).
enum class ScalarType : uint8_t {
    None, // not a tensor: "" (an absent optional), "Scalar", "ScalarList", "GenericList", ...
    Unknown, // a type this table does not know
    Bool,
    Int8,
    UInt8,
    Int16,
    Int32,
    Int64,
    Float8E4M3, // e4m3fn and e4m3fnuz
    Float8E5M2, // e5m2 and e5m2fnuz
    Float8E8M0, // the MX scale type
    Float4E2M1x2, // two FP4 values per byte: a dim of such a tensor counts bytes, half its elements
    Half,
    BFloat16,
    Float,
    Double,
    ComplexFloat,
    ComplexDouble,
    TensorList, // the list's own type; its elements' type is not recorded
};

ScalarType scalarTypeFromName(std::string_view name);
// Storage bytes per recorded element (1 for the packed FP4 pair); 0 for None and Unknown.
double bytesPerElement(ScalarType t);
bool isFloat8(ScalarType t);

struct OpArgs {
    std::vector<int64_t> dims; // every input's dims, one after another
    std::vector<uint32_t> dimsEnd; // per input: where its dims end in `dims`
    std::vector<ScalarType> types; // per input (shorter when the file recorded fewer types than dims)
    std::vector<std::string> concrete; // per input, "" where the file recorded none
    bool hasDims = false; // the event carried `Input Dims`

    void clear()
    {
        dims.clear();
        dimsEnd.clear();
        types.clear();
        concrete.clear();
        hasDims = false;
    }
    size_t inputs() const { return dimsEnd.size(); }
    std::span<const int64_t> shape(size_t input) const
    {
        if (input >= dimsEnd.size())
            return {};
        const uint32_t begin = input == 0 ? 0 : dimsEnd[input - 1];
        return { dims.data() + begin, dimsEnd[input] - begin };
    }
    ScalarType type(size_t input) const { return input < types.size() ? types[input] : ScalarType::Unknown; }
    std::string_view concreteText(size_t input) const
    {
        return input < concrete.size() ? std::string_view(concrete[input]) : std::string_view();
    }
};

} // namespace mfu::trace
