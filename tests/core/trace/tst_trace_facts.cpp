// What a trace states beyond its GPU (core/trace/trace_facts.h): tokens per step from the token ids its embedding
// lookups were given (gradient accumulation, position tables and recomputation in backward told apart), eager or
// compiled from its kernels, and the facts the banner compares with the scenario (core/facts/file_facts.h); on
// small traces written here and on PyTorch 2.11's compiled H200 trace in ../shared/traces.
#include <QDir>
#include <QtTest>

#include "core/facts/file_facts.h"
#include "core/trace/analysis.h"
#include "core/trace/builtin_kernel_rules.h"
#include "core/trace/trace_facts.h"
#include "core/trace/trace_loader.h"
#include "model_fixtures.h"
#include "trace_test_support.h"

using namespace mfu;
using namespace mfu::trace;
using trace_test::annotation;
using trace_test::kernel;

namespace {

std::string op(const std::string& name, const std::string& ts, const std::string& dur, const std::string& dims,
    const std::string& types, int tid = 1)
{
    return "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" + name
        + "\", \"pid\": 1, \"tid\": " + std::to_string(tid) + ", \"ts\": " + ts + ", \"dur\": " + dur
        + ", \"args\": {\"Input Dims\": " + dims + ", \"Input type\": " + types + "}}";
}

constexpr const char* kBf16Pair = R"(["c10::BFloat16", "c10::BFloat16"])";

// An operator with its Concrete Inputs (aten::_to_copy's dtype: 15 BFloat16, 5 Half, 4 Long).
std::string opWithConcrete(const std::string& name, const std::string& ts, const std::string& dims,
    const std::string& types, const std::string& concrete)
{
    return "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" + name + "\", \"pid\": 1, \"tid\": 1, \"ts\": " + ts
        + ", \"dur\": 2, \"args\": {\"Input Dims\": " + dims + ", \"Input type\": " + types
        + ", \"Concrete Inputs\": " + concrete + "}}";
}

// aten::_to_copy(self, dtype, ...) of a tensor of `dims` and `type` to the dtype code `dtype`.
std::string toCopy(const std::string& ts, const std::string& dims, const std::string& type, const std::string& dtype)
{
    return opWithConcrete("aten::_to_copy", ts, "[" + dims + ", [], [], [], [], [], []]",
        "[\"" + type + "\", \"Scalar\", \"\", \"\", \"\", \"Scalar\", \"\"]",
        "[\"\", \"" + dtype + "\", \"\", \"\", \"\", \"False\", \"\"]");
}

// aten::embedding(weight [vocab, 4096], ids [rows, columns]).
std::string embedding(const std::string& ts, int64_t vocab, const std::string& ids, int tid = 1)
{
    return op("aten::embedding", ts, "5", "[[" + std::to_string(vocab) + ", 4096], " + ids + ", [], [], []]",
        R"(["c10::BFloat16", "long int", "Scalar", "Scalar", "Scalar"])", tid);
}

RunAnalysis analyse(const std::vector<std::string>& events)
{
    std::vector<Timeline> t;
    t.push_back(trace_test::read(trace_test::traceOf(events)));
    return analyzeRun(t, builtInKernelRules());
}

// Two steps of an eager run with gradient accumulation 2: each micro-step looks up [2, 8192] ids in the 128k
// vocabulary and [1, 8192] positions in an 8k table; the backward of step 1 recomputes one lookup (activation
// checkpointing). Kernels are PyTorch's own elementwise ones.
std::vector<std::string> eagerSteps()
{
    const std::string vectorized = "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>";
    std::vector<std::string> e;
    for (int s = 0; s < 2; ++s) {
        const int base = 1000 + s * 1000;
        e.push_back(annotation("ProfilerStep#" + std::to_string(s + 1), std::to_string(base), "1000", false));
        for (int micro = 0; micro < 2; ++micro) {
            const int at = base + 10 + micro * 400;
            e.push_back(embedding(std::to_string(at), 128256, "[2, 8192]"));
            e.push_back(embedding(std::to_string(at + 6), 8192, "[1, 8192]"));
            e.push_back(trace_test::launch(100 * s + micro, std::to_string(at + 20)));
            e.push_back(kernel(vectorized, std::to_string(at + 30), "100", 7, 100 * s + micro));
        }
        // The backward (on autograd's thread) recomputes a checkpointed forward: not a micro-step.
        e.push_back(op("autograd::engine::evaluate_function: CheckpointFunctionBackward", std::to_string(base + 850),
            "100", "[]", "[]", 2));
        e.push_back(embedding(std::to_string(base + 860), 128256, "[2, 8192]", 2));
    }
    return e;
}

std::string realTrace(const char* name)
{
    return std::string(MFU_SHARED_TRACES_DIR) + "/" + name;
}

} // namespace

