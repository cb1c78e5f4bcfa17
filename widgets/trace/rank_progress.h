#pragma once
// Per-rank progress of a multi-rank import: the reader's workers write each rank's fraction read (atomics, no lock),
// and RankProgressView, on the GUI thread, draws one cell per rank filling up as it is read, with "N of M ranks
// read" beside them. Hovering a cell names its file. With thousands of ranks the cells become pixel columns.
#include <QStringList>
#include <QWidget>

#include <atomic>
#include <memory>
#include <vector>

namespace mfu::widgets {

struct RankProgress {
    explicit RankProgress(QStringList fileNames);
    void set(size_t file, double fraction);
    double fraction(size_t file) const;
    size_t done() const;

    const QStringList names;

private:
    std::vector<std::atomic<int>> m_permille;
};

class RankProgressView : public QWidget {
    Q_OBJECT
public:
    explicit RankProgressView(QWidget* parent = nullptr);
    // The progress to show (null: nothing); the view repaints on refresh().
    void setProgress(std::shared_ptr<const RankProgress> progress);
    void refresh();
    bool isActive() const { return m_progress != nullptr; }
    QString summary() const;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    QRect cellsRect() const;
    int cellAt(const QPoint& pos) const;

    std::shared_ptr<const RankProgress> m_progress;
};

} // namespace mfu::widgets
