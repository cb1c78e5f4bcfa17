#include "core/trace/prefetch_source.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace mfu::trace {

namespace {

constexpr size_t kSlotSize = 1 << 20; // the tokenizer's window: one slot fills one refill

struct Progress {
    uint64_t done = 0;
    uint64_t total = 0;
    bool reported = false; // the inner source reported during this chunk
};

class PrefetchSource final : public ByteSource {
public:
    PrefetchSource(const std::filesystem::path& path, const ReadControl& control)
        : m_onProgress(control.onProgress)
    {
        ReadControl inner;
        inner.cancel = control.cancel;
        // Called by the inner source on whichever thread reads it; relayed from read() on the reading thread.
        inner.onProgress = [this](uint64_t done, uint64_t total) { m_innerProgress = { done, total, true }; };
        m_inner = openTraceFile(path, inner);
        m_name = m_inner->name();
        m_compressed = m_inner->compressed();
        if (m_compressed) {
            for (Slot& s : m_slots)
                s.data.resize(kSlotSize);
            m_worker = std::thread([this] { produce(); });
        }
    }
    ~PrefetchSource() override
    {
        if (!m_worker.joinable())
            return;
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_changed.notify_all();
        m_worker.join();
    }
    PrefetchSource(const PrefetchSource&) = delete;
    PrefetchSource& operator=(const PrefetchSource&) = delete;

    size_t read(char* out, size_t capacity) override
    {
        if (!m_worker.joinable()) { // plain file: nothing to overlap
            m_innerProgress.reported = false;
            const size_t n = m_inner->read(out, capacity);
            relay(m_innerProgress);
            return n;
        }
        Slot& s = m_slots[m_current];
        {
            std::unique_lock lock(m_mutex);
            m_changed.wait(lock, [&] { return s.full; });
        }
        relay(s.progress);
        if (s.error)
            std::rethrow_exception(s.error);
        if (s.size == 0)
            return 0;
        const size_t n = std::min(capacity, s.size - s.pos);
        std::memcpy(out, s.data.data() + s.pos, n);
        s.pos += n;
        if (s.pos == s.size) {
            {
                std::lock_guard lock(m_mutex);
                s.full = false;
            }
            m_changed.notify_all();
            m_current ^= 1;
        }
        return n;
    }

private:
    struct Slot {
        std::vector<char> data;
        size_t size = 0;
        size_t pos = 0;
        Progress progress;
        std::exception_ptr error; // thrown by the inner source instead of this chunk
        bool full = false; // owned by the reader while full, by the worker while empty
    };

    // Worker: fills the two slots in turn until the end of the data, an error or stop.
    void produce()
    {
        for (size_t i = 0;; i ^= 1) {
            Slot& s = m_slots[i];
            {
                std::unique_lock lock(m_mutex);
                m_changed.wait(lock, [&] { return !s.full || m_stop; });
                if (m_stop)
                    return;
            }
            m_innerProgress.reported = false;
            size_t n = 0;
            std::exception_ptr error;
            try {
                n = m_inner->read(s.data.data(), s.data.size());
            } catch (...) {
                error = std::current_exception();
            }
            {
                std::lock_guard lock(m_mutex);
                s.size = n;
                s.pos = 0;
                s.error = error;
                s.progress = m_innerProgress;
                s.full = true;
            }
            m_changed.notify_all();
            if (n == 0)
                return; // the end, or an error: the reader rethrows it
        }
    }

    void relay(Progress& p)
    {
        if (p.reported && m_onProgress)
            m_onProgress(p.done, p.total);
        p.reported = false;
    }

    std::function<void(uint64_t, uint64_t)> m_onProgress;
    std::unique_ptr<ByteSource> m_inner;
    Progress m_innerProgress; // written inside m_inner->read(), on the thread that calls it
    Slot m_slots[2];
    size_t m_current = 0; // the slot the reader takes from next
    std::mutex m_mutex;
    std::condition_variable m_changed;
    bool m_stop = false;
    std::thread m_worker;
};

} // namespace

std::unique_ptr<ByteSource> openTraceFilePrefetched(const std::filesystem::path& path, const ReadControl& control)
{
    return std::make_unique<PrefetchSource>(path, control);
}

} // namespace mfu::trace
