#pragma once
// The core's text (UTF-8 std::string) and the command line's option names (C string literals) as QString: one
// spelling for every panel, the report and the CLI.
#include <QString>

#include <string>
#include <string_view>

namespace mfu {

inline QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

inline QString qs(const char* text)
{
    return QString::fromUtf8(text);
}

// A view into the core's tables (core/scenario/settings.h), which need not end in a NUL.
inline QString qs(std::string_view text)
{
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

} // namespace mfu
