#include "app/validation_store.h"

#include <QFile>

#include "app/preset_store.h"
#include "core/errors.h"

namespace mfu::app {

namespace {
QByteArray shippedTable()
{
    QFile file(QStringLiteral(":/presets/validation/runs.json"));
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}
} // namespace

const PresetLibrary& shippedValidationDefinitions()
{
    static const PresetLibrary library = [] {
        const QByteArray bytes = shippedTable();
        try {
            return validationTableDefinitions(std::string_view(bytes.constData(), size_t(bytes.size())), "runs.json");
        } catch (const InputError&) {
            return PresetLibrary {};
        }
    }();
    return library;
}

const ErrorBandModel& shippedErrorBands()
{
    static const ErrorBandModel model = [] {
        const QByteArray bytes = shippedTable();
        if (bytes.isEmpty())
            return ErrorBandModel {};
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
