#pragma once
// A rank's matrix work in its analysed steps, as the Trace panel's figures and the report's "Work from recorded
// shapes" state it: the FLOPs its recorded shapes give inside the steps, per step, and each precision's share of them.
#include <string>
#include <vector>

#include "core/trace/analysis.h"

namespace mfu::trace {

struct PrecisionShare {
    std::string
        label; // GemmPrecision::label() ("BF16", "FP8 (E4M3)", ...), "unknown" when neither types nor kernel say
    double share = 0; // of the FLOPs in the steps
};

struct StepMatrixWork {
    double flopsPerStep = 0; // the FLOPs inside the analysed steps over their count (at least one)
    // Each precision of 0.1% of those FLOPs or more, in the order the rank records them (by key); a smaller one is
    // rounding noise in a sentence.
    std::vector<PrecisionShare> precisions;
};

StepMatrixWork stepMatrixWork(const RankAnalysis& rank);
// "BF16 99.80%, FP8 (E4M3) 0.20%": the shares as both surfaces write them.
std::string precisionSharesText(const StepMatrixWork& work);
// "3 without readable shapes (2 with tensors no device could hold: more than 10 TB an operator)": the matrix operators
// whose FLOPs are missing, as the command line and the report write them.
std::string shapelessOperatorsText(const OpFlops& flops);

} // namespace mfu::trace
