// Training logs (torchtitan, Megatron-LM, nanoGPT lines): any text, with the summary computed when steps parse.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "core/errors.h"
#include "core/logs/training_log.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    try {
        const auto log = mfu::trace::parseTrainingLog(in, "train.log");
        (void)mfu::trace::summarizeLog(log, 1);
    } catch (const mfu::InputError&) {
    }
    return 0;
}
