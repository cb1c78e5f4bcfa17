#pragma once
// The core's text (UTF-8 std::string) and option names (C string literals) as QString, for the command line. The
// command line builds on Qt Core alone (mfu_cli), so it does not include the panels' widgets/qt_text.h.
#include <QString>

#include <string>
#include <string_view>

namespace mfu::cli {

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

} // namespace mfu::cli
