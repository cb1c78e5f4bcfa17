#pragma once
// A full disk on demand, without root: lowers this process's soft file-size limit (RLIMIT_FSIZE) with SIGXFSZ
// ignored, so a write past the limit fails with EFBIG exactly where a full disk fails with ENOSPC. The previous
// limit and signal handler come back on destruction. Only regular files are limited: test output still flows.
#include <sys/resource.h>

#include <csignal>

namespace mfu::test {

class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes)
    {
        ::getrlimit(RLIMIT_FSIZE, &m_previous);
        m_previousHandler = std::signal(SIGXFSZ, SIG_IGN);
        const rlimit lowered { bytes, m_previous.rlim_max }; // the hard limit stays, so the soft one can come back
        m_active = ::setrlimit(RLIMIT_FSIZE, &lowered) == 0;
    }
    ~FileSizeLimit()
    {
        ::setrlimit(RLIMIT_FSIZE, &m_previous);
        std::signal(SIGXFSZ, m_previousHandler);
    }
    FileSizeLimit(const FileSizeLimit&) = delete;
    FileSizeLimit& operator=(const FileSizeLimit&) = delete;
    bool active() const { return m_active; }

private:
    rlimit m_previous {};
    void (*m_previousHandler)(int) = SIG_DFL;
    bool m_active = false;
};

} // namespace mfu::test
