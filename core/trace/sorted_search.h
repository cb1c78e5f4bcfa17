#pragma once
// Finding many values in one sorted array when the values mostly come in rising order (correlation ids of kernels
// taken in start order, launch times on a thread): a search that starts from where the last one ended and gallops
// forward (or back, for a walk back in time) touches a few neighbouring cache lines instead of a binary search's
// scattered ones.
#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace mfu::trace {

// `key(element)` is the int64 the array is sorted by.
template <typename Array, typename Key> class SortedSearch {
public:
    SortedSearch(const Array& array, Key key)
        : m_array(array)
        , m_key(key)
    {
    }

    // The index of the first element whose key is not less than `value` (std::lower_bound); size() when none.
    size_t lowerBound(int64_t value)
    {
        const size_t n = m_array.size();
        size_t lo = 0;
        size_t hi = n;
        if (m_last < n && m_key(m_array[m_last]) < value) { // forward from the last answer
            lo = m_last;
            size_t step = 1;
            while (lo + step < n && m_key(m_array[lo + step]) < value) {
                lo += step;
                step *= 2;
            }
            hi = std::min(n, lo + step + 1);
        } else if (m_last > 0 && m_key(m_array[m_last - 1]) < value) {
            return m_last; // the same answer again
        } else if (m_last > 0) { // backward from the last answer (a walk back in time)
            hi = m_last;
            size_t step = 1;
            while (hi > step && !(m_key(m_array[hi - step]) < value)) {
                hi -= step;
                step *= 2;
            }
            lo = hi > step ? hi - step : 0;
        }
        const auto it = std::lower_bound(m_array.begin() + static_cast<std::ptrdiff_t>(lo),
            m_array.begin() + static_cast<std::ptrdiff_t>(hi), value,
            [this](const auto& element, int64_t v) { return m_key(element) < v; });
        m_last = static_cast<size_t>(it - m_array.begin());
        return m_last;
    }

private:
    const Array& m_array;
    Key m_key;
    size_t m_last = 0;
};

} // namespace mfu::trace
