#pragma once
// The `mfu-explorer predict` command that states a scenario with the product's own flags: the model and GPU by
// preset id, the GPU count, the sequence length, the global batch, and every setting of the table
// (core/scenario/settings.h) that differs from its default, by its flag, then the packing and vision inputs. `validate`
// gives it for each published run, so a user can rerun, and change, a run of the table from the command line, and a
// test holds the command's prediction equal to the table's.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/scenario/scenario.h"

namespace mfu {

class PresetLibrary;

struct PredictCommand {
    std::vector<std::string> arguments; // after the program name: "predict", "--model", "llama-3.1-8b", ...
    std::string unstatable; // why the flags cannot state the scenario (arguments are then empty)

    bool stated() const { return !arguments.empty(); }
};

// The command for `scenario`. `--model` and `--gpu` name an entry of `presets` or, failing that, of `alsoNamed` (the
// built-in validation table's own models and GPUs, which the command line names too), in that order, as the command
// line resolves them; the entry must be the scenario's model or GPU, figure for figure, or no command states it.
// Packing (a mean document length, the mask, padding kept) and vision tokens are written as their flags; a histogram
// of document lengths, which the command line reads from a file, makes the scenario unstatable.
// `modelFile`: the model a config.json at the path `id` holds, as `--model PATH` would read it (nullopt when there is
// no such file or it does not read); a model imported from a file is named by its path when the file still holds it.
using ModelFileReader = std::function<std::optional<ModelSpec>(const std::string& id)>;
PredictCommand predictCommandFor(const Scenario& scenario, const PresetLibrary& presets,
    const PresetLibrary* alsoNamed = nullptr, const ModelFileReader& modelFile = {});

// The cost-model constants `--gpu gpuId` predicts with: those the preset named gpuId carries or, when no preset has
// that id, those of the `alsoNamed` entry (a published run's own GPU, whose cluster may have fitted constants). Empty
// means the defaults. The command line resolves --gpu with this, and predictCommandFor holds a run's constants to it.
std::optional<CostModelConstants> costModelNamedBy(
    const std::string& gpuId, const PresetLibrary& presets, const PresetLibrary* alsoNamed);

// The arguments as one line a POSIX shell reads back as the same words: "mfu-explorer predict --pipeline-layout
// 'Et*3|(tt|)*29m|L' ...".
std::string shellCommandLine(const std::vector<std::string>& arguments);

} // namespace mfu
