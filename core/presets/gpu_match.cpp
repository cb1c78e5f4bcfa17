#include "core/presets/gpu_match.h"

#include <array>
#include <utility>

namespace mfu::trace {

std::optional<std::string> proposeHardwarePresetId(std::string_view gpuName)
{
    std::string upper(gpuName);
    for (char& c : upper)
        if (c >= 'a' && c <= 'z')
            c = static_cast<char>(c - 'a' + 'A');
    auto has = [&](std::string_view s) { return upper.find(s) != std::string::npos; };
    // Most specific first: GB200 contains B200, H100 PCIe and NVL differ from SXM.
    if (has("GB300"))
        return "gb300";
    if (has("GB200"))
        return "gb200";
    if (has("B300"))
        return "b300";
    if (has("B200"))
        return "b200";
    if (has("H200"))
        return "h200";
    if (has("H100")) {
        if (has("PCIE"))
            return "h100-pcie";
        if (has("NVL"))
            return std::nullopt; // 835 TFLOPS, no preset
        if (has("SXM") || has("HBM3"))
            return "h100-sxm";
        return std::nullopt;
    }
    if (has("A800"))
        return "a800-sxm-80gb";
    if (has("A100"))
        return "a100-sxm-80gb";
    for (const auto& [token, id] : std::array<std::pair<std::string_view, std::string_view>, 3> {
             { { "MI355X", "mi355x" }, { "MI325X", "mi325x" }, { "MI300X", "mi300x" } } })
        if (has(token))
            return std::string(id);
    return std::nullopt;
}

} // namespace mfu::trace
