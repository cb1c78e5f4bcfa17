#include "core/large_stack.h"

#include <exception>

#include <pthread.h>

namespace mfu {

namespace {

struct Job {
    const std::function<void()>* work = nullptr;
    std::exception_ptr error;
};

void* runJob(void* arg)
{
    auto* job = static_cast<Job*>(arg);
    try {
        (*job->work)();
    } catch (...) {
        job->error = std::current_exception();
    }
    return nullptr;
}

} // namespace

void runOnLargeStack(const std::function<void()>& work, size_t stackBytes)
{
    Job job { &work, nullptr };
    pthread_attr_t attr;
    pthread_t thread;
    bool started = false;
    if (pthread_attr_init(&attr) == 0) {
        started
            = pthread_attr_setstacksize(&attr, stackBytes) == 0 && pthread_create(&thread, &attr, &runJob, &job) == 0;
        pthread_attr_destroy(&attr);
    }
    if (!started) {
        work(); // no room for the large stack: the bounded windows still hold ordinary inputs
        return;
    }
    pthread_join(thread, nullptr);
    if (job.error)
        std::rethrow_exception(job.error);
}

} // namespace mfu
