#pragma once
// Scenarios for the cost-model and planner tests: hardware from the shipped presets (tests/shipped_presets.h),
// models written out in tests/model_fixtures.h so the numbers do not move when a preset file is edited.
#include <QtTest>

#include "core/presets/presets.h"
#include "core/scenario/scenario.h"
#include "model_fixtures.h"
#include "shipped_presets.h"

namespace mfu::test {

inline HardwareSpec presetHardware(const char* id)
{
    const HardwareSpec* h = shippedPresets().findHardware(id);
    if (!h)
        qFatal("hardware preset '%s' missing from %s/presets/hardware", id, MFU_SOURCE_DIR);
    return *h;
}

inline Scenario scenarioFor(const ModelSpec& model, const char* gpu, int gpus, int64_t seq, int tp = 1,
    ActivationCheckpointing ac = ActivationCheckpointing::None, int hsdpReplicas = 1, int64_t microBatch = 1)
{
    Scenario s;
    s.model = model;
    s.cluster.hardware = presetHardware(gpu);
    s.cluster.gpuCount = gpus;
    s.workload.seqLen = seq;
    s.workload.microBatch = microBatch;
    s.parallelism.tp = tp;
    s.parallelism.hsdpReplicas = hsdpReplicas;
    s.activationCheckpointing = ac;
    return s;
}

} // namespace mfu::test
