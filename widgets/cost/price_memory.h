#pragma once
// Prices per GPU-hour the user typed, remembered across sessions in QSettings under "cost/price/<hardware id>", so
// a GPU the user has priced starts at that price next time (its preset's typical price until then).
#include <optional>
#include <string>

namespace mfu::widgets {

std::optional<double> rememberedPrice(const std::string& hardwareId);
// A price of 0 or less (the Cost panel's "none") forgets the GPU's price: it starts at its preset's again.
void rememberPrice(const std::string& hardwareId, double pricePerGpuHourUsd);

} // namespace mfu::widgets
