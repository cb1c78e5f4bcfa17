#include "core/trace/kernel_category.h"

namespace mfu::trace {

namespace {
constexpr std::array<std::string_view, kKernelCategoryCount> kKeys { "gemm", "attention_fwd", "attention_bwd",
    "elementwise", "normalization", "softmax_loss", "optimizer", "comm_allreduce", "comm_allgather",
    "comm_reducescatter", "comm_alltoall", "comm_sendrecv", "comm_broadcast", "comm_other", "memcpy", "memset",
    "other" };
}

std::string_view categoryKey(KernelCategory c)
{
    return kKeys[static_cast<size_t>(c)];
}

std::string_view categoryLabel(KernelCategory c)
{
    static constexpr std::string_view kLabels[] = { "GEMM", "Attention fwd", "Attention bwd", "Elementwise/fused",
        "Normalization", "Softmax/loss", "Optimizer", "All-reduce", "All-gather", "Reduce-scatter", "All-to-all",
        "Send/recv", "Broadcast", "Other comm.", "Memcpy", "Memset", "Other" };
    static_assert(std::size(kLabels) == kKernelCategoryCount);
    return kLabels[static_cast<size_t>(c)];
}

std::optional<KernelCategory> categoryFromKey(std::string_view key)
{
    for (size_t i = 0; i < kKeys.size(); ++i)
        if (kKeys[i] == key)
            return static_cast<KernelCategory>(i);
    return std::nullopt;
}

bool isCommunication(KernelCategory c)
{
    return c >= KernelCategory::CommAllReduce && c <= KernelCategory::CommOther;
}

bool isMemory(KernelCategory c)
{
    return c == KernelCategory::Memcpy || c == KernelCategory::Memset;
}

} // namespace mfu::trace
