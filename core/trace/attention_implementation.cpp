#include "core/trace/attention_implementation.h"

#include "core/scenario/scenario_file.h"

#include <algorithm>
#include <array>
#include <map>

#include <nlohmann/json.hpp>

#include "core/text.h"

namespace mfu::trace {

namespace {

bool contains(std::string_view haystack, std::string_view needle)
{
    return haystack.find(needle) != std::string_view::npos;
}

bool startsWith(std::string_view s, std::string_view prefix)
{
    return s.substr(0, prefix.size()) == prefix;
}

constexpr size_t kImplementations = static_cast<size_t>(AttentionImplementation::Math) + 1;

// Host-thread intervals of the math attention operators, per thread index, in start order.
using MathRanges = std::map<int32_t, std::vector<std::pair<int64_t, int64_t>>>;

MathRanges mathAttentionRanges(const Timeline& t)
{
    std::vector<int> isMath(t.names.size(), -1);
    MathRanges ranges;
    for (const CpuOp& op : t.cpuOps) {
        int& cached = isMath[op.name];
        if (cached < 0)
            cached = attentionImplementationOfOperator(t.names.name(op.name)) == AttentionImplementation::Math;
        if (cached)
            ranges[op.thread].emplace_back(op.startNs, op.endNs);
    }
    return ranges;
}

// Whether the kernel's launch ran inside a math attention operator on its thread.
bool launchedUnder(const MathRanges& ranges, const Timeline& t, const GpuActivity& a)
{
    if (ranges.empty() || a.correlation < 0)
        return false;
    const auto it = std::lower_bound(t.launches.begin(), t.launches.end(), a.correlation,
        [](const Launch& l, int64_t c) { return l.correlation < c; });
    if (it == t.launches.end() || it->correlation != a.correlation)
        return false;
    const auto thread = ranges.find(it->thread);
    if (thread == ranges.end())
        return false;
    const auto& list = thread->second;
    auto after = std::upper_bound(list.begin(), list.end(), std::make_pair(it->startNs, INT64_MAX));
    return after != list.begin() && std::prev(after)->second >= it->startNs;
}

bool isAttention(KernelCategory c)
{
    return c == KernelCategory::AttentionFwd || c == KernelCategory::AttentionBwd;
}

} // namespace

std::string_view attentionImplementationKey(AttentionImplementation a)
{
    static constexpr std::array<std::string_view, kImplementations> kKeys { "cudnn", "flash2", "flash3", "efficient",
        "math" };
    return kKeys[static_cast<size_t>(a)];
}

std::string_view attentionImplementationLabel(AttentionImplementation a)
{
    static constexpr std::array<std::string_view, kImplementations> kLabels { "cuDNN SDPA", "FlashAttention 2",
        "FlashAttention 3", "memory-efficient attention", "math attention (unfused)" };
    return kLabels[static_cast<size_t>(a)];
}

std::optional<AttentionImplementation> attentionImplementationFromKey(std::string_view key)
{
    for (size_t i = 0; i < kImplementations; ++i)
        if (attentionImplementationKey(static_cast<AttentionImplementation>(i)) == key)
            return static_cast<AttentionImplementation>(i);
    return std::nullopt;
}

std::optional<AttentionImplementation> attentionImplementationOfKernel(std::string_view name)
{
    // FlashAttention 3 first: its kernels also live in namespace flash:: and run through CUTLASS's device_kernel.
    for (std::string_view fa3 : { "FlashAttnFwdSm", "FlashAttnBwdSm", "FlashAttnBwdPreprocess",
             "FlashAttnBwdPostprocess", "FlashAttnFwdCombine", "flash::compute_attn_ws" })
        if (contains(name, fa3))
            return AttentionImplementation::Flash3;
    const std::string lower = asciiLowered(name);
    if (contains(lower, "cudnn")
        && (contains(lower, "sdpa") || contains(lower, "flash") || contains(lower, "fmha")
            || contains(lower, "compute_dot_do_o") || contains(lower, "convert_dq")))
        return AttentionImplementation::Cudnn;
    if (contains(lower, "fmha_cutlass") || contains(lower, "memeffattention") || contains(lower, "efficient_attention"))
        return AttentionImplementation::Efficient;
    if (contains(lower, "flash_fwd") || contains(lower, "flash_bwd"))
        return AttentionImplementation::Flash2;
    return std::nullopt;
}

std::optional<AttentionImplementation> attentionImplementationOfOperator(std::string_view op)
{
    if (contains(op, "_for_cpu")) // aten::_scaled_dot_product_flash_attention_for_cpu runs on the host
        return std::nullopt;
    if (startsWith(op, "aten::_scaled_dot_product_cudnn_attention") || startsWith(op, "aten::_cudnn_attention"))
        return AttentionImplementation::Cudnn;
    if (startsWith(op, "flash_attn_3::"))
        return AttentionImplementation::Flash3;
    if (startsWith(op, "aten::_scaled_dot_product_flash_attention") || startsWith(op, "aten::_flash_attention")
        || startsWith(op, "flash_attn::"))
        return AttentionImplementation::Flash2;
    if (startsWith(op, "aten::_scaled_dot_product_efficient_attention") || startsWith(op, "aten::_efficient_attention"))
        return AttentionImplementation::Efficient;
    if (startsWith(op, "aten::_scaled_dot_product_attention_math"))
        return AttentionImplementation::Math;
    return std::nullopt;
}

std::optional<DetectedAttention> detectAttentionImplementation(const Timeline& t)
{
    // Kernel time per implementation, each distinct name looked at once.
    std::vector<int> byName(t.names.size(), -2); // -2 not looked at, -1 none, else the implementation
    const MathRanges math = mathAttentionRanges(t);
    std::array<int64_t, kImplementations> ns {};
    int64_t attentionNs = 0;
    for (const GpuActivity& a : t.activities) {
        if (a.kind != ActivityKind::Kernel)
            continue;
        int& cached = byName[a.name];
        if (cached == -2) {
            const auto found = attentionImplementationOfKernel(t.names.name(a.name));
            cached = found ? static_cast<int>(*found) : -1;
        }
        int implementation = cached;
        if (implementation < 0 && launchedUnder(math, t, a))
            implementation = static_cast<int>(AttentionImplementation::Math);
        if (implementation >= 0)
            ns[static_cast<size_t>(implementation)] += a.durationNs();
        if (implementation >= 0 || isAttention(a.category))
            attentionNs += a.durationNs();
    }
    const auto most = std::max_element(ns.begin(), ns.end());
    if (*most > 0 && attentionNs > 0)
        return DetectedAttention { static_cast<AttentionImplementation>(most - ns.begin()),
            static_cast<double>(*most) / static_cast<double>(attentionNs) };
    // No kernel says: the operators that dispatch to one (a trace whose kernels were not recorded).
    std::array<int64_t, kImplementations> calls {};
    for (const CpuOp& op : t.cpuOps)
        if (const auto found = attentionImplementationOfOperator(t.names.name(op.name)))
            ++calls[static_cast<size_t>(*found)];
    const auto mostCalls = std::max_element(calls.begin(), calls.end());
    if (*mostCalls == 0)
        return std::nullopt;
    return DetectedAttention { static_cast<AttentionImplementation>(mostCalls - calls.begin()), std::nullopt };
}

std::optional<AttentionKernel> attentionKernelFor(AttentionImplementation implementation)
{
    switch (implementation) {
    case AttentionImplementation::Cudnn:
        return AttentionKernel::Cudnn;
    case AttentionImplementation::Flash2:
        return AttentionKernel::FlashAttention2;
    case AttentionImplementation::Flash3:
        return AttentionKernel::FlashAttention3;
    case AttentionImplementation::Math:
        return AttentionKernel::Unfused;
    case AttentionImplementation::Efficient:
        return std::nullopt;
    }
    return std::nullopt;
}

void addAttentionImplementationJson(nlohmann::json& rank, const std::optional<DetectedAttention>& detected)
{
    rank["attention_implementation"] = detected
        ? nlohmann::json(std::string(attentionImplementationKey(detected->implementation)))
        : nlohmann::json();
    rank["attention_implementation_share"] = detected && detected->shareOfAttentionTime
        ? nlohmann::json(*detected->shareOfAttentionTime)
        : nlohmann::json();
    // What Predict's --attention-kernel takes for it (null: memory-efficient attention, which no kernel models).
    const auto kernel = detected ? attentionKernelFor(detected->implementation) : std::nullopt;
    rank["attention_kernel"] = kernel ? nlohmann::json(std::string(attentionKernelKey(*kernel))) : nlohmann::json();
}

} // namespace mfu::trace
