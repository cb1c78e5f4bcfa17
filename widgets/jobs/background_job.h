#pragma once
// BackgroundJob: runs work on a worker thread (QtConcurrent) without blocking the GUI, with progress and cooperative
// cancel. Each start() gets a new id; only the newest job's outcome reaches the GUI thread, so a slow import that
// the user replaced by another one can never overwrite the newer result. Starting a job cancels the one before.
//
// The pool is the jobs' own (jobThreadPool()), never QThreadPool::globalInstance(): Qt's painting farms smooth image
// scaling and image conversions out to the global pool and waits for it on the GUI thread, so sweeps and planner
// runs holding every global thread froze the window until one finished (about 30 s with DeepSeek-V4-Pro on 1,024
// GPUs: the GUI thread sat in QSemaphore::acquire under QGroupBox::paintEvent).
//
// Thread rules: the work function runs on a pool thread and may only touch its JobControl (cancel flag, progress)
// and its own data. The outcome is delivered by a QFutureWatcher owned by this object, on the GUI thread, so a
// panel (and this object with it) closed mid-job simply never hears back; the worker notices the cancel flag set
// in the destructor and stops. Progress is polled by a GUI-side timer from an atomic, never posted from the worker.
#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QtConcurrent/QtConcurrentRun>

#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <new>

#include "core/io/read_file.h"

class QThreadPool;
class QTimer;

namespace mfu::widgets {

// The pool every BackgroundJob runs in: as many threads as cores, owned by the application object (it finishes the
// cancelled jobs before the application goes away).
QThreadPool* jobThreadPool();
// The pool of work a user asked for and waits on (a trace or log being opened): its own threads, so it never queues
// behind the sweeps and the planner, which restart on every edit and can hold every thread of jobThreadPool() for
// minutes (a MoE on 2,048 GPUs in a Debug build). A trace the command line reads in half a second sat at "Importing
// 0%" for 35 to 90 s behind them.
QThreadPool* requestedJobThreadPool();

// Whose work a job is: the window's own, recomputed as the scenario changes, or what the user just asked for.
enum class JobKind { Background, Requested };

// What a job's work function sees: a cancel flag to check (or hand to a core reader) and a progress to set.
struct JobControl {
    std::atomic<bool> cancel { false };
    std::atomic<double> progress { 0.0 }; // 0..1
    void setProgress(double fraction) { progress.store(fraction < 0 ? 0 : (fraction > 1 ? 1 : fraction)); }
};

class BackgroundJob : public QObject {
    Q_OBJECT
public:
    explicit BackgroundJob(QObject* parent = nullptr, JobKind kind = JobKind::Background);
    ~BackgroundJob() override;

    // Runs work(control) on a pool thread. When it returns and this is still the newest job, onResult(value) runs
    // on the GUI thread, then finished() is emitted. An exception becomes failed(message), or cancelled() when the
    // cancel flag was set. Returns the job id.
    template <class R> int start(std::function<R(JobControl&)> work, std::function<void(R&)> onResult)
    {
        auto control = beginJob();
        const int id = m_lastId;
        auto* watcher = new QFutureWatcher<Outcome<R>>(this);
        connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, id, onResult = std::move(onResult)] {
            Outcome<R> outcome = watcher->result();
            watcher->deleteLater();
            if (id != m_lastId)
                return; // superseded: a newer job owns the panel now
            if (outcome.value) {
                onResult(*outcome.value);
                endJob(Ending::Finished, {});
            } else {
                endJob(outcome.cancelled ? Ending::Cancelled : Ending::Failed, outcome.error);
            }
        });
        watcher->setFuture(QtConcurrent::run(m_pool, [work = std::move(work), control] {
            Outcome<R> outcome;
            try {
                auto value = std::make_shared<R>(work(*control));
                // Cancelled after the last check: the caller asked to keep what it had, so drop this result.
                if (control->cancel.load())
                    outcome.cancelled = true;
                else
                    outcome.value = std::move(value);
            } catch (const std::bad_alloc&) {
                outcome.cancelled = control->cancel.load();
                outcome.error = QString::fromStdString(outOfMemoryMessage());
            } catch (const std::exception& e) {
                outcome.cancelled = control->cancel.load();
                outcome.error = QString::fromUtf8(e.what());
            }
            return outcome;
        }));
        return id;
    }

    // Asks the newest job to stop; its previous result (whatever the caller shows) stays. cancelled() follows
    // when the worker has stopped.
    void cancel();
    bool isRunning() const { return m_running; }
    int currentId() const { return m_lastId; }
    double progress() const;

signals:
    void started(int id);
    void progressChanged(double fraction);
    void finished(int id);
    void failed(int id, const QString& message);
    void cancelled(int id);
    void runningChanged(bool running);

private:
    template <class R> struct Outcome {
        std::shared_ptr<R> value; // shared: QFuture copies its result
        QString error;
        bool cancelled = false;
    };
    enum class Ending { Finished, Failed, Cancelled };
    std::shared_ptr<JobControl> beginJob();
    void endJob(Ending ending, const QString& error);
    void pollProgress();

    QThreadPool* m_pool; // jobThreadPool() or requestedJobThreadPool(), by the job's kind
    std::shared_ptr<JobControl> m_control; // of the newest job
    int m_lastId = 0;
    bool m_running = false;
    double m_lastProgress = -1;
    QTimer* m_progressTimer = nullptr;
};

} // namespace mfu::widgets
