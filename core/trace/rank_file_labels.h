#pragma once
// The ranks' files as a table or a menu names them: by what tells them apart. The files of one job share a long
// prefix (HTA's "hta__trace_filter__sampled_rank-0.json.gz" and "..._rank-1.json.gz"), which a narrow column cuts
// to "hta__tra....json.gz" for both; here the shared prefix is cut back to its last separator and replaced by an
// ellipsis: "…rank-0.json.gz", "…rank-1.json.gz".
#include <string>
#include <vector>

namespace mfu::trace {

// One label per path, in order: the file name (no folders), its shared prefix elided where the files are two or
// more and share 8 characters or more up to a separator ('_', '-', '.', ' '). Labels are UTF-8.
std::vector<std::string> distinctFileLabels(const std::vector<std::string>& paths);

struct RunAnalysis;
// The labels of a run's ranks' files (RankAnalysis::sourceFile), in rank order: what the Ranks table and the Rank
// combo show.
std::vector<std::string> rankFileLabels(const RunAnalysis& run);

} // namespace mfu::trace
