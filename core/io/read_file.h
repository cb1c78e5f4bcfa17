#pragma once
// Opening the files a user names as input (scenarios, kernel rules, configs, summaries, logs, traces). Every input is
// opened without blocking and refused unless it is a regular file: a FIFO with no writer, a terminal or a device would
// block open() or read() forever (or, like /dev/zero, never end), and the caller, a Python thread holding the
// module's lock or the window's import job, with it. Whole-file readers also refuse files above a size cap, so a
// wrong path costs an error message rather than all of memory. A folder given where a file belongs is said to be a
// folder, instead of surfacing as "not valid JSON at byte 1".
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <new>
#include <string>
#include <string_view>

#include "core/errors.h"

namespace mfu {

// The most a whole-file reader holds (docs/cli.md, "Input files"): scenarios, kernel rules, configs, presets and
// summaries are kilobytes to megabytes; a file this large is not one of them.
inline constexpr uint64_t kMaxWholeFileBytes = uint64_t(256) << 20;

std::string outOfMemoryWhileReading();

// Text without the UTF-8 byte-order mark Windows editors put first: read as text, its three bytes would be taken
// for the first line's (a header to skip, or not a number).
inline std::string_view withoutByteOrderMark(std::string_view text)
{
    return text.starts_with("\xEF\xBB\xBF") ? text.substr(3) : text;
}

// An input file opened for reading: a regular file, opened with O_NONBLOCK (so opening a FIFO cannot block) which
// is cleared once fstat has said it is regular. Throws InputError "<path>: is a folder, not <what>", "<path>: is a
// FIFO (named pipe), not <what>; only regular files are read" or "<path>: cannot be opened for reading (<reason>)".
class InputFile {
public:
    InputFile(const std::filesystem::path& path, const std::string& what);
    ~InputFile();
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;

    uint64_t size() const { return m_size; }
    // Hands the descriptor over as a stdio stream (the caller closes it); this object then owns nothing.
    std::FILE* releaseAsStream();
    // Reads the whole file; InputError naming the file when it is larger than maxBytes or a read fails.
    std::string readAll(uint64_t maxBytes);

private:
    std::string readUpTo(uint64_t maxBytes);

    std::string m_name;
    int m_fd = -1;
    uint64_t m_size = 0;
};

// The file's bytes, at most maxBytes of them (InputError "<path>: is N MiB, larger than the M MiB <what> may be").
std::string readWholeFile(
    const std::filesystem::path& path, const std::string& what, uint64_t maxBytes = kMaxWholeFileBytes);

// Throws the InputError of InputFile when path is not a regular file that can be opened; for readers that open the
// file themselves (SQLite, Qt, a stream read line by line).
void requireRegularFile(const std::filesystem::path& path, const std::string& what);

// A stream over a regular file (requireRegularFile first, so opening it cannot block), for readers that go line by
// line and hold no more than a line.
std::ifstream openInputStream(const std::filesystem::path& path, const std::string& what);

// Whether path is a regular file (following links), found without blocking; for sniffing a file's kind.
bool isRegularFile(const std::filesystem::path& path);

// "out of memory (...)": what the command line, Python and the window say for a std::bad_alloc no reader named,
// instead of a bare "std::bad_alloc".
std::string outOfMemoryMessage();

// Runs read(); a std::bad_alloc inside it becomes InputError "<name>: out of memory while reading it (...)", so the
// message names the input that was too large for memory, on whichever thread and surface it is caught.
template <typename Read> auto readingInput(const std::string& name, Read&& read) -> decltype(read())
{
    try {
        return read();
    } catch (const std::bad_alloc&) {
        throw InputError(name + ": " + outOfMemoryWhileReading());
    }
}

} // namespace mfu