class TestTraceFacts : public QObject {
    Q_OBJECT

private slots:
    void embeddingLookups()
    {
        QVERIFY(isEmbeddingLookup("aten::embedding"));
        QVERIFY(isEmbeddingLookup("triton_per_fused__fused_rms_norm__to_copy_embedding_0"));
        QVERIFY(!isEmbeddingLookup("triton_poi_fused_embedding_dense_backward_17"));
        QVERIFY(!isEmbeddingLookup("aten::embedding_backward"));
        QVERIFY(!isEmbeddingLookup("aten::index_select"));
    }

    void eagerGradientAccumulation()
    {
        const RunAnalysis run = analyse(eagerSteps());
        QCOMPARE(run.ranks.size(), size_t(1));
        const auto& t = run.ranks[0].recordedTokens;
        QVERIFY(t);
        // 2 micro-steps of 2 x 8,192: the position lookups and the recomputed one are not counted.
        QCOMPARE(t->perStep, 32768.0);
        QCOMPARE(t->perMicroStep, int64_t(16384));
        QCOMPARE(t->microSteps, int64_t(2));
        QCOMPARE(t->seqLen, int64_t(8192));
        QCOMPARE(t->microBatch, int64_t(2));
        QCOMPARE(t->stepsCounted, 2);
        QVERIFY(!t->varies);
        const auto mode = executionModeOf(run.ranks);
        QVERIFY(mode);
        QVERIFY(!mode->compiled);
        QCOMPARE(mode->inductorShare, 0.0);

        // One process: the whole step's tokens; the banner offers them with the sequence and micro-batch.
        const TraceFacts facts = traceFacts(run);
        QCOMPARE(facts.tokensPerStep.value_or(0), 32768.0);
        const FileFacts file = factsFromTrace(run);
        QCOMPARE(file.tokensPerStep.value_or(0), 32768.0);
        QCOMPARE(file.seqLen.value_or(0), int64_t(8192));
        QCOMPARE(file.microBatch.value_or(0), int64_t(2));
        QCOMPARE(file.compiled, std::optional<bool>(false));

        // A compiled scenario of 8,192 tokens: the tokens per step and eager-or-compiled differ, the sequence not.
        Scenario s;
        s.model = mfu::test::llama31_8b();
        s.workload.seqLen = 8192;
        s.flags.compiled = true;
        const FactsCheck c = checkFacts(file, s, 8192, {});
        QCOMPARE(c.differences.size(), size_t(3));
        QCOMPARE(c.differences[0].fact, Fact::TokensPerStep);
        QCOMPARE(c.differences[0].inFile, std::string("32,768"));
        // The throughput it measured: its tokens over its mean step time, one GPU; the scenario states none.
        QVERIFY(file.tokensPerSecPerGpu);
        QVERIFY(std::abs(*file.tokensPerSecPerGpu - 32768.0 / run.meanStepSeconds) < 1e-6);
        QCOMPARE(c.differences[1].fact, Fact::Throughput);
        QCOMPARE(c.differences[1].inScenario, std::string("none"));
        QCOMPARE(c.differences[2].fact, Fact::Compiled);
        QCOMPARE(c.differences[2].inFile, std::string("eager"));
        QCOMPARE(c.differences[2].inScenario, std::string("compiled (torch.compile)"));
        s.flags.compiled = false;
        s.measuredThroughput = Throughput { *file.tokensPerSecPerGpu, ThroughputScope::PerGpu };
        QVERIFY(checkFacts(file, s, 32768, {}).empty());
    }

