#include "core/model/packing.h"
#include "core/io/json_errors.h"

#include <cctype>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/errors.h"
#include "core/io/read_file.h"
#include "core/number_format.h"
#include "core/number_parse.h"
#include "core/text.h"

namespace mfu {

std::vector<AttentionDocument> attentionDocuments(const SequencePacking& packing, int64_t seqLen)
{
    if (!packing.packed() || packing.attention == PackedAttention::WholeSequence)
        return { { double(seqLen), 1.0 } };
    double tokens = 0;
    for (const auto& b : packing.documents)
        tokens += double(b.length) * b.count;
    std::vector<AttentionDocument> out;
    if (!(tokens > 0))
        return { { double(seqLen), 1.0 } };
    for (const auto& b : packing.documents)
        if (b.count > 0)
            out.push_back({ double(b.length), double(b.length) * b.count / tokens });
    return out;
}

double effectiveAttentionLength(const std::vector<AttentionDocument>& documents)
{
    double s = 0;
    for (const auto& d : documents)
        s += d.tokenShare * d.length;
    return s;
}

double effectiveAttentionLength(const SequencePacking& packing, int64_t seqLen)
{
    return effectiveAttentionLength(attentionDocuments(packing, seqLen));
}

double usefulTokenFraction(const SequencePacking& packing)
{
    return 1.0 - packing.paddingFraction;
}

double meanDocumentLength(const SequencePacking& packing, int64_t seqLen)
{
    if (!packing.packed())
        return double(seqLen);
    double tokens = 0, count = 0;
    for (const auto& b : packing.documents) {
        tokens += double(b.length) * b.count;
        count += b.count;
    }
    return count > 0 ? tokens / count : double(seqLen);
}

SequencePacking packedInto(const SequencePacking& packing, int64_t seqLen)
{
    if (!packing.packed() || seqLen < 1)
        return packing;
    SequencePacking out = packing;
    std::map<int64_t, double> bins;
    for (const auto& b : packing.documents) {
        if (b.length <= seqLen) {
            bins[b.length] += b.count;
            continue;
        }
        const int64_t wholeSequences = b.length / seqLen; // a document longer than a sequence fills these whole
        bins[seqLen] += b.count * double(wholeSequences);
        if (b.length % seqLen != 0)
            bins[b.length % seqLen] += b.count;
    }
    out.documents.clear();
    for (const auto& [len, count] : bins)
        out.documents.push_back({ len, count });
    out.meanOnly = packing.meanOnly && out.documents.size() == 1;
    return out;
}

const char* packingProblem(const SequencePacking& packing, int64_t seqLen)
{
    return packingProblem(packing, seqLen, nullptr);
}

const char* packingProblem(const SequencePacking& packing, int64_t seqLen, std::string* figures)
{
    // Figures only when asked for: the cost model's check runs in the planner's allocation-free loop.
    const auto refuse = [figures](const char* reason, auto&& describe) {
        if (figures)
            *figures = describe();
        return reason;
    };
    if (!(packing.paddingFraction >= 0.0 && packing.paddingFraction < 1.0))
        return refuse("the padding fraction must lie in [0, 1)",
            [&] { return "it is " + formatNumber(packing.paddingFraction, 2); });
    double count = 0;
    for (const auto& b : packing.documents) {
        if (b.length < 1 || !(b.count >= 0) || !(b.count <= 1e15))
            return refuse("document lengths must be at least 1 token and counts from 0 to 1e15", [&] {
                return "length " + formatNumber(static_cast<double>(b.length)) + ", count " + formatNumber(b.count, 2);
            });
        if (b.length > seqLen)
            return refuse("a packed document is longer than the sequence (the packing length)", [&] {
                return formatNumber(static_cast<double>(b.length)) + " tokens, sequence "
                    + formatNumber(static_cast<double>(seqLen));
            });
        count += b.count;
    }
    if (packing.packed() && !(count > 0))
        return "the packed sequence holds no documents";
    return nullptr;
}

void validatePacking(const SequencePacking& packing, int64_t seqLen)
{
    if (!(packing.paddingFraction >= 0.0 && packing.paddingFraction < 1.0))
        throw InputError("padding fraction must lie in [0, 1): the share of processed tokens that are padding (got "
            + std::to_string(packing.paddingFraction) + ")");
    if (!packing.packed())
        return;
    double count = 0;
    for (const auto& b : packing.documents) {
        if (b.length < 1)
            throw InputError("document length must be at least 1 token (got " + std::to_string(b.length) + ")");
        if (seqLen > 0 && b.length > seqLen)
            throw InputError("document length " + std::to_string(b.length) + " exceeds the packing length "
                + std::to_string(seqLen) + ": a packed sequence cannot hold it (split long documents first)");
        if (!(b.count >= 0) || !(b.count <= 1e15))
            throw InputError("document count must be zero or more (got " + std::to_string(b.count) + " for length "
                + std::to_string(b.length) + ")");
        count += b.count;
    }
    if (!(count > 0))
        throw InputError("document lengths: no documents (every count is zero)");
}

namespace {

int64_t lengthFrom(const nlohmann::json& v, const std::string& where)
{
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() != std::floor(v.get<double>()))
        throw InputError(where + ": a document length must be a whole number of tokens (got " + v.dump() + ")");
    const double d = v.get<double>();
    if (d < 1 || d > 1e12)
        throw InputError(where + ": a document length must be at least 1 token (got " + v.dump() + ")");
    return int64_t(d);
}

double countFrom(const nlohmann::json& v, const std::string& where)
{
    // Bounded so that length x count stays a finite number of tokens.
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0 || v.get<double>() > 1e15)
        throw InputError(where + ": a document count must be a number from 0 to 1e15 (got " + v.dump() + ")");
    return v.get<double>();
}

