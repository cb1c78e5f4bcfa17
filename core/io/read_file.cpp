#include "core/io/read_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

#include "core/errors.h"

namespace mfu {

std::string readWholeFile(const std::filesystem::path& path, const std::string& what)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw InputError(path.string() + ": is a folder, not " + what);
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw InputError(path.string() + ": cannot be opened for reading (" + std::strerror(errno) + ")");
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad())
        throw InputError(path.string() + ": could not be read to the end");
    return text.str();
}

} // namespace mfu
