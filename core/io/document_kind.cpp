#include "core/io/document_kind.h"

#include <array>
#include <cstdio>
#include <memory>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/io/read_file.h"

namespace mfu {

DocumentKind documentKindOf(const nlohmann::json& document)
{
    // Chrome's JSON Array Format: a bare array of events, each with its phase.
    if (document.is_array() && !document.empty() && document.front().is_object() && document.front().contains("ph"))
        return DocumentKind::ProfilerTrace;
    if (!document.is_object())
        return DocumentKind::None;
    if (document.contains("traceEvents"))
        return DocumentKind::ProfilerTrace;
    static const std::array<std::pair<const char*, DocumentKind>, 7> kFormats { {
        { "mfu-explorer-scenario", DocumentKind::Scenario },
        { "mfu-explorer-validation", DocumentKind::ValidationTable },
        { "mfu-explorer-kernel-rules", DocumentKind::KernelRules },
        { "mfu-explorer-calibration", DocumentKind::Calibration },
        { "mfu-explorer-hardware", DocumentKind::HardwarePresets },
        { "mfu-explorer-models", DocumentKind::ModelPresets },
        { "mfu-explorer-trace-summary", DocumentKind::TraceSummary },
    } };
    if (const auto format = document.find("format"); format != document.end() && format->is_string())
        for (const auto& [name, kind] : kFormats)
            if (*format == name)
                return kind;
    if (document.contains("model_type") || document.contains("architectures"))
        return DocumentKind::HfConfig;
    return DocumentKind::None;
}

std::optional<DocumentKind> documentKindOfFile(const std::filesystem::path& path)
{
    constexpr size_t kHead = size_t { 64 } * 1024;
    try {
        InputFile file(path, "a file to sniff");
        const bool small = file.size() <= kMaxSniffedDocumentBytes;
        std::string text;
        if (small) {
            text = file.readAll(kMaxSniffedDocumentBytes);
        } else {
            const std::unique_ptr<std::FILE, int (*)(std::FILE*)> stream(file.releaseAsStream(), &std::fclose);
            text.resize(kHead);
            text.resize(std::fread(text.data(), 1, kHead, stream.get()));
        }
        if (text.find("\"traceEvents\"") < kHead)
            return DocumentKind::ProfilerTrace;
        if (!small)
            return std::nullopt;
        const nlohmann::json document = nlohmann::json::parse(text, nullptr, false);
        if (document.is_discarded() || !(document.is_object() || document.is_array()))
            return std::nullopt;
        return documentKindOf(document);
    } catch (const InputError&) {
        return std::nullopt; // not a regular file, or unreadable: nothing to name
    }
}

std::string describeDocumentKind(DocumentKind kind)
{
    switch (kind) {
    case DocumentKind::None:
        return {};
    case DocumentKind::ProfilerTrace:
        return "a profiler trace (Chrome/Kineto JSON)";
    case DocumentKind::HfConfig:
        return "a Hugging Face config.json";
    case DocumentKind::Scenario:
        return "an MFU Explorer scenario file";
    case DocumentKind::ValidationTable:
        return "a table of published runs (validate --runs)";
    case DocumentKind::KernelRules:
        return "a kernel rules file (--kernel-rules)";
    case DocumentKind::Calibration:
        return "a calibration (--calibration)";
    case DocumentKind::HardwarePresets:
        return "a hardware preset file";
    case DocumentKind::ModelPresets:
        return "a model preset file";
    case DocumentKind::TraceSummary:
        return "a per-rank trace summary (trace merge)";
    }
    return {};
}

void refuseOtherDocument(
    const nlohmann::json& document, DocumentKind own, const std::string& source, const std::string& expected)
{
    if (const DocumentKind kind = documentKindOf(document); kind != DocumentKind::None && kind != own)
        throw InputError(source + ": is " + describeDocumentKind(kind) + ", not " + expected);
}

void refuseGzip(std::string_view bytes, const std::string& source, const std::string& expected)
{
    if (bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f
        && static_cast<unsigned char>(bytes[1]) == 0x8b)
        throw InputError(source + ": is gzip-compressed (a profiler trace?), not " + expected);
}

} // namespace mfu
