#pragma once
// One exception type for bad input anywhere in core: a preset, a config.json, a command-line value, a report.
// The message names what is wrong and where (file, key, position), so the CLI can print it as its one-line error
// and the GUI can show it next to the field.
#include <stdexcept>
#include <string>

namespace mfu {

class InputError : public std::runtime_error {
public:
    explicit InputError(const std::string& message)
        : std::runtime_error(message)
    {
    }
};

} // namespace mfu
