#pragma once
// Nsight Systems SQLite export (`nsys export --type sqlite`), opened read-only through SQLite. Reads kernels,
// memcpy/memset, CUDA runtime launches (for correlation), NVTX ranges (as CPU annotations, so `ProfilerStep#N`
// ranges become steps) and the GPU name, across the schema versions that renamed tables:
//   GPU info in TARGET_INFO_GPU, or TARGET_INFO_CUDA_GPU (early 2021 exports);
//   kernel names as StringIds ids in demangledName, else shortName;
//   NVTX text inline (`text`) or as a StringIds id (`textId`); ranges are eventType 59 (push/pop) and 60 (start/end).
// Tables exist only when they have rows, so every one is optional; a file with none of them is not an export.
// All times are integer nanoseconds; the session's UTC start (TARGET_INFO_SESSION_START_TIME.utcEpochNs) becomes the
// time origin when present.
#include <filesystem>

#include "core/trace/byte_source.h"
#include "core/trace/timeline.h"

namespace mfu::trace {

// Throws InputError naming the file for an unreadable database or one without Nsight tables; Cancelled on cancel.
Timeline readNsysSqlite(const std::filesystem::path& path, const ReadControl& control = {});

// True when the file starts with the SQLite header ("SQLite format 3\0").
bool isSqliteFile(const std::filesystem::path& path);

} // namespace mfu::trace
