#include "app/application_info.h"

#include <QCoreApplication>

namespace mfu::app {

void setApplicationInfo()
{
    QCoreApplication::setOrganizationName(QStringLiteral("mfu-explorer"));
    QCoreApplication::setApplicationName(QStringLiteral("mfu-explorer"));
    QCoreApplication::setApplicationVersion(QStringLiteral(MFU_VERSION_STRING));
}

} // namespace mfu::app
