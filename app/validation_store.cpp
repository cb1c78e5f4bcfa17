#include "app/validation_store.h"

#include <QFile>

#include "app/preset_store.h"
#include "core/errors.h"

namespace mfu::app {

const ErrorBandModel& shippedErrorBands()
{
    static const ErrorBandModel model = [] {
        QFile file(QStringLiteral(":/presets/validation/runs.json"));
        if (!file.open(QIODevice::ReadOnly))
            return ErrorBandModel {};
        const QByteArray bytes = file.readAll();
        try {
            const std::vector<ValidationRun> runs = validationRunsFromJson(
                std::string_view(bytes.constData(), size_t(bytes.size())), presetLibrary(), "runs.json");
            return errorBandModelFrom(runValidation(runs));
        } catch (const InputError&) {
            return ErrorBandModel {}; // a user preset that replaced a hardware id can break a row: no bands then
        }
    }();
    return model;
}

} // namespace mfu::app
