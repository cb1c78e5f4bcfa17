#include "core/scenario/pipeline_layout.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "core/errors.h"
#include "core/number_format.h"

namespace mfu {

namespace {

// Far more items than any model has layers: a typo like (t|)*100000000 is refused instead of expanded.
constexpr size_t kMaxExpandedItems = 1'000'000;

class LayoutParser {
public:
    explicit LayoutParser(std::string_view text)
        : m_text(text)
    {
    }

    std::string expand()
    {
        std::string out = sequence();
        skipIgnored();
        if (m_pos < m_text.size())
            fail(m_text[m_pos] == ')' ? "a ')' without its '('" : "an unexpected character");
        return out;
    }

private:
    [[noreturn]] void fail(const std::string& what) const
    {
        throw InputError("pipeline layout: " + what + " at character " + std::to_string(m_pos + 1));
    }

    void skipIgnored()
    {
        while (m_pos < m_text.size() && (m_text[m_pos] == ' ' || m_text[m_pos] == ','))
            ++m_pos;
    }

    std::string sequence()
    {
        std::string out;
        for (;;) {
            skipIgnored();
            if (m_pos >= m_text.size() || m_text[m_pos] == ')')
                return out;
            std::string item = atom();
            skipIgnored();
            if (m_pos < m_text.size() && m_text[m_pos] == '*') {
                ++m_pos;
                skipIgnored();
                const size_t n = count();
                if (item.size() * n > kMaxExpandedItems)
                    fail("a repetition too long for any model");
                std::string repeated;
                repeated.reserve(item.size() * n);
                for (size_t i = 0; i < n; ++i)
                    repeated += item;
                item = std::move(repeated);
            }
            out += item;
            if (out.size() > kMaxExpandedItems)
                fail("a layout too long for any model");
        }
    }

    std::string atom()
    {
        const char ch = m_text[m_pos];
        if (ch == 'E' || ch == 't' || ch == 'm' || ch == 'L' || ch == '|') {
            ++m_pos;
            return std::string(1, ch);
        }
        if (ch == '(') {
            ++m_pos;
            std::string inner = sequence();
            if (m_pos >= m_text.size() || m_text[m_pos] != ')')
                fail("a '(' without its ')'");
            ++m_pos;
            return inner;
        }
        fail(std::string("'") + ch + "' is not a layout item (E, t, m, L, |, X*n, (...)*n)");
    }

    size_t count()
    {
        size_t n = 0;
        const char* begin = m_text.data() + m_pos;
        const char* end = m_text.data() + m_text.size();
        const auto [ptr, ec] = std::from_chars(begin, end, n);
        if (ec != std::errc() || ptr == begin || n == 0)
            fail("'*' must be followed by a whole number of at least 1");
        m_pos += static_cast<size_t>(ptr - begin);
        return n;
    }

