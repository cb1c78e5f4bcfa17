#pragma once
// Whether the ranks given as one run can be one job: a folder of traces gathered from different jobs (Open Folder of
// Ranks on a folder of samples, a glob that caught two runs) must not be analysed as one run without a word, since
// its straggler, collective waits and mean step would compare ranks that never ran together.
//
// Signs of different jobs, each said in a sentence naming the ranks' files:
//   * world sizes that differ (distributedInfo.world_size);
//   * GPUs that differ (deviceProperties names);
//   * one rank number twice (distributedInfo.rank), or more ranks than the world size;
//   * PyTorch traces that record no process group: PyTorch's profiler writes distributedInfo (rank, world size,
//     backend) for every process of a torch.distributed job, so a Kineto file without it is a single-process job,
//     and two such files are two jobs however alike their GPUs are;
//   * clocks far apart: ranks whose analysed steps started more than kSameRunClockWindowNs apart on their hosts'
//     clocks (absolute times: the file's time origin + its timestamps). Hosts' clocks differ by far less. Where
//     every rank recorded a step of the same number (ProfilerStep#N), that step is compared instead, and more
//     strictly: the ranks of one job run step N together (their collectives wait for each other), so its starts
//     lie within kSameStepWindowNs plus two of the longest step, while jobs run one after another start minutes
//     apart.
#include <cstdint>
#include <string>
#include <vector>

#include "core/trace/analysis.h"

namespace mfu::trace {

inline constexpr int64_t kSameRunClockWindowNs = 600'000'000'000; // 10 minutes
inline constexpr int64_t kSameStepWindowNs = 60'000'000'000; // 1 minute

struct RunConsistency {
    std::vector<std::string> problems; // one sentence each; empty when the ranks can be one run
    bool oneRun() const { return problems.empty(); }
    // "These files look like different jobs: <problems>." for an error or a banner.
    std::string sentence() const;
};

RunConsistency checkOneRun(const std::vector<RankAnalysis>& ranks);

} // namespace mfu::trace
