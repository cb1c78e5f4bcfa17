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

// What a path that is not a regular file is, for the refusal; empty when it is one or does not exist. lstat, so a
// symbolic link is seen as the link: rename() would replace the link itself, not what it points to.
std::string notRegularFile(const std::filesystem::path& path)
{
    struct stat st { };
    if (::lstat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode))
        return {};
    const char* what = S_ISLNK(st.st_mode)           ? "a symbolic link"
        : S_ISDIR(st.st_mode)                        ? "a folder"
        : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
        : S_ISFIFO(st.st_mode)                       ? "a FIFO"
                                                     : "a socket or other special file";
    return std::string("refusing to replace what is not a regular file (") + what + ")";
}

} // namespace

std::string whyFileCannotBeWritten(const std::filesystem::path& path)
{
    if (std::string refusal = notRegularFile(path); !refusal.empty())
        return refusal;
    const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
    struct stat st { };
    if (::stat(folder.c_str(), &st) != 0)
        return errno == ENOENT ? "the folder " + folder.string() + " does not exist" : systemReason(errno);
    if (!S_ISDIR(st.st_mode))
        return folder.string() + " is not a folder";
    if (::access(folder.c_str(), W_OK | X_OK) != 0)
        return systemReason(errno);
    return {};
}

namespace {

// Opens a new temporary file beside the target: "<name>.<pid>.<n>.tmp", created exclusively (never another's file).
// The name is cut to 200 bytes first, so that a target whose own name is near the 255-byte limit can still be saved.
int openTemporary(const std::filesystem::path& target, std::string& tempPath)
{
    static std::atomic<unsigned> counter { 0 };
    const std::string name = target.filename().string().substr(0, 200);
    for (int attempt = 0; attempt < 100; ++attempt) {
        tempPath = (target.parent_path() / name).string() + "." + std::to_string(::getpid()) + "."
            + std::to_string(counter++) + ".tmp";
        const int fd = ::open(tempPath.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666); // umask applies
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

// Writes `bytes` whole to a new temporary beside `path`, flushed and closed; on failure removes it.
bool stage(const std::filesystem::path& path, std::string_view bytes, std::string& tempPath, std::string* reason)
{
    if (const std::string refusal = notRegularFile(path); !refusal.empty())
        return failWith(reason, refusal);
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
    return true;
}

bool commit(const std::string& tempPath, const std::filesystem::path& path, std::string* reason)
{
    // Checked again just before the rename: the target may have been replaced by a link meanwhile.
    if (const std::string refusal = notRegularFile(path); !refusal.empty()) {
        ::unlink(tempPath.c_str());
        return failWith(reason, refusal);
    }
    if (::rename(tempPath.c_str(), path.c_str()) != 0) {
        const int error = errno;
        ::unlink(tempPath.c_str());
        return failWith(reason, systemReason(error));
    }
    return true;
}

} // namespace

bool writeFileAtomically(const std::filesystem::path& path, std::string_view bytes, std::string* reason)
{
    std::string tempPath;
    return stage(path, bytes, tempPath, reason) && commit(tempPath, path, reason);
}

bool writeFilesAtomically(const std::vector<FileToWrite>& files, std::string* reason, std::string* failedPath)
{
    std::vector<std::string> staged;
    const auto abandon = [&](size_t failed) {
        for (const std::string& t : staged)
            ::unlink(t.c_str());
        if (failedPath)
            *failedPath = files[failed].path.string();
        return false;
    };
    for (size_t i = 0; i < files.size(); ++i) {
        std::string tempPath;
        if (!stage(files[i].path, files[i].bytes, tempPath, reason))
            return abandon(i);
        staged.push_back(tempPath);
    }
    // Every byte is on the disk: the renames that remain need no space. Each target is checked before any is
    // renamed, so a refusal found now still leaves every file as it was.
    for (size_t i = 0; i < files.size(); ++i)
        if (const std::string refusal = notRegularFile(files[i].path); !refusal.empty()) {
            failWith(reason, refusal);
            return abandon(i);
        }
    for (size_t i = 0; i < files.size(); ++i)
        if (!commit(staged[i], files[i].path, reason)) {
            staged.erase(staged.begin(), staged.begin() + static_cast<std::ptrdiff_t>(i + 1));
            return abandon(i);
        }
    return true;
}

} // namespace mfu
