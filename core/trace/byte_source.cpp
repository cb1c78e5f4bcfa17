#include "core/trace/byte_source.h"

#include <algorithm>
#include <cstring>

#include <sys/stat.h>

#include "core/errors.h"
#include "core/io/read_file.h"

namespace mfu::trace {

namespace {

constexpr size_t kChunk = 1 << 20;
// A gzip file is read in smaller pieces: a profiler trace of 1 MB compressed inflates to tens of megabytes, and read
// a megabyte at a time its progress went from nothing to all in one report.
constexpr size_t kCompressedChunk = 64 << 10;

// Raw bytes, from a file or memory, with progress and cancel at every chunk.
class RawInput {
public:
    virtual ~RawInput() = default;
    virtual size_t readRaw(char* out, size_t capacity) = 0;
};

class FileInput final : public RawInput {
public:
    FileInput(const std::filesystem::path& path, const ReadControl& control)
        : m_control(control)
    {
        // Opened without blocking and refused unless a regular file: a FIFO or a device would never end.
        m_file = InputFile(path, "a profiler trace").releaseAsStream();
        m_name = path.string();
        m_atOpen = stamp();
        m_total = m_atOpen.size;
    }
    ~FileInput() override { std::fclose(m_file); }
    FileInput(const FileInput&) = delete;
    FileInput& operator=(const FileInput&) = delete;

    size_t readRaw(char* out, size_t capacity) override
    {
        if (m_control.cancel && m_control.cancel->load(std::memory_order_relaxed))
            throw Cancelled();
        const size_t n = std::fread(out, 1, capacity, m_file);
        m_done += n;
        if (m_total > 0)
            checkUnchanged(n == 0);
        if (m_control.onProgress && (m_done - m_reported >= progressStep() || n == 0)) {
            m_reported = m_done;
            m_control.onProgress(m_done, m_total);
        }
        return n;
    }

private:
    // About every 1% of the file, between 64 KB and a megabyte: a small file's progress moves too.
    uint64_t progressStep() const
    {
        return m_total > 0 ? std::clamp<uint64_t>(m_total / 100, 64 << 10, kChunk) : kChunk;
    }
    // Size and modification time of the open file (not the path: a file replaced by rename keeps being read whole
    // and consistent from the old one). Size 0 means unknown (a pipe), and then nothing is checked.
    struct Stamp {
        uint64_t size = 0;
        int64_t mtimeSec = 0;
        int64_t mtimeNsec = 0;
        bool operator==(const Stamp&) const = default;
    };
    Stamp stamp() const
    {
        struct stat st { };
        if (fstat(fileno(m_file), &st) != 0 || !S_ISREG(st.st_mode))
            return {};
        return { static_cast<uint64_t>(st.st_size), static_cast<int64_t>(st.st_mtim.tv_sec),
            static_cast<int64_t>(st.st_mtim.tv_nsec) };
    }
    // A file truncated, grown or rewritten in place while being read would give a mix of old and new bytes; say so
    // before those bytes reach a reader, rather than report a misleading parse error (or a silently wrong result).
    // One fstat per chunk (a megabyte) costs nothing next to parsing it.
    void checkUnchanged(bool atEnd) const
    {
        const Stamp now = stamp();
        if (now == m_atOpen && (atEnd ? m_done == m_total : m_done <= m_total))
            return;
        throw InputError(m_name + ": the file changed while being read (" + std::to_string(m_total)
            + " bytes when opened, " + std::to_string(now.size) + " now, " + std::to_string(m_done)
            + " read); open it again once it is complete");
    }

