#pragma once
// Streams the bytes of a trace file in chunks, inflating gzip on the fly (detected by the magic bytes 1f 8b, not by
// the file name), so a reader never holds the whole file. Progress and cancellation live here because every
// reader pulls its input through this one place.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <zlib.h>

namespace mfu::trace {

// Thrown when the caller sets the cancel flag; the reader has built nothing the caller can see.
class Cancelled : public std::runtime_error {
public:
    Cancelled()
        : std::runtime_error("cancelled")
    {
    }
};

struct ReadControl {
    // Called from the reading thread about every megabyte: bytes of the stored file consumed, and its size (for an
    // Nsight SQLite export: tables read, of all). A file that changes while being read ends in InputError.
    std::function<void(uint64_t done, uint64_t total)> onProgress;
    const std::atomic<bool>* cancel = nullptr; // checked at every chunk
    // The longest an Nsight SQLite query may run without giving a row before the read ends in InputError: a table
    // that is a recursive view never gives one. Real exports give their first row in well under a second.
    double stallLimitSeconds = 120;
};

class ByteSource {
public:
    virtual ~ByteSource() = default;
    // Copies up to capacity bytes into out; returns 0 only at the end of the data.
    virtual size_t read(char* out, size_t capacity) = 0;
    const std::string& name() const { return m_name; }
    bool compressed() const { return m_compressed; }

protected:
    std::string m_name;
    bool m_compressed = false;
};

// Opens a file (plain or gzip). Throws InputError naming the file when it cannot be opened.
std::unique_ptr<ByteSource> openTraceFile(const std::filesystem::path& path, const ReadControl& control = {});
// In-memory bytes (plain or gzip), for tests and fuzzers; name is used in error messages.
std::unique_ptr<ByteSource> memorySource(std::string bytes, std::string name);

} // namespace mfu::trace
