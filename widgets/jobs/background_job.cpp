#include "widgets/jobs/background_job.h"

#include <QCoreApplication>
#include <QThread>
#include <QThreadPool>
#include <QTimer>

#include <algorithm>

namespace mfu::widgets {

namespace {
constexpr int kProgressPollMs = 50; // fast enough for a progress bar, cheap for the GUI thread

// As many threads as cores, owned by the application object.
QThreadPool* newJobPool()
{
    auto* p = new QThreadPool(QCoreApplication::instance());
    p->setMaxThreadCount(std::max(1, QThread::idealThreadCount()));
    return p;
}

} // namespace

QThreadPool* jobThreadPool()
{
    static QThreadPool* pool = newJobPool();
    return pool;
}

QThreadPool* requestedJobThreadPool()
{
    static QThreadPool* pool = newJobPool();
    return pool;
}

BackgroundJob::BackgroundJob(QObject* parent, JobKind kind)
    : QObject(parent)
    , m_pool(kind == JobKind::Requested ? requestedJobThreadPool() : jobThreadPool())
    , m_progressTimer(new QTimer(this))
{
    m_progressTimer->setInterval(kProgressPollMs);
    connect(m_progressTimer, &QTimer::timeout, this, &BackgroundJob::pollProgress);
}

BackgroundJob::~BackgroundJob()
{
    // The worker may still run; it sees the flag and stops. Its watcher dies with this object, so nothing is
    // delivered.
    if (m_control)
        m_control->cancel.store(true);
}

std::shared_ptr<JobControl> BackgroundJob::beginJob()
{
    if (m_control)
        m_control->cancel.store(true); // the previous job is superseded
    m_control = std::make_shared<JobControl>();
    ++m_lastId;
    m_lastProgress = -1;
    const bool wasRunning = m_running;
    m_running = true;
    emit started(m_lastId);
    if (!wasRunning)
        emit runningChanged(true);
    pollProgress();
    m_progressTimer->start();
    return m_control;
}

void BackgroundJob::endJob(Ending ending, const QString& error)
{
    m_progressTimer->stop();
    if (ending == Ending::Finished && m_control)
        m_control->setProgress(1.0);
    pollProgress();
    m_running = false;
    emit runningChanged(false);
    switch (ending) {
    case Ending::Finished:
        emit finished(m_lastId);
        break;
    case Ending::Failed:
        emit failed(m_lastId, error);
        break;
    case Ending::Cancelled:
        emit cancelled(m_lastId);
        break;
    }
}

void BackgroundJob::cancel()
{
    if (m_control)
        m_control->cancel.store(true);
}

double BackgroundJob::progress() const
{
    return m_control ? m_control->progress.load() : 0.0;
}

void BackgroundJob::pollProgress()
{
    const double now = progress();
    if (now == m_lastProgress)
        return;
    m_lastProgress = now;
    emit progressChanged(now);
}

} // namespace mfu::widgets
