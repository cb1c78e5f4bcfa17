#pragma once
// Settings a training log prints once (core/logs/training_log.h's LogFacts): the B200 scaling report's header,
// torchtitan's start line, Megatron's argument dump and iteration lines. Internal to core/trace.
#include <string>

#include "core/logs/training_log.h"

namespace mfu::trace {

// Fills the facts this line states that are not known yet; the first value seen for each fact wins.
void readFacts(const std::string& line, LogFacts& facts);

} // namespace mfu::trace
