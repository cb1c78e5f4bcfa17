// Pipeline layouts as frameworks write them (core/scenario/pipeline_layout.h): Megatron's layout strings, torchtitan's
// per-stage splits, Megatron's first/last-stage counts and embedding/loss switches, and what each pipeline rank holds.
#include <QtTest>

#include "core/errors.h"
#include "core/scenario/pipeline_layout.h"

using namespace mfu;

class TestPipelineLayout : public QObject {
    Q_OBJECT
private slots:
    // Megatron-Core's DeepSeek-V3 layout: E + 3 layers, 29 stages of 2 layers, the MTP layer, and the loss alone.
    void megatronDeepSeekV3Layout()
    {
        const std::vector<PipelineChunk> c = parsePipelineLayout("Et*3|(tt|)*29m|L");
        QCOMPARE(c.size(), size_t(32));
        QVERIFY(c.front() == (PipelineChunk { 3, 0, true, false }));
        for (size_t i = 1; i <= 29; ++i)
            QVERIFY(c[i] == (PipelineChunk { 2, 0, false, false }));
        QVERIFY(c[30] == (PipelineChunk { 0, 1, false, false }));
        QVERIFY(c[31] == (PipelineChunk { 0, 0, false, true }));
        // Written back compressed, and read again to the same stages; commas and spaces are ignored.
        const std::string text = pipelineLayoutText(c);
        QCOMPARE(text, std::string("Et*3|(tt|)*29m|L"));
        QVERIFY(parsePipelineLayout(text) == c);
        QVERIFY(parsePipelineLayout("Et*3|(tt|)*29, m|L") == c);
        // As PP 8 x VPP 4: rank 0 holds virtual stages 0, 8, 16, 24 (E + 3 + 2 + 2 + 2 layers); rank 7 the last.
        Parallelism p;
        p.pp = 8;
        p.virtualStages = 4;
        p.pipelineLayout = c;
        QCOMPARE(pipelineLayoutProblem(p, 61, 1), nullptr);
        const StageLoad first = stageLoad(p, 61, 1, 0);
        QCOMPARE(first.layers, 9);
        QVERIFY(first.embedding && !first.loss);
        const StageLoad last = stageLoad(p, 61, 1, 7);
        QCOMPARE(last.layers, 6);
        QVERIFY(last.loss);
        QCOMPARE(stageLoad(p, 61, 1, 6).mtpLayers, 1);
    }