    void aRankOfALargerJobStatesNoGlobalBatch()
    {
        std::vector<std::string> e = eagerSteps();
        std::vector<Timeline> t;
        t.push_back(trace_test::read(trace_test::traceOf(e, R"("distributedInfo": {"rank": 3, "world_size": 8})")));
        const RunAnalysis run = analyzeRun(t, builtInKernelRules());
        QVERIFY(run.ranks[0].recordedTokens);
        QCOMPARE(run.ranks[0].recordedTokens->perStep, 32768.0); // what this rank embedded
        QVERIFY(!traceFacts(run).tokensPerStep); // its data-parallel group's share: the global batch is not recorded
        QVERIFY(!factsFromTrace(run).tokensPerStep);
    }

    void compiledFromInductorKernels()
    {
        // torch.compile's kernels and its fused embedding operator with the ids among its buffers.
        std::vector<std::string> e;
        e.push_back(annotation("ProfilerStep#1", "1000", "1000", false));
        e.push_back(op("triton_per_fused__fused_rms_norm__to_copy_embedding_0", "1010", "5",
            "[[8, 4096, 1], [8, 4096], [151936, 1024], [1024], [8, 4096, 1024], [], []]",
            R"(["float", "long int", "float", "float", "c10::BFloat16", "Scalar", "Scalar"])"));
        e.push_back(trace_test::launch(1, "1020"));
        e.push_back(kernel("triton_poi_fused__to_copy_add_mul_silu_3", "1030", "300", 7, 1));
        e.push_back(trace_test::launch(2, "1040"));
        e.push_back(kernel("triton_per_fused__fused_rms_norm_1", "1400", "100", 7, 2));
        // An eager optimizer beside the compiled model keeps it compiled.
        e.push_back(trace_test::launch(3, "1050"));
        e.push_back(kernel(
            "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>", "1600", "100", 7, 3));
        // The embedding's gradient is not a lookup.
        e.push_back(op("triton_poi_fused_embedding_dense_backward_17", "1700", "5", "[[151936, 1024], []]",
            R"(["float", "Scalar"])"));
        const RunAnalysis run = analyse(e);
        const auto mode = executionModeOf(run.ranks);
        QVERIFY(mode);
        QVERIFY(mode->compiled);
        QCOMPARE(mode->inductorShare, 0.8);
        QCOMPARE(mode->inductorKernelCalls, int64_t(2));
        const auto& t = run.ranks[0].recordedTokens;
        QVERIFY(t);
        QCOMPARE(t->perStep, 32768.0);
        QCOMPARE(t->seqLen, int64_t(4096));
        QCOMPARE(t->microBatch, int64_t(8));
        QCOMPARE(t->microSteps, int64_t(1));

        // Mostly eager: 400 of 1,000 us of elementwise time in Inductor's kernels.
        e.push_back(trace_test::launch(4, "1060"));
        e.push_back(kernel(
            "void at::native::vectorized_elementwise_kernel<4, at::native::MulFunctor<float>>", "1800", "500", 7, 4));
        const auto mostlyEager = executionModeOf(analyse(e).ranks);
        QCOMPARE(mostlyEager->inductorShare, 0.4);
        QVERIFY(!mostlyEager->compiled);
    }

