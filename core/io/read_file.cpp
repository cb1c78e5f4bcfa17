#include "core/io/read_file.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/errors.h"

namespace mfu {

namespace {

// What a file that is not regular is, in the words of `ls -l` / stat(1).
const char* kindOf(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a folder";
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "a special file";
}

std::string mebibytes(uint64_t bytes)
{
    return std::to_string((bytes + (uint64_t(1) << 20) - 1) >> 20) + " MiB";
}

} // namespace

InputFile::InputFile(const std::filesystem::path& path, const std::string& what)
    : m_name(path.string())
{
    // O_NONBLOCK: open() of a FIFO without a writer would wait for one forever.
    m_fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (m_fd < 0) {
        const int error = errno;
        struct stat st { };
        if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
            throw InputError(m_name + ": is a folder, not " + what);
        throw InputError(m_name + ": cannot be opened for reading (" + std::strerror(error) + ")");
    }
    struct stat st { };
    const bool known = ::fstat(m_fd, &st) == 0;
    if (!known || !S_ISREG(st.st_mode)) {
        ::close(m_fd);
        m_fd = -1;
        if (known && S_ISDIR(st.st_mode))
            throw InputError(m_name + ": is a folder, not " + what);
        throw InputError(m_name + ": is " + std::string(known ? kindOf(st.st_mode) : "not a regular file") + ", not "
            + what + "; only regular files are read");
    }
    m_size = static_cast<uint64_t>(st.st_size);
    // A regular file never blocks; clearing the flag keeps later reads ordinary on every system.
    const int flags = ::fcntl(m_fd, F_GETFL);
    if (flags >= 0)
        ::fcntl(m_fd, F_SETFL, flags & ~O_NONBLOCK);
}

InputFile::~InputFile()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

std::FILE* InputFile::releaseAsStream()
{
    std::FILE* stream = ::fdopen(m_fd, "rb");
    if (!stream)
        throw InputError(m_name + ": cannot be opened for reading (" + std::strerror(errno) + ")");
    m_fd = -1;
    return stream;
}

std::string InputFile::readAll(uint64_t maxBytes)
{
    return readingInput(m_name, [&] { return readUpTo(maxBytes); });
}

std::string InputFile::readUpTo(uint64_t maxBytes)
{
    if (m_size > maxBytes)
        throw InputError(m_name + ": is " + mebibytes(m_size) + ", larger than the " + mebibytes(maxBytes)
            + " such a file may be; is it the right file?");
    std::string bytes;
    bytes.resize(static_cast<size_t>(m_size));
    size_t got = 0;
    for (;;) {
        if (got == bytes.size()) {
            if (bytes.size() > maxBytes) // the file grew while being read
                throw InputError(m_name + ": grew beyond " + mebibytes(maxBytes) + " while being read");
            bytes.resize(got + size_t { 64 } * 1024);
        }
        const ssize_t n = ::read(m_fd, bytes.data() + got, bytes.size() - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            throw InputError(m_name + ": could not be read to the end (" + std::strerror(errno) + ")");
        if (n == 0)
            break;
        got += static_cast<size_t>(n);
    }
    bytes.resize(got);
    return bytes;
}

std::string readWholeFile(const std::filesystem::path& path, const std::string& what, uint64_t maxBytes)
{
    return InputFile(path, what).readAll(maxBytes);
}

void requireRegularFile(const std::filesystem::path& path, const std::string& what)
{
    InputFile file(path, what);
}

std::ifstream openInputStream(const std::filesystem::path& path, const std::string& what)
{
    requireRegularFile(path, what);
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw InputError(path.string() + ": cannot be opened for reading (" + std::strerror(errno) + ")");
    return in;
}

std::string outOfMemoryWhileReading()
{
    return "out of memory while reading it (it needs more memory than this machine has free)";
}

std::string outOfMemoryMessage()
{
    return "out of memory (the input needs more memory than this machine has free)";
}

bool isRegularFile(const std::filesystem::path& path)
{
    struct stat st { };
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

} // namespace mfu
