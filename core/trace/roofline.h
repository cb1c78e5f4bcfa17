#pragma once
// The roofline of a rank (Williams, Waterman and Patterson, "Roofline: an insightful visual performance model for
// multicore architectures", CACM 2009): each operator problem as a mark at its arithmetic intensity (FLOPs per byte
// moved, op_flops.h's ideal bytes) and its achieved TFLOPS, sized by its kernels' time, under the GPU's ceilings: the
// dense peak at each precision the marks ran at, and the HBM bandwidth times the intensity. A mark under the
// sloped roof is bound by memory, under the flat one by compute; its distance below the roof is what is left.
#include <optional>
#include <string>
#include <vector>

#include "core/model/hardware_spec.h"
#include "core/trace/trace_flops.h"

namespace mfu::trace {

struct RooflineCeiling {
    std::string precision; // GemmPrecision::key()
    std::string label; // "BF16"
    double peakFlops = 0; // dense FLOP/s
    bool fallback = false; // the GPU has no peak at this precision: another format's (densePeakAt)
    double ridgeIntensity = 0; // FLOP/byte where the bandwidth roof meets this one
};

struct Roofline {
    std::optional<std::string> gpu; // the preset id, nullopt when the trace's GPU is not known
    double hbmBytesPerSecond = 0;
    std::vector<RooflineCeiling> ceilings; // one per precision among the marks, highest peak first
    std::string mfuPrecision; // the MFU peak's precision, the roof of marks without one (elementwise work)
    std::vector<OpProblem> marks; // OpFlops::problems with FLOPs and bytes
    // Computation kernels of the analysed steps that no mark holds, because the trace gives them no FLOPs or bytes
    // (OpFlops::kernelsWithoutWork): said, never dropped silently.
    int64_t leftOutKernels = 0;
    int64_t leftOutNs = 0;
    double leftOutShare = 0; // of the computation kernels' time
    std::string leftOutLongest; // the kernel name with the most of that time
    // "12 computation kernels (3.1% of their time) have no FLOPs or bytes in the trace and are not on the roofline
    // (the longest: ...)."; empty when none is left out.
    std::string leftOutNote() const;
    // Operator problems whose FLOPs over their kernels' time pass their precision's dense peak (beyond a 5% margin for
    // clocks above the rated one): no GPU does that, so their recorded shapes or the kernels found for them are not
    // what ran (a 4096^3 matmul attributed a 50 us kernel; dims of 2^63). They are left off the roofline, counted
    // and named, never drawn above the roof.
    int64_t abovePeakProblems = 0;
    std::string abovePeakFastest; // "aten::mm [4096, 4096], [4096, 4096]"
    double abovePeakFastestFlops = 0; // its FLOP/s
    double abovePeakFastestPeak = 0; // its precision's peak
    // "1 operator problem ran faster than its precision's peak allows (the fastest: ... at 2,748.8 TFLOPS, where the
    // peak is 989.0): its recorded shapes or kernels are not what ran, and it is not on the roofline."; empty when
    // none.
    std::string abovePeakNote() const;
    // The most a mark at this intensity and precision ("" for none) could reach: min(peak, intensity x
    // bandwidth). 0 when unknown.
    double attainableFlops(double intensity, const std::string& precision) const;
    // The dense peak of a precision's ceiling ("" for the MFU peak's, under which elementwise marks sit); 0 when the
    // roofline has no such ceiling.
    double peakFlopsFor(const std::string& precision) const;
};

Roofline rooflineOf(const OpFlops& flops, const HardwareSpec* hardware);

} // namespace mfu::trace
