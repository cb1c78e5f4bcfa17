// SortedSearch (core/trace/sorted_search.h) answers what std::lower_bound answers, in any order of questions.
#include <QtTest>

#include <random>

#include "core/trace/sorted_search.h"

using mfu::trace::SortedSearch;

class TestSortedSearch : public QObject {
    Q_OBJECT

private slots:
    // Arrays with repeated keys, questions rising, falling and at random.
    void sameAsLowerBound()
    {
        std::mt19937 random(20261125);
        for (int trial = 0; trial < 500; ++trial) {
            std::vector<int64_t> keys(random() % 40);
            for (auto& k : keys)
                k = static_cast<int64_t>(random() % 30);
            std::sort(keys.begin(), keys.end());
            SortedSearch search(keys, [](int64_t k) { return k; });
            std::vector<int64_t> questions(60);
            for (auto& q : questions)
                q = static_cast<int64_t>(random() % 34) - 2;
            if (trial % 3 == 1)
                std::sort(questions.begin(), questions.end());
            if (trial % 3 == 2)
                std::sort(questions.rbegin(), questions.rend());
            for (const int64_t q : questions)
                QCOMPARE(search.lowerBound(q),
                    static_cast<size_t>(std::lower_bound(keys.begin(), keys.end(), q) - keys.begin()));
        }
    }

    void emptyArray()
    {
        const std::vector<int64_t> none;
        SortedSearch search(none, [](int64_t k) { return k; });
        QCOMPARE(search.lowerBound(5), size_t { 0 });
    }
};

QTEST_APPLESS_MAIN(TestSortedSearch)
#include "tst_sorted_search.moc"
