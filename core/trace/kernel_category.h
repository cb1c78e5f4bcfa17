#pragma once
// The categories a GPU activity falls into. Keys are part of the command-line JSON contract (docs/trace-analysis.md).
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace mfu::trace {

enum class KernelCategory : uint8_t {
    Gemm,
    AttentionFwd,
    AttentionBwd,
    Elementwise,
    Normalization,
    SoftmaxLoss,
    Optimizer,
    CommAllReduce,
    CommAllGather,
    CommReduceScatter,
    CommAllToAll,
    CommSendRecv,
    CommBroadcast,
    CommOther,
    Memcpy,
    Memset,
    Other,
};

inline constexpr int kKernelCategoryCount = static_cast<int>(KernelCategory::Other) + 1;

std::string_view categoryKey(KernelCategory c); // "gemm", "attention_fwd", ..., "comm_allreduce", ..., "other"
std::optional<KernelCategory> categoryFromKey(std::string_view key);
// The name people read in a report or a chart: "GEMM", "Attention fwd", "All-reduce", ...
std::string_view categoryLabel(KernelCategory c);
bool isCommunication(KernelCategory c);
bool isMemory(KernelCategory c); // memcpy, memset
// HTA's COMPUTATION: every kernel that is neither communication nor memory.
inline bool isComputation(KernelCategory c)
{
    return !isCommunication(c) && !isMemory(c);
}

} // namespace mfu::trace
