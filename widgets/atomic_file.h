#pragma once
// Every file the application writes (scenarios, chart exports, reports) goes through here: the bytes are written to
// a temporary file beside the target and renamed over it only when every byte reached the disk, so a full disk, a
// file-size limit or a read-only folder leaves the previous file as it was and yields the system's reason.
#include <QByteArray>
#include <QString>

namespace mfu::widgets {

// Returns false and sets *reason (without the path) when the file could not be written whole.
bool writeFileAtomically(const QString& path, const QByteArray& bytes, QString* reason);

} // namespace mfu::widgets
