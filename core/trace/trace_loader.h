#pragma once
// One entry point for every trace format: the file's first bytes decide the reader, never its name.
// A folder opens as a multi-rank run: one Timeline per trace file in it, in rank order.
#include <filesystem>
#include <string>
#include <vector>

#include "core/trace/byte_source.h"
#include "core/trace/timeline.h"

namespace mfu::trace {

Timeline loadTrace(const std::filesystem::path& path, const ReadControl& control = {});

// A *.json file in a run's folder that is not a trace: the model's config.json, a scenario, notes.
struct OtherFileInFolder {
    std::filesystem::path path;
    std::string what; // "a Hugging Face config.json" (core/io/document_kind.h), "JSON without trace events"
};

// Trace files (*.json, *.json.gz, *.sqlite Nsight exports) directly inside a folder, sorted by name; trace summaries
// (*.summary.json) are among them. A small *.json that is whole JSON but no trace (a config.json beside the ranks) is
// left out, and listed in `others` when given.
std::vector<std::filesystem::path> traceFilesInFolder(
    const std::filesystem::path& folder, std::vector<OtherFileInFolder>* others = nullptr);
// "; config.json is a Hugging Face config.json" for each of them: what a refusal of a folder without traces adds.
std::string otherFilesText(const std::vector<OtherFileInFolder>& others);
// Each folder replaced by its trace files (traceFilesInFolder), files kept as given. Throws InputError naming a folder
// with no trace file in it, and what its other *.json files are.
std::vector<std::filesystem::path> expandTracePaths(const std::vector<std::filesystem::path>& paths);

// Loads each path (a folder expands to its trace files) and orders the timelines by rank: distributedInfo.rank
// where present, else the order given. Throws InputError when a folder holds no trace file.
std::vector<Timeline> loadRun(const std::vector<std::filesystem::path>& paths, const ReadControl& control = {});
// A run's timelines in rank order: a timeline that names no rank takes its position in the file list.
void orderByRank(std::vector<Timeline>& timelines);

} // namespace mfu::trace
