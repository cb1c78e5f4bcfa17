#pragma once
// What a file given in the wrong place is, so that a refusal can name it ("... is a profiler trace, not a report of
// training runs") instead of tripping over its first unexpected key. Each kind this product reads is told apart by
// the key or the "format" it carries.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace mfu {

enum class DocumentKind {
    None, // none of the kinds below
    ProfilerTrace,
    HfConfig,
    Scenario,
    ValidationTable,
    KernelRules,
    Calibration,
    HardwarePresets,
    ModelPresets,
    TraceSummary,
};

DocumentKind documentKindOf(const nlohmann::json& document);

// Which of them the file at `path` is, for sniffing (the window's Open, a run's folder): ProfilerTrace when its first
// 64 KiB name "traceEvents" (a trace of any size), else the kind of its whole JSON when the file is at most 16 MiB;
// nullopt for anything else: larger, not whole JSON (a trace cut short, a log), or not a regular file it can open
// (opened without blocking). Never throws.
std::optional<DocumentKind> documentKindOfFile(const std::filesystem::path& path);
// The 16 MiB above which a file is not read whole to be sniffed: configs, scenarios and presets are kilobytes.
inline constexpr uint64_t kMaxSniffedDocumentBytes = uint64_t(16) << 20;

// "a profiler trace (Chrome/Kineto JSON)", "a Hugging Face config.json", ...; empty for None.
std::string describeDocumentKind(DocumentKind kind);

// The readers' refusals, each worded once: InputError "<source>: is <kind>, not <expected>" when `document` is another
// of the product's inputs than `own` (None: the reader's input has no kind of its own, so any of them is refused) ...
void refuseOtherDocument(
    const nlohmann::json& document, DocumentKind own, const std::string& source, const std::string& expected);
// ... and "<source>: is gzip-compressed (a profiler trace?), not <expected>" when `bytes` start with the two bytes
// every gzip stream starts with: a .json.gz given where JSON text belongs.
void refuseGzip(std::string_view bytes, const std::string& source, const std::string& expected);

} // namespace mfu
