#pragma once
// The core's text (UTF-8 std::string) and the command line's option names (C string literals) as QString: one
// spelling for every panel, the report and the CLI.
#include <QString>

#include <string>

namespace mfu {

inline QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

inline QString qs(const char* text)
{
    return QString::fromUtf8(text);
}

} // namespace mfu
