#pragma once
// Scenarios for the cost-model and planner tests: presets read from the source tree (MFU_SOURCE_DIR "/presets"),
// models written out in tests/model_fixtures.h so the numbers do not move when a preset file is edited.
#include <QtTest>

#include "core/presets.h"
#include "core/scenario.h"
#include "model_fixtures.h"

namespace mfu::test {

inline const PresetLibrary& presetLibrary()
{
    static const PresetLibrary lib = [] {
        PresetLibrary l;
        l.loadDirectory(MFU_SOURCE_DIR "/presets/hardware");
        return l;
    }();
    return lib;
}

inline HardwareSpec presetHardware(const char* id)
{
    const HardwareSpec* h = presetLibrary().findHardware(id);
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
