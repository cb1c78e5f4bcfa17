#pragma once
// Sequence packing and padding: which tokens the attention sees together, and which tokens train the model.
//
// A packed sequence of length P (the workload's sequence length) holds several documents of lengths d_i, sum d_i = P.
// With per-document attention masking (varlen / document masking, what flash-attention's varlen kernels and
// first-fit packing trainers do), a token attends only within its own document, so the attention core per token
// is the token-weighted mean of the per-document spans: sum_i d_i x span(d_i) / sum_i d_i, which for full attention
// is sum(d_i^2) / sum(d_i) (the effective attention length), not P. Without the mask the attention spans the whole
// packed sequence, P. Linear matmuls do not care: they cost the same per token either way.
//
// Padding kept in the batch costs compute but trains nothing: of the tokens processed, a fraction p is padding, so
// useful tokens = processed x (1 - p). MFU counts the useful tokens, HFU the processed ones.
//
// Defaults keep an unpacked, unpadded run: one document per sequence.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace mfu {

struct DocumentLengthBin {
    int64_t length = 0; // tokens
    double count = 0; // documents of this length (a histogram weight; need not be whole)
};

enum class PackedAttention {
    PerDocument, // varlen / document masking: a token attends within its own document
    WholeSequence, // the mask spans the packed sequence: every document attends to the others before it
};

struct SequencePacking {
    // Lengths of the documents packed into each sequence, as a histogram; empty: one document fills the sequence.
    std::vector<DocumentLengthBin> documents;
    // True when documents holds a single stated mean: the documents are then taken as all of that length, which is
    // the lowest effective attention length that mean allows (any spread raises sum(d^2)/sum(d)).
    bool meanOnly = false;
    PackedAttention attention = PackedAttention::PerDocument;
    double paddingFraction = 0; // share of the processed tokens that are padding kept in the batch, in [0, 1)

    bool packed() const { return !documents.empty(); }
    bool padded() const { return paddingFraction > 0; }
};

// One document length the attention runs over and the share of the sequence's tokens in documents of that length.
struct AttentionDocument {
    double length = 0;
    double tokenShare = 0; // the shares of a sequence add up to 1
};

// The document lengths the attention runs over in a sequence of seqLen tokens: {seqLen, 1} when the run is not
// packed or its attention spans the packed sequence; else every bin, weighted by its tokens (length x count).
std::vector<AttentionDocument> attentionDocuments(const SequencePacking& packing, int64_t seqLen);
// sum(share x length) = sum(d^2) / sum(d): the sequence length a token's attention sees on average.
double effectiveAttentionLength(const std::vector<AttentionDocument>& documents);
double effectiveAttentionLength(const SequencePacking& packing, int64_t seqLen);
// Trained tokens per processed token: 1 - paddingFraction.
double usefulTokenFraction(const SequencePacking& packing);
// Mean document length of the histogram (sum(d x count) / sum(count)); seqLen when not packed.
double meanDocumentLength(const SequencePacking& packing, int64_t seqLen);

// The same documents packed into sequences of seqLen tokens: a document longer than seqLen is split into whole
// seqLen pieces and its remainder, as packers split long documents (tokens kept). Used where the packing length
// moves and the documents stay (a sequence-length sweep).
SequencePacking packedInto(const SequencePacking& packing, int64_t seqLen);
// Why the packing cannot describe sequences of seqLen tokens (a static sentence), or nullptr; no allocation.
const char* packingProblem(const SequencePacking& packing, int64_t seqLen);
// The same, with the figures that break it written to `figures` when not null ("150.00% of the tokens").
const char* packingProblem(const SequencePacking& packing, int64_t seqLen, std::string* figures);

// Throws InputError naming the field: a length below 1 or above the sequence length, a count below 0 or no
// documents at all, a padding fraction outside [0, 1).
void validatePacking(const SequencePacking& packing, int64_t seqLen);

// Document lengths from a small file's text: a JSON array of lengths ([812, 4096, ...]) or of [length, count]
// pairs, a JSON object {"length": count, ...}, or CSV/plain text with one length, or "length,count", per line (a
// header line of words is skipped). `source` names the file in errors.
std::vector<DocumentLengthBin> parseDocumentLengths(std::string_view text, const std::string& source);

// The most a file of document lengths may hold: one length per line of 64 MiB is millions of documents; a larger corpus
// is given as a histogram of [length, count] pairs.
inline constexpr uint64_t kMaxDocumentLengthsFileBytes = uint64_t(64) << 20;
// parseDocumentLengths on a file's bytes, for --doc-lengths and the window's "Read document lengths": a regular file
// (a FIFO or folder is refused without blocking) of at most kMaxDocumentLengthsFileBytes; errors name the file.
std::vector<DocumentLengthBin> documentLengthsFromFile(const std::filesystem::path& path);

std::string_view packedAttentionKey(PackedAttention a); // "document", "packed"
// Accepts "document", "per_document", "varlen", "packed", "whole_sequence", "none" (no document mask).
bool packedAttentionFromKey(std::string_view key, PackedAttention& out);

} // namespace mfu