    std::FILE* m_file = nullptr;
    std::string m_name;
    Stamp m_atOpen;
    ReadControl m_control;
    uint64_t m_total = 0;
    uint64_t m_done = 0;
    uint64_t m_reported = 0;
};

class MemoryInput final : public RawInput {
public:
    explicit MemoryInput(std::string bytes)
        : m_bytes(std::move(bytes))
    {
    }
    size_t readRaw(char* out, size_t capacity) override
    {
        const size_t n = std::min(capacity, m_bytes.size() - m_pos);
        std::memcpy(out, m_bytes.data() + m_pos, n);
        m_pos += n;
        return n;
    }

private:
    std::string m_bytes;
    size_t m_pos = 0;
};

// Uncompressed: hands the raw bytes through, after the sniffed prefix.
class PlainSource final : public ByteSource {
public:
    PlainSource(std::unique_ptr<RawInput> input, std::string prefix, std::string name)
        : m_input(std::move(input))
        , m_prefix(std::move(prefix))
    {
        m_name = std::move(name);
    }
    size_t read(char* out, size_t capacity) override
    {
        if (m_prefixPos < m_prefix.size()) {
            const size_t n = std::min(capacity, m_prefix.size() - m_prefixPos);
            std::memcpy(out, m_prefix.data() + m_prefixPos, n);
            m_prefixPos += n;
            return n;
        }
        return m_input->readRaw(out, capacity);
    }

private:
    std::unique_ptr<RawInput> m_input;
    std::string m_prefix;
    size_t m_prefixPos = 0;
};

// gzip, possibly several concatenated members (what `cat a.gz b.gz` and some writers produce).
class GzipSource final : public ByteSource {
public:
    GzipSource(std::unique_ptr<RawInput> input, std::string prefix, std::string name)
        : m_input(std::move(input))
        , m_in(kCompressedChunk)
    {
        m_name = std::move(name);
        m_compressed = true;
        std::memcpy(m_in.data(), prefix.data(), prefix.size());
        m_stream.next_in = reinterpret_cast<Bytef*>(m_in.data());
        m_stream.avail_in = static_cast<uInt>(prefix.size());
        if (inflateInit2(&m_stream, 16 + MAX_WBITS) != Z_OK)
            throw InputError(m_name + ": cannot start gzip decompression");
    }
    ~GzipSource() override { inflateEnd(&m_stream); }
    GzipSource(const GzipSource&) = delete;
    GzipSource& operator=(const GzipSource&) = delete;

    size_t read(char* out, size_t capacity) override
    {
        m_stream.next_out = reinterpret_cast<Bytef*>(out);
        m_stream.avail_out = static_cast<uInt>(capacity);
        while (m_stream.avail_out == capacity) {
            if (m_stream.avail_in == 0 && !m_inputEnded) {
                const size_t n = m_input->readRaw(m_in.data(), m_in.size());
                m_inputEnded = n == 0;
                m_stream.next_in = reinterpret_cast<Bytef*>(m_in.data());
                m_stream.avail_in = static_cast<uInt>(n);
            }
            if (m_stream.avail_in == 0 && m_inputEnded) {
                if (!m_memberEnded)
                    throw InputError(m_name + ": truncated gzip stream (ends inside compressed data)");
                break;
            }
            if (m_memberEnded) { // another member follows
                inflateReset(&m_stream);
                m_memberEnded = false;
            }
            const int rc = inflate(&m_stream, Z_NO_FLUSH);
            if (rc == Z_STREAM_END)
                m_memberEnded = true;
            else if (rc != Z_OK && rc != Z_BUF_ERROR)
                throw InputError(m_name + ": corrupt gzip data: " + (m_stream.msg ? m_stream.msg : "inflate failed"));
        }
        return capacity - m_stream.avail_out;
    }

private:
    std::unique_ptr<RawInput> m_input;
    std::vector<char> m_in;
    z_stream m_stream {};
    bool m_inputEnded = false;
    bool m_memberEnded = false;
};

std::unique_ptr<ByteSource> sniff(std::unique_ptr<RawInput> input, std::string name)
{
    std::string prefix(2, '\0');
    size_t got = 0;
    while (got < 2) {
        const size_t n = input->readRaw(prefix.data() + got, 2 - got);
        if (n == 0)
            break;
        got += n;
    }
    prefix.resize(got);
    const bool gzip
        = got == 2 && static_cast<unsigned char>(prefix[0]) == 0x1f && static_cast<unsigned char>(prefix[1]) == 0x8b;
    if (gzip)
        return std::make_unique<GzipSource>(std::move(input), std::move(prefix), std::move(name));
    return std::make_unique<PlainSource>(std::move(input), std::move(prefix), std::move(name));
}

} // namespace

std::unique_ptr<ByteSource> openTraceFile(const std::filesystem::path& path, const ReadControl& control)
{
    return sniff(std::make_unique<FileInput>(path, control), path.string());
}

std::unique_ptr<ByteSource> memorySource(std::string bytes, std::string name)
{
    return sniff(std::make_unique<MemoryInput>(std::move(bytes)), std::move(name));
}

} // namespace mfu::trace
