#pragma once
// The core's text (UTF-8 std::string) and option names (C string literals) as QString, for the command line. The
// command line builds on Qt Core alone (mfu_cli), so it does not include the panels' widgets/qt_text.h.
#include <QString>

#include <string>

namespace mfu::cli {

inline QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

inline QString qs(const char* text)
{
    return QString::fromUtf8(text);
}

} // namespace mfu::cli