    void withoutShapesNothingIsStated()
    {
        // record_shapes off: the lookup has no dims, and no tokens are claimed.
        std::vector<std::string> e;
        e.push_back(annotation("ProfilerStep#1", "1000", "1000", false));
        e.push_back("{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::embedding\", \"pid\": 1, \"tid\": 1, "
                    "\"ts\": 1010, \"dur\": 5, \"args\": {}}");
        const RunAnalysis run = analyse(e);
        QVERIFY(!run.ranks[0].recordedTokens);
        QVERIFY(!executionModeOf(run.ranks)); // no elementwise kernel: nothing to tell eager from compiled
        QVERIFY(!factsFromTrace(run).compiled);
    }

    // Autocast over FP32 weights casts each weight matrix to BF16 every step: eager as aten::_to_copy with dtype 15
    // (or 5, FP16), compiled as an Inductor kernel fusing only the cast and a transpose. What is not such a cast:
    // a 3-D activation, a cast to another type, a gradient cast back to FP32 (16-bit buffer first), a kernel that
    // fuses more than the cast.
    void autocastFromWeightCasts()
    {
        std::vector<std::string> e;
        for (int s = 0; s < 2; ++s) {
            const int base = 1000 + s * 1000;
            const auto at = [base](int offset) { return std::to_string(base + offset); };
            e.push_back(annotation("ProfilerStep#" + std::to_string(s + 1), at(0), "1000", false));
            // The GEMMs whose operands the casts produce (the weights, as nn.Linear passes them transposed).
            e.push_back(op("aten::mm", at(5), "1", "[[8192, 4096], [4096, 4096]]", kBf16Pair));
            e.push_back(op("aten::mm", at(6), "1", "[[8192, 4096], [4096, 14336]]", kBf16Pair));
            e.push_back(toCopy(at(10), "[4096, 4096]", "float", "15"));
            e.push_back(toCopy(at(20), "[4096, 4096]", "float", "15"));
            e.push_back(toCopy(at(30), "[14336, 4096]", "float", "5"));
            e.push_back(opWithConcrete("triton_poi_fused__to_copy_t_11", at(40), "[[4096, 14336], [14336, 4096], []]",
                R"(["float", "c10::BFloat16", "Scalar"])", R"(["", "", "1"])"));
            // Not weights cast to 16 bits:
            e.push_back(toCopy(at(50), "[2, 8192, 4096]", "float", "15")); // an activation
            e.push_back(toCopy(at(60), "[4096, 4096]", "float", "4")); // to int64
            e.push_back(toCopy(at(70), "[4096, 4096]", "c10::BFloat16", "6")); // BF16 to FP32
            e.push_back(opWithConcrete("triton_poi_fused__to_copy_3", at(80), "[[4096, 14336], [4096, 14336], []]",
                R"(["c10::BFloat16", "float", "Scalar"])", R"(["", "", "1"])")); // a gradient to FP32
            e.push_back(opWithConcrete("triton_poi_fused__to_copy_add_t_9", at(90),
                "[[4096, 4096], [4096, 4096], [4096, 4096], []]", R"(["float", "float", "c10::BFloat16", "Scalar"])",
                R"(["", "", "", "1"])")); // fuses an add
            e.push_back(toCopy(at(92), "[8192, 2]", "float", "15")); // routing weights [tokens, top-k]: no operand
            e.push_back(opWithConcrete("triton_poi_fused__to_copy_t_12", at(95),
                "[[4611686018427387904, 4611686018427387904], [1, 1], []]", R"(["float", "c10::BFloat16", "Scalar"])",
                R"(["", "", "1"])")); // a corrupt shape past int64: no cast, no overflow
        }
        const RunAnalysis run = analyse(e);
        const auto& casts = run.ranks[0].fp32MatrixCasts;
        QVERIFY(casts);
        QCOMPARE(casts->perStep, 4.0);
        QCOMPARE(casts->shapes, int64_t(3));
        QCOMPARE(casts->stepsCounted, 2);
        QCOMPARE(casts->rows, int64_t(4096)); // the shape cast most: twice a step
        QCOMPARE(ranUnderAutocast(run.ranks[0]), std::optional<bool>(true));
        const FileFacts file = factsFromTrace(run);
        QCOMPARE(file.autocast, std::optional<bool>(true));
        // Against a scenario of 16-bit weights: a difference the banner names, and the run as the trace ran it.
        Scenario s;
        s.model = mfu::test::llama31_8b();
        s.workload.seqLen = 8192;
        const FactsCheck c = checkFacts(file, s, 8192, {});
        const auto weights = std::find_if(c.differences.begin(), c.differences.end(),
            [](const FactDifference& d) { return d.fact == Fact::Autocast; });
        QVERIFY(weights != c.differences.end());
        QCOMPARE(factDifferencesText({ *weights }),
            std::string("weights FP32 under autocast in the file vs 16-bit in the scenario"));
        const std::optional<AsTraced> asTraced = scenarioAsTraced(s, file);
        QVERIFY(asTraced && asTraced->scenario.flags.autocast);
        QCOMPARE(asTraced->how, std::string("FP32 weights under autocast"));
        QCOMPARE(asTraced->scenarioHow, std::string("16-bit weights"));
        s.flags.autocast = true;
        s.flags.compiled = false;
        QVERIFY(!scenarioAsTraced(s, file));
        // One FP32 matrix cast a step is not every weight, and not proof of none: it cannot tell.
        const auto oneCast = []() {
            std::vector<std::string> steps;
            for (const std::string step : { "1", "2" }) {
                steps.push_back(annotation("ProfilerStep#" + step, step + "000", "1000", false));
                steps.push_back(op("aten::mm", step + "005", "1", "[[8192, 64], [64, 64]]", kBf16Pair));
                steps.push_back(toCopy(step + "010", "[64, 64]", "float", "15"));
            }
            return steps;
        };
        const RunAnalysis lone = analyse(oneCast());
        QCOMPARE(lone.ranks[0].fp32MatrixCasts->perStep, 1.0);
        QVERIFY(!castsWeightsEveryStep(*lone.ranks[0].fp32MatrixCasts));
        QVERIFY(!castsNoWeight(*lone.ranks[0].fp32MatrixCasts));
        QVERIFY(!ranUnderAutocast(lone.ranks[0]));
        QVERIFY(!factsFromTrace(lone).autocast);
        // A cast recorded without the dtype it casts to (no Concrete Inputs, as older PyTorch writes) is unread:
        // the trace cannot show a weight cast's absence either.
        std::vector<std::string> unread = oneCast();
        for (std::string& event : unread)
            if (const auto at = event.find(", \"Concrete Inputs\""); at != std::string::npos)
                event = event.substr(0, at) + "}}";
        const RunAnalysis blind = analyse(unread);
        QVERIFY(blind.ranks[0].fp32MatrixCasts && !blind.ranks[0].fp32MatrixCasts->castsRead);
        QVERIFY(!castsNoWeight(*blind.ranks[0].fp32MatrixCasts));
        // Without any matrix product's operands it cannot match a cast to a weight at all.
        const RunAnalysis noGemm = analyse(
            { annotation("ProfilerStep#1", "1000", "1000", false), toCopy("1010", "[64, 64]", "float", "15") });
        QVERIFY(!noGemm.ranks[0].fp32MatrixCasts);
    }

