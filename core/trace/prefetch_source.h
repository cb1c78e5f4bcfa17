#pragma once
// Opens a trace file like openTraceFile, but inflates gzip on a second thread one chunk ahead of the reader, so
// that decompression overlaps with tokenizing: a gzip import then takes max(inflate, parse) of wall time instead
// of their sum when a second core is free (docs/trace-analysis.md, Performance). Plain files are read directly.
//
// What the reader sees is unchanged: the same bytes in order; errors of the inner source (corrupt or truncated
// gzip, a file that changed, Cancelled) are thrown from read() once the data before them has been delivered; and
// ReadControl::onProgress is still called on the reading thread, when the reader reaches the data it reports.
// Destroying the source (after an error or a cancel, too) stops and joins the worker.
#include <filesystem>
#include <memory>

#include "core/trace/byte_source.h"

namespace mfu::trace {

std::unique_ptr<ByteSource> openTraceFilePrefetched(const std::filesystem::path& path, const ReadControl& control = {});

} // namespace mfu::trace
