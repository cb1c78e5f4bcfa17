#pragma once
// PyTorch profiler (Kineto) Chrome-trace JSON, plain or gzip, every era of the format:
//  - `ts`/`dur` in microseconds (whatever displayTimeUnit says), integer or fractional, absolute or relative to
//    `baseTimeNanoseconds` (which may come after traceEvents in the file);
//  - `pid`/`tid` integers or strings ("stream 7"); the device and stream come from args.device/args.stream, else
//    from pid/tid;
//  - categories `kernel`/`gpu_memcpy`/`gpu_memset` and the legacy `Kernel`/`Memcpy`/`Memset`;
//  - ProfilerStep#N as `user_annotation` (CPU) and `gpu_user_annotation` (GPU stream);
//  - `deviceProperties` and `distributedInfo` present or absent; a bare top-level event array (Chrome's JSON Array
//    Format, whose closing ']' may be missing).
// Documented repairs (each adds a line to Timeline::warnings): GPU events with a negative duration are dropped;
// lone UTF-16 surrogates in \u escapes become U+FFFD.
#include "core/trace/byte_source.h"
#include "core/trace/timeline.h"

namespace mfu::trace {

// Throws InputError "<file>: byte N: what" for malformed input, Cancelled when control.cancel is set.
Timeline readKinetoTrace(ByteSource& source);

} // namespace mfu::trace
