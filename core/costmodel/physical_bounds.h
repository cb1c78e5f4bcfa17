#pragma once
// Nothing above physics. A prediction whose MFU or HFU exceeds 100%, or whose achieved TFLOPS per GPU exceed the GPU's
// dense peak for the run's precision, describes no run: the FLOP count it is reported in and the time the cost model
// gives the step disagree (a formula that counts work the kernels skip, such as PaLM's full attention on
// sliding-window layers or the masked half of causal attention at long sequences, against a fast enough step). Such a
// prediction is refused with this reason (CostModel::evaluate throws it; sweeps and the planner leave the point out)
// instead of being printed.
#include <optional>
#include <string>

#include "core/costmodel/step_prediction.h"
#include "core/scenario/scenario.h"

namespace mfu {

// precisionPeakFlops and utilisationCeiling (core/model/hardware_spec.h) bound every prediction.

// Why the prediction is beyond what the GPU can do, in a sentence naming the figures; nullopt when it is not.
std::optional<std::string> beyondPhysics(const StepPrediction& prediction, const Scenario& scenario);
bool isBeyondPhysics(const StepPrediction& prediction, const Scenario& scenario);
// The same in a fixed sentence, for the hot paths that carry static reasons (sweep points, the planner).
inline constexpr const char* kBeyondPhysicsReason
    = "the FLOP count exceeds what the predicted step time allows (MFU, HFU or TFLOPS above the GPU's peak): count "
      "with per_layer or per_component_causal";

} // namespace mfu
