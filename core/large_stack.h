#pragma once
// Runs work that may recurse deeply on its input on a thread with a large stack, and waits for it.
//
// std::regex (libstdc++) recurses once per character it matches, and a pattern of many alternatives multiplies
// that depth: `^(?:a|b|...|z|_|[0-9])*$` over a 4,096-character kernel name overflowed an 8 MiB stack. The rules
// and log patterns only ever see a bounded window of their input (kernel_rules.h, log_text.h) and patterns of at
// most 2,000 characters, so a stack of kLargeStackBytes holds any of them with room to spare. The memory is
// reserved, not committed: a thread that matches short names touches a few pages of it.
#include <cstddef>
#include <functional>

namespace mfu {

inline constexpr size_t kLargeStackBytes = size_t(1) << 30; // 1 GiB

// Calls `work` on a new thread with a `stackBytes` stack and returns when it has finished; rethrows what it threw.
// Where no such thread can be made (the address space is capped below it), `work` runs on the calling thread.
void runOnLargeStack(const std::function<void()>& work, size_t stackBytes = kLargeStackBytes);

} // namespace mfu