    std::string_view m_text;
    size_t m_pos = 0;
};

std::string chunkText(const PipelineChunk& c)
{
    std::string t;
    if (c.embedding)
        t += 'E';
    if (c.layers > 2)
        t += "t*" + std::to_string(c.layers);
    else
        t += std::string(static_cast<size_t>(c.layers), 't');
    if (c.mtpLayers > 2)
        t += "m*" + std::to_string(c.mtpLayers);
    else
        t += std::string(static_cast<size_t>(c.mtpLayers), 'm');
    if (c.loss)
        t += 'L';
    return t;
}

bool anyFirstLastSetting(const Parallelism& p)
{
    return p.firstStageLayers > 0 || p.lastStageLayers > 0 || p.embeddingStage || p.lossStage;
}

} // namespace

std::vector<PipelineChunk> parsePipelineLayout(std::string_view text)
{
    const std::string items = LayoutParser(text).expand();
    std::vector<PipelineChunk> chunks(1);
    for (const char ch : items) {
        PipelineChunk& c = chunks.back();
        switch (ch) {
        case 'E':
            if (c.embedding)
                throw InputError("pipeline layout: the embedding appears twice");
            c.embedding = true;
            break;
        case 't':
            ++c.layers;
            break;
        case 'm':
            ++c.mtpLayers;
            break;
        case 'L':
            if (c.loss)
                throw InputError("pipeline layout: the loss appears twice");
            c.loss = true;
            break;
        case '|':
            chunks.emplace_back();
            break;
        default:
            break;
        }
    }
    if (items.empty())
        throw InputError("pipeline layout is empty");
    return chunks;
}

std::string pipelineLayoutText(const std::vector<PipelineChunk>& chunks)
{
    std::string out;
    bool separatorDue = false; // a stage was written and its '|' is still owed
    size_t i = 0;
    while (i < chunks.size()) {
        size_t run = 1;
        while (i + run < chunks.size() && chunks[i + run] == chunks[i])
            ++run;
        // A run that reaches the last stage keeps that stage out of the group: "(tt|)*n" ends each copy with '|'.
        const size_t grouped = i + run == chunks.size() ? run - 1 : run;
        if (separatorDue)
            out += '|';
        if (grouped >= 3) {
            out += "(" + chunkText(chunks[i]) + "|)*" + std::to_string(grouped);
            separatorDue = false;
            i += grouped;
            continue;
        }
        out += chunkText(chunks[i]);
        separatorDue = true;
        ++i;
    }
    return out;
}

std::vector<PipelineChunk> pipelineLayoutFromStageLayers(const std::vector<int>& layersPerStage, int mtpLayers)
{
    std::vector<PipelineChunk> chunks;
    for (const int n : layersPerStage)
        chunks.push_back({ n, 0, false, false });
    if (chunks.empty())
        return chunks;
    chunks.front().embedding = true;
    chunks.back().loss = true;
    chunks.back().mtpLayers = mtpLayers;
    return chunks;
}

std::vector<int> parseStageLayers(std::string_view text)
{
    std::vector<int> out;
    size_t pos = 0;
    while (pos <= text.size()) {
        const size_t comma = text.find(',', pos);
        const std::string_view part = text.substr(pos, comma == std::string_view::npos ? text.npos : comma - pos);
        size_t b = 0, e = part.size();
        while (b < e && std::isspace(static_cast<unsigned char>(part[b])))
            ++b;
        while (e > b && std::isspace(static_cast<unsigned char>(part[e - 1])))
            --e;
        int n = 0;
        const auto [ptr, ec] = std::from_chars(part.data() + b, part.data() + e, n);
        if (b == e || ec != std::errc() || ptr != part.data() + e || n < 0 || n > 100'000)
            throw InputError("stage layers '" + std::string(text)
                + "': expected layer counts per pipeline stage separated by commas, like 4,8,8,4");
        out.push_back(n);
        if (comma == std::string_view::npos)
            break;
        pos = comma + 1;
    }
    return out;
}

bool hasUnevenPipeline(const Parallelism& p)
{
    return !p.pipelineLayout.empty() || anyFirstLastSetting(p);
}

const char* pipelineLayoutProblem(const Parallelism& p, int modelLayers, int mtpLayers)
{
    return pipelineLayoutProblem(p, modelLayers, mtpLayers, nullptr);
}

const char* pipelineLayoutProblem(const Parallelism& p, int modelLayers, int mtpLayers, std::string* figures)
{
    // Figures are written only when asked for: the cost model's check runs in the planner's allocation-free loop.
    const auto refuse = [figures](const char* reason, auto&& describe) {
        if (figures)
            *figures = describe();
        return reason;
    };
    const auto n = [](long long v) { return formatNumber(static_cast<double>(v)); };
    if (p.firstStageLayers < 0 || p.lastStageLayers < 0)
        return "first and last pipeline stage layers cannot be negative";
    if (!p.pipelineLayout.empty()) {
        if (anyFirstLastSetting(p))
            return "a pipeline layout places every layer itself: drop the first/last stage layers and the "
                   "embedding/loss split";
        const long long chunks = static_cast<long long>(p.pp) * p.virtualStages;
        if (static_cast<long long>(p.pipelineLayout.size()) != chunks)
            return refuse("the pipeline layout must have one stage per pp x virtual stages", [&] {
                return "it has " + n(static_cast<long long>(p.pipelineLayout.size())) + ", pp x virtual stages is "
                    + n(chunks);
            });
        long long layers = 0, mtp = 0;
        int embeddings = 0, losses = 0;
        for (const PipelineChunk& c : p.pipelineLayout) {
            if (c.layers < 0 || c.mtpLayers < 0)
                return "a pipeline layout stage cannot hold a negative number of layers";
            layers += c.layers;
            mtp += c.mtpLayers;
            embeddings += c.embedding ? 1 : 0;
            losses += c.loss ? 1 : 0;
        }
        if (layers != modelLayers)
            return refuse("the pipeline layout's transformer layers ('t') must add up to the model's layers",
                [&] { return "they add up to " + n(layers) + " of " + n(modelLayers); });
        if (mtp != mtpLayers)
            return refuse("the pipeline layout's MTP layers ('m') must match the multi-token-prediction layers",
                [&] { return "it has " + n(mtp) + ", the model " + n(mtpLayers); });
        if (embeddings != 1 || !p.pipelineLayout.front().embedding)
            return "the pipeline layout needs the embedding ('E') once, in its first stage";
        if (losses != 1 || !p.pipelineLayout.back().loss)
            return "the pipeline layout needs the loss ('L') once, in its last stage";
        return nullptr;
    }
    if (p.firstStageLayers > 0 || p.lastStageLayers > 0) {
        if (p.embeddingStage || p.lossStage)
            return "first/last stage layers and the embedding/loss split do not combine: write a pipeline layout";
        if (p.pp < 2)
            return "first/last stage layers need pp > 1";
        const long long fixed = static_cast<long long>(p.firstStageLayers) + p.lastStageLayers;
        const int others = p.pp - (p.firstStageLayers > 0 ? 1 : 0) - (p.lastStageLayers > 0 ? 1 : 0);
        if (fixed > modelLayers)
            return refuse("first and last stage layers exceed the model's layers",
                [&] { return n(p.firstStageLayers) + " + " + n(p.lastStageLayers) + " of " + n(modelLayers); });
        if (others == 0 && fixed != modelLayers)
            return refuse("with pp 2 the first and last stage layers must add up to the model's layers",
                [&] { return n(p.firstStageLayers) + " + " + n(p.lastStageLayers) + " of " + n(modelLayers); });
        if (others > 0 && modelLayers - fixed < others)
            return refuse("first and last stage layers leave fewer layers than the other pipeline stages",
                [&] { return n(modelLayers - fixed) + " layers left for " + n(others) + " stages"; });
        return nullptr;
    }
    if (p.embeddingStage || p.lossStage) {
        const long long chunks = static_cast<long long>(p.pp) * p.virtualStages;
        if (chunks < 2)
            return "counting the embedding or loss in the pipeline split needs more than one stage";
        const long long slots = modelLayers + (p.embeddingStage ? 1 : 0) + (p.lossStage ? 1 : 0);
        if (slots < chunks)
            return refuse("the layers with the embedding and loss are fewer than pp x virtual stages",
                [&] { return n(slots) + " layers, " + n(chunks) + " stages"; });
    }
    return nullptr;
}

StageLoad stageLoad(const Parallelism& p, int modelLayers, int mtpLayers, int rank)
{
    StageLoad s;
    const int pp = std::max(1, p.pp);
    if (!p.pipelineLayout.empty()) {
        for (size_t c = static_cast<size_t>(rank); c < p.pipelineLayout.size(); c += static_cast<size_t>(pp)) {
            const PipelineChunk& chunk = p.pipelineLayout[c];
            s.layers += chunk.layers;
            s.mtpLayers += chunk.mtpLayers;
            s.embedding = s.embedding || chunk.embedding;
            s.loss = s.loss || chunk.loss;
        }
        return s;
    }
    s.embedding = rank == 0;
    s.loss = rank == pp - 1;
    s.mtpLayers = s.loss ? mtpLayers : 0;
    if (p.firstStageLayers > 0 || p.lastStageLayers > 0) {
        if (rank == 0 && p.firstStageLayers > 0) {
            s.layers = p.firstStageLayers;
            return s;
        }
        if (rank == pp - 1 && p.lastStageLayers > 0) {
            s.layers = p.lastStageLayers;
            return s;
        }
        // The other ranks split the rest, the earlier ones taking one more when it does not divide.
        const int firstOther = p.firstStageLayers > 0 ? 1 : 0;
        const int others = pp - firstOther - (p.lastStageLayers > 0 ? 1 : 0);
        const int rest = modelLayers - p.firstStageLayers - p.lastStageLayers;
        const int index = rank - firstOther;
        s.layers = rest / others + (index < rest % others ? 1 : 0);
        return s;
    }
    // The embedding and the loss count as one layer each of the first and last virtual stage; the layers and these
    // slots split over the pp x v stages, the earlier ones taking one more when it does not divide.
    const int chunks = pp * std::max(1, p.virtualStages);
    const int slots = modelLayers + (p.embeddingStage ? 1 : 0) + (p.lossStage ? 1 : 0);
    for (int c = rank; c < chunks; c += pp) {
        int n = slots / chunks + (c < slots % chunks ? 1 : 0);
        if (c == 0 && p.embeddingStage)
            n -= 1;
        if (c == chunks - 1 && p.lossStage)
            n -= 1;
        s.layers += std::max(0, n);
    }
    return s;
}

} // namespace mfu