    void badLayoutsAreNamed_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("unclosed group") << "Et*3|(tt|*29m|L"
                                        << "'(' without its ')'";
        QTest::newRow("stray close") << "Ett)|L"
                                     << "')' without its '('";
        QTest::newRow("unknown item") << "Et*3|x|L"
                                      << "'x' is not a layout item";
        QTest::newRow("repeat without count") << "Et*|L"
                                              << "whole number";
        QTest::newRow("huge repeat") << "E(t|)*100000000L"
                                     << "too long";
        QTest::newRow("two embeddings") << "EEt|L"
                                        << "embedding appears twice";
        QTest::newRow("empty") << ""
                               << "empty";
    }
    void badLayoutsAreNamed()
    {
        QFETCH(QString, text);
        QFETCH(QString, mentions);
        try {
            parsePipelineLayout(text.toStdString());
            QFAIL("no error");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(mentions), e.what());
        }
    }

    void layoutsThatDoNotFitTheModel()
    {
        Parallelism p;
        p.pp = 4;
        p.pipelineLayout = parsePipelineLayout("Et*10|t*12|t*12|t*9mL"); // DeepSeek-V4-Flash on Primus
        QCOMPARE(pipelineLayoutProblem(p, 43, 1), nullptr);
        QVERIFY(QString(pipelineLayoutProblem(p, 44, 1)).contains("model's layers"));
        QVERIFY(QString(pipelineLayoutProblem(p, 43, 0)).contains("MTP"));
        p.pp = 2;
        QVERIFY(QString(pipelineLayoutProblem(p, 43, 1)).contains("pp x virtual stages"));
        p.pp = 4;
        p.pipelineLayout = parsePipelineLayout("t*10|Et*12|t*12|t*9mL");
        QVERIFY(QString(pipelineLayoutProblem(p, 43, 1)).contains("first stage"));
        p.pipelineLayout = parsePipelineLayout("Et*10|t*12|t*12L|t*9m");
        QVERIFY(QString(pipelineLayoutProblem(p, 43, 1)).contains("last stage"));
        p.pipelineLayout = parsePipelineLayout("Et*10|t*12|t*12|t*9mL");
        p.firstStageLayers = 3;
        QVERIFY(QString(pipelineLayoutProblem(p, 43, 1)).contains("drop the first/last"));
    }

    // A refusal says the figures that break it, so the user need not count the layout's layers by hand (issue 35:
    // "must add up to the model's layers" when they add up to 62 of 61).
    void refusalsCarryTheirFigures()
    {
        Parallelism p;
        p.pp = 4;
        p.pipelineLayout = parsePipelineLayout("Et*16|t*16|t*16|t*14mL"); // 62 layers for a 61-layer model
        std::string figures;
        QVERIFY(pipelineLayoutProblem(p, 61, 1, &figures) != nullptr);
        QCOMPARE(QString::fromStdString(figures), QStringLiteral("they add up to 62 of 61"));
        QVERIFY(pipelineLayoutProblem(p, 62, 0, &figures) != nullptr);
        QCOMPARE(QString::fromStdString(figures), QStringLiteral("it has 1, the model 0"));
        p.pp = 2;
        QVERIFY(pipelineLayoutProblem(p, 62, 1, &figures) != nullptr);
        QCOMPARE(QString::fromStdString(figures), QStringLiteral("it has 4, pp x virtual stages is 2"));
    }

    // torchtitan's per-stage splits: the embedding first, the loss and MTP layers last.
    void torchtitanStageSplits()
    {
        const std::vector<PipelineChunk> c = pipelineLayoutFromStageLayers(parseStageLayers("4, 8,8,4"), 1);
        QCOMPARE(c.size(), size_t(4));
        QVERIFY(c.front().embedding && c.back().loss && c.back().mtpLayers == 1);
        QCOMPARE(pipelineLayoutText(c), std::string("Et*4|t*8|t*8|t*4mL"));
        QVERIFY_THROWS_EXCEPTION(InputError, parseStageLayers("4,x,8"));
        QVERIFY_THROWS_EXCEPTION(InputError, parseStageLayers("4,,8"));
    }

    // Megatron's --decoder-first/last-pipeline-num-layers: the other ranks split the rest, the earlier taking one more.
    void firstAndLastStageLayers()
    {
        Parallelism p;
        p.pp = 4;
        p.firstStageLayers = 5;
        p.lastStageLayers = 4;
        QVERIFY(hasUnevenPipeline(p));
        QCOMPARE(pipelineLayoutProblem(p, 32, 0), nullptr);
        QCOMPARE(stageLoad(p, 32, 0, 0).layers, 5);
        QCOMPARE(stageLoad(p, 32, 0, 1).layers, 12); // 23 over ranks 1 and 2: 12 and 11
        QCOMPARE(stageLoad(p, 32, 0, 2).layers, 11);
        QCOMPARE(stageLoad(p, 32, 2, 3).layers, 4);
        QCOMPARE(stageLoad(p, 32, 2, 3).mtpLayers, 2);
        QVERIFY(stageLoad(p, 32, 0, 3).loss && stageLoad(p, 32, 0, 0).embedding);
        QVERIFY(QString(pipelineLayoutProblem(p, 8, 0)).contains("exceed"));
        p.pp = 1;
        QVERIFY(QString(pipelineLayoutProblem(p, 32, 0)).contains("pp > 1"));
    }

    // --account-for-embedding/loss-in-pipeline-split: Qwen3-235B's 94 layers over PP 32 x VPP 3 as 96 slots, the
    // embedding and the loss on stages of their own.
    void embeddingAndLossInTheSplit()
    {
        Parallelism p;
        p.pp = 32;
        p.virtualStages = 3;
        p.embeddingStage = true;
        p.lossStage = true;
        QCOMPARE(pipelineLayoutProblem(p, 94, 0), nullptr);
        QCOMPARE(stageLoad(p, 94, 0, 0).layers, 2); // virtual stages 0 (the embedding alone), 32 and 64
        QCOMPARE(stageLoad(p, 94, 0, 31).layers, 2); // 31, 63 and 95 (the loss alone)
        QCOMPARE(stageLoad(p, 94, 0, 5).layers, 3);
        int total = 0;
        for (int r = 0; r < 32; ++r)
            total += stageLoad(p, 94, 0, r).layers;
        QCOMPARE(total, 94);
        QVERIFY(QString(pipelineLayoutProblem(p, 93, 0)).contains("fewer"));
    }
};

QTEST_GUILESS_MAIN(TestPipelineLayout)
#include "tst_pipeline_layout.moc"
