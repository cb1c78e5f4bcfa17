#include "widgets/atomic_file.h"

#include <QSaveFile>

#include <cerrno>
#include <cstring>

namespace mfu::widgets {

bool writeFileAtomically(const QString& path, const QByteArray& bytes, QString* reason)
{
    const auto fail = [reason](const QString& why) {
        if (reason)
            *reason = why;
        return false;
    };
    QSaveFile file(path);
    // Unbuffered: every byte goes to the system in write(), so a short write shows here. Buffered, a small file's
    // bytes would wait for commit()'s flush, whose short write Qt does not report, and the rename would go ahead.
    if (!file.open(QIODevice::WriteOnly | QIODevice::Unbuffered))
        return fail(file.errorString());
    errno = 0;
    const qint64 written = file.write(bytes);
    const int writeErrno = errno;
    if (written != bytes.size()) {
        // A short write (file size limit, quota) leaves QFileDevice without an error of its own ("Unknown error")
        // and commit() would then succeed with a truncated file; the system's reason is in errno.
        QString why = file.errorString();
        if (file.error() == QFileDevice::NoError)
            why = writeErrno != 0 ? QString::fromLocal8Bit(std::strerror(writeErrno))
                                  : QStringLiteral("only %1 of %2 bytes written").arg(written).arg(bytes.size());
        file.cancelWriting();
        return fail(why);
    }
    if (!file.commit())
        return fail(file.errorString());
    return true;
}

} // namespace mfu::widgets
