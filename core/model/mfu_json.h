#pragma once
// One JSON form of an MFU result, for every command that prints one (calc, trace). Key names follow the glossary
// docs/json-keys.md. Without a result (no throughput given), every key is present and null, so that a reader finds
// the same keys in either case.
//   tokens_per_sec_per_gpu, tokens_per_sec        tokens/s per GPU and for the whole run
//   achieved_tflops_per_gpu, achieved_tflops_cluster
//   peak_dense_tflops_per_gpu                    the MFU denominator: the dense BF16 peak (also for BF16+FP8; FP16
//                                                on a device without BF16)
//   mfu, hfu, mfu_peak_basis ("bf16_dense", "fp16_dense"), peak_format ("bf16", "fp16")
//   peak_dense_fp8_tflops_per_gpu, mfu_vs_fp8_peak  BF16+FP8 runs on a GPU with an FP8 peak, else null
#include <optional>

#include <nlohmann/json.hpp>

#include "core/model/mfu.h"

namespace mfu {

nlohmann::json mfuResultToJson(const std::optional<MfuResult>& result);

} // namespace mfu
