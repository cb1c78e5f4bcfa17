#include "widgets/charts/category_palette.h"

#include <array>
#include <utility>

namespace mfu::widgets {

namespace {

// Hues chosen to stay apart under the common colour-vision deficiencies where a family allows it (Okabe-Ito blue,
// sky blue, bluish green, vermillion, orange from "Color Universal Design", Okabe & Ito 2008; the rest from Paul
// Tol's "bright" and "muted" schemes), grouped by family so a chart reads at a glance.
constexpr std::array<std::pair<std::string_view, QRgb>, 18> kColours { {
    // Computation: cool.
    { "gemm", 0x0072b2 }, // Okabe-Ito blue
    { "attention_fwd", 0x56b4e9 }, // Okabe-Ito sky blue
    { "attention_bwd", 0x332288 }, // Tol muted indigo
    { "elementwise", 0x009e73 }, // Okabe-Ito bluish green
    { "normalization", 0x44aa99 }, // Tol muted teal
    { "softmax_loss", 0x117733 }, // Tol muted green
    { "optimizer", 0x7f6fd0 }, // blue-violet
    // Communication: warm.
    { "comm_allreduce", 0xd55e00 }, // Okabe-Ito vermillion
    { "comm_allgather", 0xe69f00 }, // Okabe-Ito orange
    { "comm_reducescatter", 0xcc3311 }, // Tol vibrant red
    { "comm_alltoall", 0xddaa33 }, // Tol high-contrast yellow
    { "comm_sendrecv", 0xee7733 }, // Tol vibrant orange
    { "comm_broadcast", 0xaa3377 }, // Tol bright purple (warm magenta)
    { "comm_other", 0xcc6677 }, // Tol muted rose
    // Memory traffic: greys.
    { "memcpy", 0x5f5f5f },
    { "memset", 0x999999 },
    // Neither: a brown, apart from every family.
    { "other", 0x8c6d31 },
    // Nothing running: light neutral.
    { "idle", 0xdcdcdc },
} };

} // namespace

QColor categoryColour(std::string_view key)
{
    for (const auto& [k, rgb] : kColours)
        if (k == key)
            return QColor::fromRgb(rgb);
    return QColor(0x40, 0x40, 0x40);
}

QColor categoryColour(trace::KernelCategory category)
{
    return categoryColour(trace::categoryKey(category));
}

QColor idleColour()
{
    return categoryColour("idle");
}

QColor errorColour()
{
    return QColor(0xd0, 0x30, 0x30);
}

QString errorStyleSheet()
{
    return QStringLiteral("color: %1;").arg(errorColour().name());
}

} // namespace mfu::widgets
