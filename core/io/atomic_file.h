#pragma once
// Every file the application writes (scenarios, chart exports, reports) goes through here: the bytes are written to
// a temporary file beside the target, flushed to the disk (fsync) and renamed over the target only when every byte
// reached it, so a full disk, a file-size limit or a read-only folder leaves the previous file as it was and yields
// the system's reason. Plain POSIX (open, write, fsync, rename): the command line, the report and the panels share it.
#include <filesystem>
#include <string>
#include <string_view>

namespace mfu {

// Returns false and sets *reason (the system's message, strerror, without the path) when the file could not be
// written whole; the target is then untouched and no temporary file is left behind. A new file gets the usual
// permissions (0666 less the umask); a replaced file keeps its own.
bool writeFileAtomically(const std::filesystem::path& path, std::string_view bytes, std::string* reason);

} // namespace mfu
