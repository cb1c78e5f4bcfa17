// The stated FLOP/token against the model's: embeddings counted, attention left out, PaLM's full attention charged to
// layers that do not attend the whole sequence, attention over the packing length, or no formula at all.
#include "core/diagnosis/diagnosis_findings.h"

#include "core/model/param_count.h"
#include "core/number_format.h"
#include <algorithm>

namespace mfu::diagnosis_detail {

namespace {

// The finding for an MFU counted with attention over the whole packed sequence when documents are masked apart.
Finding packingLengthFinding(const RunFacts& f, const std::string& what, double stated)
{
    const double naive = *f.flopsOverPackingLength;
    return { "attention_counted_over_packing_length", "error",
        what + " counts attention over the packing length (12LHQS with S = the packed sequence, " + formatGflop(naive)
            + "/token), but each token attends only within its own document: with per-document masking the "
              "attention term runs over sum(d^2)/sum(d) = "
            + formatNumber(f.effectiveAttentionLength, 0) + " tokens, which gives " + formatGflop(f.flopsCorrect)
            + "/token. FLOP/token, and MFU, are overstated " + formatNumber(naive / f.flopsCorrect, 2) + "x.",
        { { "stated_flops_per_token", stated }, { "flops_per_token_over_packing_length", naive },
            { "corrected_flops_per_token", f.flopsCorrect },
            { "effective_attention_length", f.effectiveAttentionLength } } };
}

// Tied embeddings: the input embedding is also the LM head, a matmul of 2 x hidden x vocab FLOP a token forward. 6N
// then counts that matmul, not a table lookup (TorchTitan counts it for tied embeddings, as the per_component formula
// does); PaLM's 6(N - N_emb), which this product's figures use, leaves it out with the embedding. A convention, not
// an error in the report.
Finding tiedLmHeadFinding(const ParameterCounts& p, double stated, double correct)
{
    return { "flops_count_tied_lm_head", "info",
        "The stated " + formatGflop(stated) + "/token is 6N + 12LHQS with N = " + formatNumber(double(p.active))
            + " parameters, the tied embedding included. Tied, the " + formatNumber(double(p.embedding))
            + " embedding weights are also the LM head, a real matmul, which TorchTitan counts for tied embeddings "
              "(and the per_component formula counts too); PaLM's 6(N - N_emb) + 12LHQS, which the corrected MFU "
              "uses, leaves it out with the embedding: "
            + formatGflop(correct) + "/token, and the stated count is " + formatPercent(stated / correct - 1.0)
            + " higher. The two MFUs differ by that convention, not by an error in the report.",
        { { "stated_flops_per_token", stated }, { "corrected_flops_per_token", correct },
            { "embedding_params", double(p.embedding) } } };
}

} // namespace

// PaLM's formula as published charges 12LHQS to every layer; sliding-window, chunked, sparse, linear-attention and
// Mamba layers attend fewer keys (or none), which the per-layer count gives them.
std::optional<Finding> palmEveryLayerFinding(
    const ReportedRun& run, const RunFacts& f, double flops, const std::string& what, double tolerance)
{
    if (!run.model || !(f.palmFlops > 0) || agree(f.palmFlops, f.flopsCorrect, 0.01)
        || !agree(flops, f.palmFlops, tolerance))
        return std::nullopt;
    const ModelSpec& m = *run.model;
    const int full = localAttentionLayerCount(m, TokenMixer::FullAttention);
    const double ratio = flops / f.flopsCorrect;
    return Finding { "palm_counts_every_layer_as_full_attention", ratio > 1.1 ? "error" : "warning",
        what + "/token: that is PaLM's formula as published, 12LHQS on every layer, but " + std::to_string(full)
            + " of the model's " + std::to_string(m.layers)
            + " layers attend the whole sequence; the others attend their window, chunk, top-k or compressed keys, "
              "or none. Counted layer by layer: "
            + formatGflop(f.flopsCorrect) + "/token, so FLOP/token and MFU are overstated " + formatNumber(ratio, 2)
            + "x.",
        { { "stated_flops_per_token", flops }, { "corrected_flops_per_token", f.flopsCorrect },
            { "full_attention_layers", double(full) }, { "layers", double(m.layers) } } };
}

std::optional<Finding> moeTotalParametersFinding(
    const ReportedRun& run, const RunFacts& f, double flops, const std::string& what)
{
    if (!run.model || run.model->isBare() || !run.model->isMoe() || !(f.flopsCorrect > 0))
        return std::nullopt;
    const ParameterCounts p = countParameters(*run.model);
    if (!(p.total > p.active * 1.2)) // too few inactive experts to tell the counts apart
        return std::nullopt;
    const double attention = std::max(0.0, f.flopsCorrect - 6.0 * double(p.activeNonEmbedding));
    const double total = 6.0 * double(p.total);
    const double totalNonEmbedding = 6.0 * double(p.nonEmbedding);
    bool matches = false;
    for (const double count : { total, totalNonEmbedding, total + attention, totalNonEmbedding + attention })
        matches = matches || agree(flops, count, 0.02);
    if (!matches)
        return std::nullopt;
    const double ratio = flops / f.flopsCorrect;
    return Finding { "moe_total_parameters", "error",
        what + "/token: 6N with N = the MoE's " + formatParameters(double(p.total))
            + " total parameters (every expert's weights), where a token runs only its routed and shared experts, "
            + formatParameters(double(p.active))
            + " active parameters. Counted with those: " + formatGflop(f.flopsCorrect)
            + "/token, so FLOP/token and MFU are overstated " + formatNumber(ratio, 2) + "x.",
        { { "stated_flops_per_token", flops }, { "corrected_flops_per_token", f.flopsCorrect },
            { "total_params", double(p.total) }, { "active_params", double(p.active) }, { "ratio", ratio } } };
}

void checkFlopsPerToken(const ReportedRun& run, const RunFacts& f, std::vector<Finding>& out)
{
    if (!run.model || run.model->isBare() || !run.flopsPerToken || !run.seqLen)
        return;
    const double stated = *run.flopsPerToken;
    const ParameterCounts p = countParameters(*run.model);
    const double correct = f.flopsCorrect;
    const double attention = correct - 6.0 * double(p.activeNonEmbedding);
    const double sixNTotal = 6.0 * double(p.active);
    const std::string seq = formatNumber(double(*run.seqLen));
    if (agree(stated, correct, 0.01))
        return;
    if (auto total = moeTotalParametersFinding(run, f, stated, "The stated " + formatGflop(stated))) {
        out.push_back(std::move(*total));
        return;
    }
    if (f.flopsOverPackingLength && agree(stated, *f.flopsOverPackingLength, 0.01)) {
        out.push_back(packingLengthFinding(f, "The stated " + formatGflop(stated) + "/token", stated));
        return;
    }
    if (auto palm = palmEveryLayerFinding(run, f, stated, "The stated " + formatGflop(stated), 0.01)) {
        out.push_back(std::move(*palm));
        return;
    }
    if (agree(stated, sixNTotal + attention, 0.01)) {
        if (run.model->tiedEmbeddings) {
            out.push_back(tiedLmHeadFinding(p, stated, correct));
            return;
        }
        out.push_back({ "flops_include_embeddings", "warning",
            "The stated " + formatGflop(stated) + "/token is 6N + 12LHQS with N = " + formatNumber(double(p.active))
                + " parameters, embeddings included. The " + formatNumber(double(p.embedding))
                + " embedding parameters are table lookups, not matmuls: PaLM/TorchTitan's 6(N - N_emb) + 12LHQS "
                  "gives "
                + formatGflop(correct) + "/token, so the report overstates FLOP/token (and MFU) by "
                + formatPercent(stated / correct - 1.0) + ".",
            { { "stated_flops_per_token", stated }, { "corrected_flops_per_token", correct },
                { "embedding_params", double(p.embedding) } } });
        return;
    }
    if (agree(stated, sixNTotal, 0.01) || agree(stated, 6.0 * double(p.activeNonEmbedding), 0.01)) {
        const double share = attention / correct;
        out.push_back({ "attention_omitted", share > 0.05 ? "warning" : "info",
            "The stated " + formatGflop(stated)
                + "/token is a 6N count without the attention term 12LHQS, which at S = " + seq + " adds "
                + formatGflop(attention) + " (" + formatPercent(share)
                + " of the total). With it: " + formatGflop(correct) + "/token.",
            { { "stated_flops_per_token", stated }, { "corrected_flops_per_token", correct },
                { "attention_flops_per_token", attention } } });
        return;
    }
    out.push_back({ "flops_per_token_mismatch", "info",
        "The stated " + formatGflop(stated) + "/token matches no standard formula for this model at S = " + seq + "; "
            + std::string(flopFormulaLabel(flopFormulaFor(*run.model, run.formula))) + " gives " + formatGflop(correct)
            + " (" + formatNumber(stated / correct, 3) + "x).",
        { { "stated_flops_per_token", stated }, { "corrected_flops_per_token", correct } } });
}

} // namespace mfu::diagnosis_detail
