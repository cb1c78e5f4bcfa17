#include "core/text.h"

#include "core/number_format.h"

namespace mfu {

namespace {

constexpr size_t kWhole = 80;
constexpr size_t kKept = 36;

bool continuationByte(char c)
{
    return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

} // namespace

std::string quotedForMessage(std::string_view value)
{
    if (value.size() <= kWhole)
        return "'" + std::string(value) + "'";
    size_t head = kKept;
    while (head > 0 && continuationByte(value[head]))
        --head;
    size_t tail = value.size() - kKept;
    while (tail < value.size() && continuationByte(value[tail]))
        ++tail;
    size_t characters = 0;
    for (const char c : value)
        characters += continuationByte(c) ? 0 : 1;
    return "'" + std::string(value.substr(0, head)) + "\u2026" + std::string(value.substr(tail)) + "' ("
        + formatNumber(static_cast<double>(characters), 0) + " characters)";
}

std::string listInWords(const std::vector<std::string>& items, std::string_view conjunction)
{
    std::string text;
    for (size_t i = 0; i < items.size(); ++i) {
        if (i > 0)
            text += i + 1 == items.size() ? " " + std::string(conjunction) + " " : std::string(", ");
        text += items[i];
    }
    return text;
}

} // namespace mfu
