#include "widgets/cost/price_memory.h"

#include <QSettings>

namespace mfu::widgets {

namespace {

QString key(const std::string& hardwareId)
{
    return QStringLiteral("cost/price/") + QString::fromStdString(hardwareId);
}

} // namespace

std::optional<double> rememberedPrice(const std::string& hardwareId)
{
    bool ok = false;
    const double price = QSettings().value(key(hardwareId)).toDouble(&ok);
    if (!ok || !(price > 0))
        return std::nullopt; // never set, or a hand-edited settings file with nonsense in it
    return price;
}

void rememberPrice(const std::string& hardwareId, double pricePerGpuHourUsd)
{
    if (hardwareId.empty())
        return;
    if (pricePerGpuHourUsd > 0)
        QSettings().setValue(key(hardwareId), pricePerGpuHourUsd);
    else
        QSettings().remove(key(hardwareId));
}

} // namespace mfu::widgets