std::vector<DocumentLengthBin> binsFromMap(const std::map<int64_t, double>& m)
{
    std::vector<DocumentLengthBin> out;
    for (const auto& [len, count] : m)
        out.push_back({ len, count });
    return out;
}

std::vector<DocumentLengthBin> parseJsonLengths(const nlohmann::json& j, const std::string& source)
{
    std::map<int64_t, double> bins;
    if (j.is_array()) {
        for (size_t i = 0; i < j.size(); ++i) {
            const std::string where = source + " [" + std::to_string(i) + "]";
            if (j[i].is_array()) {
                if (j[i].size() != 2)
                    throw InputError(where + ": a pair must be [length, count]");
                bins[lengthFrom(j[i][0], where)] += countFrom(j[i][1], where);
            } else {
                bins[lengthFrom(j[i], where)] += 1.0;
            }
        }
    } else if (j.is_object()) {
        for (const auto& [key, value] : j.items()) {
            const std::string where = source + " key '" + key + "'";
            const auto len = parseDecimal(key); // core/number_parse.h: no "inf", "0x10" or locale's comma
            if (!len)
                throw InputError(where + ": keys must be document lengths in tokens");
            bins[lengthFrom(nlohmann::json(*len), where)] += countFrom(value, where);
        }
    } else {
        throw InputError(source + ": document lengths must be a JSON array or object");
    }
    if (bins.empty())
        throw InputError(source + ": no document lengths");
    return binsFromMap(bins);
}

} // namespace

std::vector<DocumentLengthBin> parseDocumentLengths(std::string_view text, const std::string& source)
{
    text = withoutByteOrderMark(text);
    size_t first = 0;
    while (first < text.size() && std::isspace(static_cast<unsigned char>(text[first])))
        ++first;
    if (first == text.size())
        throw InputError(source + ": empty: give document lengths (a JSON array, or one length per line)");
    if (text[first] == '[' || text[first] == '{') {
        return parseJsonLengths(parseJsonDocument(text, source), source);
    }
    std::map<int64_t, double> bins;
    std::istringstream in { std::string(text) };
    std::string line;
    int lineNo = 0;
    bool seenData = false;
    while (std::getline(in, line)) {
        ++lineNo;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (line.find_first_not_of(" \t") == std::string::npos || line[line.find_first_not_of(" \t")] == '#')
            continue;
        for (char& c : line)
            if (c == ';' || c == '\t')
                c = ',';
        const std::string where = source + " line " + std::to_string(lineNo);
        std::vector<std::string> cells;
        std::stringstream cs(line);
        for (std::string cell; std::getline(cs, cell, ',');)
            cells.push_back(cell);
        auto number = [](const std::string& cell, double& out) {
            // Spaces around a cell ("4096, 3") as a spreadsheet writes them; the number itself as everywhere.
            const auto v = parseDecimal(cell, NumberText::Lenient);
            out = v.value_or(0);
            return v.has_value();
        };
        double len = 0, count = 1;
        if (cells.empty() || !number(cells[0], len)) {
            if (!seenData && lineNo == 1)
                continue; // a header line: "length,count"
            throw InputError(where + ": expected a document length (got '" + line + "')");
        }
        if (cells.size() > 2)
            throw InputError(where + ": expected 'length' or 'length,count' (got '" + line + "')");
        if (cells.size() == 2 && !number(cells[1], count))
            throw InputError(where + ": the count is not a number (got '" + cells[1] + "')");
        seenData = true;
        bins[lengthFrom(nlohmann::json(len), where)] += countFrom(nlohmann::json(count), where);
    }
    if (bins.empty())
        throw InputError(source + ": no document lengths");
    return binsFromMap(bins);
}

std::string_view packedAttentionKey(PackedAttention a)
{
    return a == PackedAttention::PerDocument ? "document" : "packed";
}

bool packedAttentionFromKey(std::string_view key, PackedAttention& out)
{
    const std::string k = asciiLowered(key);
    if (k == "document" || k == "per_document" || k == "varlen" || k == "document_mask") {
        out = PackedAttention::PerDocument;
        return true;
    }
    if (k == "packed" || k == "whole_sequence" || k == "none" || k == "causal") {
        out = PackedAttention::WholeSequence;
        return true;
    }
    return false;
}

std::vector<DocumentLengthBin> documentLengthsFromFile(const std::filesystem::path& path)
{
    InputFile file(path, "a file of document lengths");
    if (file.size() > kMaxDocumentLengthsFileBytes)
        throw InputError(
            path.string() + ": is larger than 64 MiB; give a histogram of lengths ([length, count] pairs)");
    return parseDocumentLengths(file.readAll(kMaxDocumentLengthsFileBytes), path.string());
}

} // namespace mfu
