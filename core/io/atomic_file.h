#pragma once
// Every file the application writes (scenarios, chart exports, reports, trace summaries) goes through here: the
// bytes are written to a temporary file beside the target, flushed to the disk (fsync) and renamed over the target
// only when every byte reached it, so a full disk, a file-size limit or a read-only folder leaves the previous file
// as it was and yields the system's reason. A target that exists and is not a regular file (a symbolic link, a
// device such as /dev/null, a FIFO, a folder) is refused, never replaced. Plain POSIX (lstat, open, write, fsync,
// rename): the command line, the report and the panels share it.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace mfu {

// Returns false and sets *reason (the system's message, strerror, without the path) when the file could not be
// written whole; the target is then untouched and no temporary file is left behind. A new file gets the usual
// permissions (0666 less the umask); a replaced file keeps its own.
bool writeFileAtomically(const std::filesystem::path& path, std::string_view bytes, std::string* reason);

// Why a file could not be written at `path`, found before any work goes into producing it (a report takes seconds):
// the target exists and is not a regular file, or its folder does not exist, is not a folder or cannot be written
// into. Empty when the write may go ahead; it can still fail (a full disk), which writeFileAtomically then says.
std::string whyFileCannotBeWritten(const std::filesystem::path& path);

struct FileToWrite {
    std::filesystem::path path;
    std::string bytes;
};

// Several files that belong together (a report's page and its images): all are written to temporaries first, and
// only when every one is complete are they renamed into place, in order (so put the file that refers to the others
// last). On failure nothing is replaced, no temporary is left, and *failedPath names the file that failed.
bool writeFilesAtomically(const std::vector<FileToWrite>& files, std::string* reason, std::string* failedPath);

} // namespace mfu
