#include "core/io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace mfu {

namespace {

bool failWith(std::string* reason, const std::string& why)
{
    if (reason)
        *reason = why;
    return false;
}

std::string systemReason(int error)
{
    return std::strerror(error);
}

// Opens a new temporary file beside the target: "<name>.<pid>.<n>.tmp", created exclusively (never another's file).
int openTemporary(const std::filesystem::path& target, std::string& tempPath)
{
    static std::atomic<unsigned> counter { 0 };
    for (int attempt = 0; attempt < 100; ++attempt) {
        tempPath = target.string() + "." + std::to_string(::getpid()) + "." + std::to_string(counter++) + ".tmp";
        const int fd = ::open(tempPath.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666); // umask applies
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

} // namespace

bool writeFileAtomically(const std::filesystem::path& path, std::string_view bytes, std::string* reason)
{
    std::string tempPath;
    const int fd = openTemporary(path, tempPath);
    if (fd < 0)
        return failWith(reason, systemReason(errno));
    const auto abandon = [&](int error) {
        ::close(fd);
        ::unlink(tempPath.c_str());
        return failWith(reason, systemReason(error));
    };

    // A replaced file keeps its permissions (a new one has 0666 less the umask from open()).
    struct stat existing { };
    if (::stat(path.c_str(), &existing) == 0 && S_ISREG(existing.st_mode)
        && ::fchmod(fd, existing.st_mode & 07777) != 0)
        return abandon(errno);

    // write() may take fewer bytes than asked (a signal, the file-size limit reached part-way); the next call then
    // fails with the reason (EFBIG, ENOSPC, EDQUOT), which is what the caller is told.
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return abandon(errno);
        }
        if (n == 0)
            return abandon(EIO);
        done += static_cast<size_t>(n);
    }
    // Some file systems report a full disk only when the data is flushed, or at close.
    if (::fsync(fd) != 0)
        return abandon(errno);
    if (::close(fd) != 0) {
        const int error = errno;
        ::unlink(tempPath.c_str());
        return failWith(reason, systemReason(error));
    }
    if (::rename(tempPath.c_str(), path.c_str()) != 0) {
        const int error = errno;
        ::unlink(tempPath.c_str());
        return failWith(reason, systemReason(error));
    }
    return true;
}

} // namespace mfu
