#pragma once
// A calibrated prediction in words, the same on the command line (predict --calibration) and in the Predict panel.
#include <string>
#include <vector>

#include "core/calibration/trace_calibration.h"

namespace mfu {

// The term as a reader names it, as the report's prediction rows do: "Matmuls", "Attention", "Memory-bound",
// "Exposed communication", "Overhead" (calibratedTermKey is the file's and the JSON's key).
std::string_view calibratedTermLabel(CalibratedTerm t);
// "MFU 56.19% (likely 53.47%-59.19%), step 0.488 s (uncalibrated 53.81%, 0.510 s)".
std::string calibratedFiguresText(const CalibratedPrediction& p);
// "measured 0%, interpolated 100%, extrapolated 0% of the step".
std::string calibratedBasisText(const CalibratedPrediction& p);
// One line per term with time in the step: "matmul 0.161 s interpolated: the trace's factor carried to ...".
std::vector<std::string> calibratedTermLines(const CalibratedPrediction& p);
// The traced GEMM shapes, the longest `most` of them, one line each: "32,768 x 3,072 x 1,024 BF16: 84 a step,
// 25.00 ms, 693 TFLOPS (70% of the dense peak)".
std::vector<std::string> gemmShapeLines(const TraceCalibration& c, size_t most);
// The traced attention calls, the longest `most` of them, one line each: "sequence 4,096, head dim 128, 8 x 16 heads,
// causal backward: 28 a step, 86.290 ms, 446.0 TFLOPS".
std::vector<std::string> attentionShapeLines(const TraceCalibration& c, size_t most);
// What a calibration measured, in one line: "3 steps of 1 rank(s) on NVIDIA H200: replay 381.1 ms, measured 381.1 ms".
std::string calibrationSummaryText(const TraceCalibration& c);

} // namespace mfu
