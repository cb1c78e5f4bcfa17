#pragma once
// Reading a whole input file (scenarios, kernel rules, configs) with the reason a user can act on: a folder given
// where a file belongs is said to be a folder, instead of surfacing as "not valid JSON at byte 1".
#include <filesystem>
#include <string>

namespace mfu {

// The file's bytes. Throws InputError "<path>: is a folder, not <what>" or "<path>: cannot be opened for reading
// (<system's reason>)"; `what` names the expected file ("a kernel rules file").
std::string readWholeFile(const std::filesystem::path& path, const std::string& what);

} // namespace mfu
