// The planner's hot path must not allocate: CostModel::evaluateValid and invalidReason are counted through a
// replaced global operator new (a count, not a timing).
#include <QtTest>

#include <atomic>
#include <cstdlib>
#include <new>

#include "core/costmodel/cost_model.h"
#include "costmodel_fixtures.h"

namespace {
std::atomic<long> g_allocations { 0 };
std::atomic<bool> g_counting { false };
} // namespace

void* operator new(std::size_t size)
{
    if (g_counting)
        ++g_allocations;
    if (void* p = std::malloc(size ? size : 1))
        return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept
{
    std::free(p);
}
void operator delete(void* p, std::size_t) noexcept
{
    std::free(p);
}

using namespace mfu;
using namespace mfu::test;

class TestCostModelAllocation : public QObject {
    Q_OBJECT
private slots:
    void evaluationAllocatesNothing()
    {
        Scenario s = scenarioFor(llama31_405b(), "h100-sxm", 16384, 8192, 8, ActivationCheckpointing::Selective);
        s.parallelism.pp = 16;
        s.parallelism.virtualStages = 4;
        s.parallelism.cp = 2;
        s.workload.globalBatchTokens = 16 * 1024 * 1024;
        const CostModel model(s);
        double sink = 0;
        g_allocations = 0;
        g_counting = true;
        for (int mb = 1; mb <= 4; ++mb) {
            s.workload.microBatch = mb;
            if (!model.invalidReason(s))
                sink += model.evaluateValid(s).mfu;
        }
        g_counting = false;
        QCOMPARE(g_allocations.load(), 0L);
        QVERIFY(sink > 0);

        // The counter sees allocations: the convenience path copies the model spec (its strings) every call.
        g_counting = true;
        sink += evaluate(s).mfu;
        g_counting = false;
        QVERIFY(g_allocations.load() > 0);
    }
};

QTEST_GUILESS_MAIN(TestCostModelAllocation)
#include "tst_costmodel_allocation.moc"
