#pragma once

namespace mfu::app {
// Organisation, application name and version for QSettings, QStandardPaths and --version.
void setApplicationInfo();
} // namespace mfu::app