    // Ranks of one job run one program: two ranks that answer differently leave the run's answer open.
    void ranksThatDisagreeTellNothing()
    {
        RankAnalysis casting;
        casting.fp32MatrixCasts = Fp32MatrixCasts { 197, 7, 1024, 1024, 3, true };
        RankAnalysis sixteenBit;
        sixteenBit.fp32MatrixCasts = Fp32MatrixCasts { 0, 0, 0, 0, 3, true };
        sixteenBit.opFlops.recordsShapes = true;
        sixteenBit.opFlops.matrixKernelNs = 1'000'000;
        sixteenBit.opFlops.byPrecision = { { "bf16", GemmPrecision {}, true, 1e15 } };
        QCOMPARE(ranUnderAutocast(casting), std::optional<bool>(true));
        QCOMPARE(ranUnderAutocast(sixteenBit), std::optional<bool>(false));
        QCOMPARE(traceFacts(finishRun({ casting, casting })).autocast, std::optional<bool>(true));
        QVERIFY(!traceFacts(finishRun({ sixteenBit, casting })).autocast);
        QVERIFY(!traceFacts(finishRun({ sixteenBit, casting })).casts);
        // An FP32 run's GEMMs: its weights are no 16-bit ones to call so.
        sixteenBit.opFlops.byPrecision = { { "fp32", GemmPrecision { NumberFormat::FP32 }, true, 1e15 } };
        QVERIFY(!ranUnderAutocast(sixteenBit));
    }

