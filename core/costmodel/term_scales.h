#pragma once
// Multipliers on the cost model's step-time terms, fitted from a measured trace (core/calibration/): each term's time
// as the trace measured it over the time the model predicted for the same run. 1 everywhere: the model as validated
// against published runs. The terms match the trace's kernel categories (docs/cost-model.md, "Calibration from a
// trace"): matmul = GEMM kernels, attention = attention forward and backward, memory-bound = every other computing
// kernel (elementwise, norms, softmax and loss, optimizer, copies), overhead = the GPU's idle time in a step,
// communication = exposed collective time.
namespace mfu {

struct TermScales {
    double matmul = 1;
    double attention = 1;
    double memoryBound = 1;
    double overhead = 1;
    double communication = 1;
    bool identity() const
    {
        return matmul == 1 && attention == 1 && memoryBound == 1 && overhead == 1 && communication == 1;
    }
};

} // namespace mfu
