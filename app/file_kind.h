#pragma once
// What a file given to the window is, decided from its content (a Kineto trace is *.json too, and so are configs,
// scenarios and presets). MainWindow::openFiles routes on this; a new kind of file gets a value here and a case there.
#include <QString>

#include "core/io/document_kind.h"

namespace mfu::app {

enum class FileKind {
    HfConfig, // Hugging Face config.json: has "model_type" or "architectures"
    Scenario, // "format": "mfu-explorer-scenario"
    Preset, // "format": "mfu-explorer-hardware" / "mfu-explorer-models"
    Calibration, // "format": "mfu-explorer-calibration" (what `calibrate --out` writes)
    Trace, // profiler trace ("traceEvents", *.pt.trace.json, *.json.gz)
    TrainingLog, // text with torchtitan / Megatron-LM / nanoGPT step lines (core/logs/training_log.h)
    OtherJson, // JSON that is none of the above (sniffFileKind's `document` may still name it: kernel rules, ...)
    Unknown
};

// File > Open's filters: everything the window opens first (configs, scenarios, Kineto traces, Nsight Systems
// SQLite exports, training logs), then each kind alone.
QString openFileFilter();

// Reads at most the head of a large file; never throws. `document`, when given, receives which of the product's JSON
// inputs the file is (core/io/document_kind.h: documentKindOfFile), so that the window can name one it does not open
// (OtherJson: kernel rules, a validation table, ...); it is left as it is for a file that is not JSON.
FileKind sniffFileKind(const QString& path, DocumentKind* document = nullptr);

} // namespace mfu::app