    void realCompiledTrace()
    {
        if (!QDir(QStringLiteral(MFU_SHARED_TRACES_DIR)).exists())
            QSKIP("real traces not found at " MFU_SHARED_TRACES_DIR " (shared/traces is absent in this checkout)");
        // The README beside it: torch.compile, sequence 4,096, micro-batch 8 = 32,768 tokens per step, cuDNN SDPA.
        std::vector<Timeline> t;
        t.push_back(loadTrace(realTrace("pytorch211__h200__qwen3-0.6b-shape_compiled_s4096_mb8.json.gz")));
        const RunAnalysis run = analyzeRun(t, builtInKernelRules());
        const auto& tokens = run.ranks[0].recordedTokens;
        QVERIFY(tokens);
        QCOMPARE(tokens->perStep, 32768.0);
        QCOMPARE(tokens->seqLen, int64_t(4096));
        QCOMPARE(tokens->microBatch, int64_t(8));
        QCOMPARE(tokens->microSteps, int64_t(1));
        QCOMPARE(tokens->stepsCounted, 3);
        const auto mode = executionModeOf(run.ranks);
        QVERIFY(mode && mode->compiled);
        QVERIFY2(mode->inductorShare > 0.9, qPrintable(QString::number(mode->inductorShare)));
        // cuDNN's attention-backward helpers (dO.O, dQ conversion) are attention, not "other".
        int helpers = 0;
        for (const KernelStat& k : run.ranks[0].kernels)
            if (k.name.find("cudnn::fusion::") != std::string::npos) {
                ++helpers;
                QCOMPARE(k.category, KernelCategory::AttentionBwd);
            }
        QCOMPARE(helpers, 2);
        const FileFacts file = factsFromTrace(run);
        QCOMPARE(file.tokensPerStep.value_or(0), 32768.0);
        QCOMPARE(file.compiled, std::optional<bool>(true));
        QCOMPARE(file.attentionKernel, std::optional<AttentionKernel>(AttentionKernel::Cudnn));
        // FP32 weights under autocast: each of the 28 layers' 7 projections and the tied embedding cast to BF16 once a
        // step by Inductor's triton_poi_fused__to_copy_t_* kernels.
        QCOMPARE(run.ranks[0].fp32MatrixCasts->perStep, 197.0);
        QCOMPARE(file.autocast, std::optional<bool>(true));
        // The eager inference trace of TraceLens: one [16, 559] lookup, PyTorch's own kernels.
        std::vector<Timeline> inference;
        inference.push_back(loadTrace(realTrace("tracelens__h100__qwen1.5-0.5b-chat.json.gz")));
        const RunAnalysis eager = analyzeRun(inference, builtInKernelRules());
        QVERIFY(eager.ranks[0].recordedTokens);
        QCOMPARE(eager.ranks[0].recordedTokens->perStep, 16.0 * 559);
        QVERIFY(!executionModeOf(eager.ranks)->compiled);
        // Its BF16 weights are cast nowhere, and its shapes reach its GEMMs: 16-bit weights.
        QCOMPARE(eager.ranks[0].fp32MatrixCasts->perStep, 0.0);
        QCOMPARE(factsFromTrace(eager).autocast, std::optional<bool>(false));
    }
};

QTEST_GUILESS_MAIN(TestTraceFacts)
#include "tst_trace_facts.moc"
