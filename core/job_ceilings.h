#pragma once
// The figures past which no real training job lies: a value beyond one is a typo, a unit slip or a logger's
// overflow, and carried on it would overflow a product into inf (1e308 dollars an hour, 1e308 tokens a step). The
// command line refuses such a flag (app/cli/cli_common.cpp, documented in docs/cli.md); a training log's step figure
// beyond one is left out (core/logs/training_log.h).
namespace mfu::ceiling {

inline constexpr double kClusterTokensPerSec = 1e13; // tokens/s for a whole cluster
inline constexpr double kGpuTokensPerSec = 1e8; // tokens/s on one GPU
inline constexpr double kStepSeconds = 1e7; // seconds a step (116 days)
inline constexpr double kTokensPerStep = 1e12;
inline constexpr double kFlopsPerToken = 1e17;
// Tokens of a whole training job: 1e18 is over 20 times the largest published pre-training corpus (36T tokens).
inline constexpr double kTrainingTokens = 1e18;
// TFLOPS of a whole cluster: 1e22 FLOP/s, a million GPUs at 10 PFLOPS each.
inline constexpr double kClusterTflops = 1e10;

} // namespace mfu::ceiling
