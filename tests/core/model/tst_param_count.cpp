// Parameter counts against published totals (each model's safetensors index / model card).
#include <QtTest>

#include "core/model/param_count.h"
#include "model_fixtures.h"

using namespace mfu;

Q_DECLARE_METATYPE(mfu::ModelSpec)

class TestParamCount : public QObject {
    Q_OBJECT
private slots:
    void publishedTotals_data()
    {
        QTest::addColumn<ModelSpec>("spec");
        QTest::addColumn<qint64>("total");
        QTest::addColumn<qint64>("embedding");
        QTest::addColumn<qint64>("active");
        QTest::newRow("Llama 3.1 8B") << test::llama31_8b() << qint64(8'030'261'248) << qint64(525'336'576)
                                      << qint64(8'030'261'248);
        QTest::newRow("Llama 3.1 70B") << test::llama31_70b() << qint64(70'553'706'496) << qint64(1'050'673'152)
                                       << qint64(70'553'706'496);
        QTest::newRow("Llama 3.1 405B") << test::llama31_405b() << qint64(405'853'388'800) << qint64(2'101'346'304)
                                        << qint64(405'853'388'800);
        QTest::newRow("Mixtral 8x7B") << test::mixtral_8x7b() << qint64(46'702'792'704) << qint64(131'072'000)
                                      << qint64(12'879'925'248);
        // GPT-2 small: tied LM head; wte + wpe are the embedding.
        QTest::newRow("GPT-2 124M") << test::gpt2_small() << qint64(124'439'808) << qint64(39'383'808)
                                    << qint64(124'439'808);
        QTest::newRow("B200 scaling report LLaMA 1.36B")
            << test::llama_1_36b() << qint64(1'294'159'104) << qint64(73'728'000) << qint64(1'294'159'104);
    }
    void publishedTotals()
    {
        QFETCH(ModelSpec, spec);
        QFETCH(qint64, total);
        QFETCH(qint64, embedding);
        QFETCH(qint64, active);
        const ParameterCounts c = countParameters(spec);
        QCOMPARE(c.total, total);
        QCOMPARE(c.embedding, embedding);
        QCOMPARE(c.nonEmbedding, total - embedding);
        QCOMPARE(c.active, active);
        QCOMPARE(c.activeNonEmbedding, active - embedding);
        QCOMPARE(c.embedding + c.lmHead + c.attention + c.ffn + c.norms, c.total);
    }

    void untiedHeadIsNotEmbedding()
    {
        ModelSpec m = test::llama31_8b();
        const ParameterCounts untied = countParameters(m);
        QCOMPARE(untied.lmHead, qint64(525'336'576));
        m.tiedEmbeddings = true;
        const ParameterCounts tied = countParameters(m);
        QCOMPARE(tied.lmHead, qint64(0));
        QCOMPARE(tied.total, untied.total - 525'336'576);
        QCOMPARE(tied.embedding, untied.embedding);
    }

    void qkvBiasAddsQueryAndKeyValueWidths()
    {
        ModelSpec m = test::llama31_8b();
        const qint64 base = countParameters(m).total;
        m.qkvBias = true;
        // Per layer: q bias (32 x 128) + k and v biases (2 x 8 x 128).
        QCOMPARE(countParameters(m).total - base, qint64(32) * (4096 + 2 * 1024));
    }

    void bareModelIsItsCount()
    {
        const ParameterCounts c = countParameters(bareModel(7'000'000'000));
        QCOMPARE(c.total, qint64(7'000'000'000));
        QCOMPARE(c.active, qint64(7'000'000'000));
        QCOMPARE(c.embedding, qint64(0));
    }

    void validationNamesTheField()
    {
        ModelSpec m = test::llama31_8b();
        m.kvHeads = 5; // 32 heads are not a multiple of 5
        try {
            validateModelSpec(m);
            QFAIL("expected an InputError");
        } catch (const std::exception& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("key/value heads")), e.what());
        }
        QVERIFY_THROWS_EXCEPTION(std::exception, bareModel(0));
    }
};

QTEST_GUILESS_MAIN(TestParamCount)
#include "tst_param_count.moc"
