// Packed sequences and padding: FLOP/token for a packed batch of known document lengths, derived by hand, the
// effective attention length sum(d^2)/sum(d), padding in MFU and HFU, and the inputs that must be refused.
#include <QtTest>
#include <sys/stat.h>

#include "core/errors.h"
#include "core/model/flops.h"
#include "core/model/mfu.h"
#include "core/model/packing.h"
#include "model_fixtures.h"

using namespace mfu;

namespace {
// One 8,192-token sequence packed with two documents of 1,024, one of 2,048 and one of 4,096 tokens.
SequencePacking fourDocuments()
{
    SequencePacking p;
    p.documents = { { 1024, 2 }, { 2048, 1 }, { 4096, 1 } };
    return p;
}
} // namespace

class TestPacking : public QObject {
    Q_OBJECT
private slots:
    void effectiveAttentionLengthIsSumOfSquaresOverSum()
    {
        // (2 x 1024^2 + 2048^2 + 4096^2) / 8192 = 23,068,672 / 8192 = 2816
        QCOMPARE(effectiveAttentionLength(fourDocuments(), 8192), 2816.0);
        QCOMPARE(meanDocumentLength(fourDocuments(), 8192), 2048.0);
        // Unpacked, or attention spanning the packed sequence: the sequence length.
        QCOMPARE(effectiveAttentionLength(SequencePacking {}, 8192), 8192.0);
        SequencePacking whole = fourDocuments();
        whole.attention = PackedAttention::WholeSequence;
        QCOMPARE(effectiveAttentionLength(whole, 8192), 8192.0);
    }

    void palmPerDocumentAndOverPackingLength()
    {
        // Llama 3.1 8B: 6 (N - N_emb) = 45,029,548,032; 12 L H Q = 12 x 32 x 32 x 128 = 1,572,864.
        const FlopsPerToken f = countFlopsPerToken(test::llama31_8b(), 8192, fourDocuments());
        QCOMPARE(f.effectiveAttentionLength, 2816.0);
        QCOMPARE(*f.palm, 45'029'548'032.0 + 1'572'864.0 * 2816); // 49,458,733,056
        QVERIFY(f.palmOverPackingLength.has_value());
        QCOMPARE(*f.palmOverPackingLength, 57'914'449'920.0); // the unpacked S = 8192 figure
        // Unpacked: no second figure, and the published worked example unchanged.
        const FlopsPerToken plain = countFlopsPerToken(test::llama31_8b(), 8192, SequencePacking {});
        QVERIFY(!plain.palmOverPackingLength);
        QCOMPARE(*plain.palm, 57'914'449'920.0);
    }

    void perComponentAttentionPerDocument()
    {
        // Forward attention core per layer and token: 2 x span x H x (Q_qk + Q_v) = 2 x span x 32 x 256; 32 layers;
        // training = 3 x forward. Full square: span 2816 instead of 8192. Causal: d/2 per document, 1408 vs 4096.
        const ModelSpec m = test::llama31_8b();
        const FlopsPerToken packed = countFlopsPerToken(m, 8192, fourDocuments());
        const FlopsPerToken plain = countFlopsPerToken(m, 8192);
        const double perKey = 3.0 * 32 * 2.0 * 32 * 256;
        QCOMPARE(*plain.perComponent - *packed.perComponent, perKey * (8192 - 2816));
        QCOMPARE(*plain.perComponentCausal - *packed.perComponentCausal, perKey * (4096 - 1408));
        // The linear matmuls do not care how the sequence is packed.
        QCOMPARE(packed.forward.ffn, plain.forward.ffn);
        QCOMPARE(packed.forward.qkvProjection, plain.forward.qkvProjection);
        QCOMPARE(packed.sixN, plain.sixN);
    }

    void slidingWindowPerDocument()
    {
        // A sliding window of 2048 on every layer: full-square span per document min(d, 2048), weighted by tokens:
        // (2 x 1024 x 1024 + 2048 x 2048 + 4096 x 2048) / 8192 = 14,680,064 / 8192 = 1792
        ModelSpec m = test::llama31_8b();
        m.slidingWindow = 2048; // every layer sliding-window (no layer pattern)
        const ForwardComponents packed = forwardComponents(m, attentionDocuments(fourDocuments(), 8192));
        const double span = (2.0 * 1024 * 1024 + 2048.0 * 2048 + 4096.0 * 2048) / 8192;
        QCOMPARE(span, 1792.0);
        QCOMPARE(packed.attentionScores, 32 * 2.0 * span * 32 * 128);
    }

    void meanOnlyTakesEqualDocuments()
    {
        SequencePacking p;
        p.documents = { { 2048, 1 } };
        p.meanOnly = true;
        const FlopsPerToken f = countFlopsPerToken(test::llama31_8b(), 8192, p);
        QCOMPARE(f.effectiveAttentionLength, 2048.0);
        QCOMPARE(*f.palm, 45'029'548'032.0 + 1'572'864.0 * 2048);
    }

    void paddingCountsUsefulTokensInMfuAndProcessedInHfu()
    {
        HardwareSpec h;
        h.id = "test";
        h.peakDenseFlops[static_cast<size_t>(NumberFormat::BF16)] = 1e15;
        const MfuResult r = computeMfu(50e9, 10e9, 10'000, 8, h, TrainingPrecision::BF16, 0.75);
        QCOMPARE(r.usefulTokensPerSecPerGpu, 7'500.0);
        QCOMPARE(r.mfu, 50e9 * 7'500 / 1e15); // 37.5%
        QCOMPARE(r.hfu, 60e9 * 10'000 / 1e15); // 60%
        QCOMPARE(r.tokensPerSecPerGpu, 10'000.0);
        QVERIFY_THROWS_EXCEPTION(InputError, computeMfu(50e9, 0, 10'000, 8, h, TrainingPrecision::BF16, 0.0));
    }

    void refusesImpossiblePacking()
    {
        SequencePacking p;
        p.documents = { { 16384, 1 } };
        QVERIFY_THROWS_EXCEPTION(InputError, validatePacking(p, 8192)); // longer than the packing length
        p.documents = { { 0, 1 } };
        QVERIFY_THROWS_EXCEPTION(InputError, validatePacking(p, 8192));
        p.documents = { { 1024, -1 } };
        QVERIFY_THROWS_EXCEPTION(InputError, validatePacking(p, 8192));
        p.documents = { { 1024, 0 } };
        QVERIFY_THROWS_EXCEPTION(InputError, validatePacking(p, 8192)); // no documents at all
        p = {};
        p.paddingFraction = 1.0;
        QVERIFY_THROWS_EXCEPTION(InputError, validatePacking(p, 8192));
        p.paddingFraction = -0.1;
        QVERIFY_THROWS_EXCEPTION(InputError, validatePacking(p, 8192));
        try {
            SequencePacking longDoc;
            longDoc.documents = { { 100000, 1 } };
            validatePacking(longDoc, 81920);
            QFAIL("expected an error");
        } catch (const InputError& e) {
            QVERIFY(std::string(e.what()).find("exceeds the packing length 81920") != std::string::npos);
        }
    }

    void parsesDocumentLengthFiles()
    {
        auto bins = parseDocumentLengths("[1024, 1024, 2048, 4096]", "a.json");
        QCOMPARE(bins.size(), size_t(3));
        QCOMPARE(bins[0].length, int64_t(1024));
        QCOMPARE(bins[0].count, 2.0);
        bins = parseDocumentLengths("[[1024, 2], [4096, 1]]", "b.json");
        QCOMPARE(bins.size(), size_t(2));
        QCOMPARE(bins[1].count, 1.0);
        bins = parseDocumentLengths("{\"1024\": 2, \"2048\": 1}", "c.json");
        QCOMPARE(bins[0].count, 2.0);
        bins = parseDocumentLengths("length,count\r\n1024,2\n2048,1\n\n# comment\n4096\n", "d.csv");
        QCOMPARE(bins.size(), size_t(3));
        QCOMPARE(bins[2].length, int64_t(4096));
        QCOMPARE(bins[2].count, 1.0);
        bins = parseDocumentLengths("1.024e3, 2\n4096 ; 1\n", "e.csv"); // E notation, spaces around cells
        QCOMPARE(bins[0].length, int64_t(1024));
        QCOMPARE(bins[0].count, 2.0);
        // A UTF-8 byte-order mark first (a Windows editor's): the first length was taken for a header and skipped.
        bins = parseDocumentLengths("\xEF\xBB\xBF"
                                    "1000\n2000\n3000\n",
            "bom.txt");
        QCOMPARE(bins.size(), size_t(3));
        QCOMPARE(bins[0].length, int64_t(1000));
        bins = parseDocumentLengths("\xEF\xBB\xBF[1000, 2000]", "bom.json");
        QCOMPARE(bins.size(), size_t(2));
        for (const char* bad : { "", "   ", "[]", "[1.5]", "[-3]", "[[1, 2, 3]]", "{\"x\": 1}", "1024\nabc\n",
                 "1024,2,3\n", "[1024", "\"text\"", "1024,-1\n", "[1e300]", "[[1000000000000, 1e300]]",
                 // strtod's forms are not numbers here: infinities, hex, a trailing exponent marker
                 "1024\ninf\n", "1024,inf\n", "0x400\n", "1024\n1e\n", "{\"inf\": 1}", "{\" 1024\": 1}" }) {
            try {
                parseDocumentLengths(bad, "lengths.txt");
                QFAIL(qPrintable(QStringLiteral("accepted: %1").arg(QString::fromLatin1(bad))));
            } catch (const InputError& e) {
                QVERIFY(std::string(e.what()).find("lengths.txt") != std::string::npos);
            }
        }
    }

    // The file reader both the command line (--doc-lengths) and the window use: a regular file's lengths; a FIFO, a
    // folder, a missing file and one above 64 MiB refused by name, without blocking or reading it whole.
    void readsDocumentLengthFiles()
    {
        QTemporaryDir dir;
        const QString csv = dir.filePath(QStringLiteral("lengths.csv"));
        QFile file(csv);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("length,count\n1024,16\n8192,2\n");
        file.close();
        const auto bins = documentLengthsFromFile(QFile::encodeName(csv).toStdString());
        QCOMPARE(bins.size(), size_t(2));
        QCOMPARE(bins[1].length, int64_t(8192));
        QCOMPARE(bins[0].count, 16.0);

        const QString fifo = dir.filePath(QStringLiteral("lengths.fifo"));
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        const QString large = dir.filePath(QStringLiteral("large.csv"));
        QFile sparse(large);
        QVERIFY(sparse.open(QIODevice::WriteOnly));
        QVERIFY(sparse.resize(qint64(kMaxDocumentLengthsFileBytes) + 1)); // sparse: no disk used
        sparse.close();
        const struct {
            QString path;
            const char* says;
        } refused[] = { { fifo, "FIFO" }, { dir.path(), "is a folder" },
            { dir.filePath(QStringLiteral("missing.csv")), "cannot be opened" },
            { large, "give a histogram of lengths" } };
        for (const auto& r : refused) {
            try {
                documentLengthsFromFile(QFile::encodeName(r.path).toStdString());
                QFAIL(qPrintable(QStringLiteral("accepted %1").arg(r.path)));
            } catch (const InputError& e) {
                const QString what = QString::fromStdString(e.what());
                QVERIFY2(what.contains(r.path) && what.contains(QLatin1String(r.says)), qPrintable(what));
            }
        }
    }

    void longDocumentsAreSplitWhenThePackingLengthShrinks()
    {
        // Packed to 2,048: the 4,096 document becomes two of 2,048; tokens kept (2 x 1024 + 2048 + 4096 = 8192).
        const SequencePacking p = packedInto(fourDocuments(), 2048);
        QCOMPARE(p.documents.size(), size_t(2));
        QCOMPARE(p.documents[0].length, int64_t(1024));
        QCOMPARE(p.documents[0].count, 2.0);
        QCOMPARE(p.documents[1].length, int64_t(2048));
        QCOMPARE(p.documents[1].count, 3.0);
        QVERIFY(!packingProblem(p, 2048));
        QVERIFY(packingProblem(fourDocuments(), 2048)); // unsplit, the 4,096 document does not fit
        std::string figures; // and the refusal says by how much (issue 35)
        QVERIFY(packingProblem(fourDocuments(), 2048, &figures));
        QCOMPARE(QString::fromStdString(figures), QStringLiteral("4,096 tokens, sequence 2,048"));
        // A remainder: 5,000 into 2,048 = 2 x 2,048 + 904.
        SequencePacking odd;
        odd.documents = { { 5000, 1 } };
        const SequencePacking split = packedInto(odd, 2048);
        QCOMPARE(split.documents.size(), size_t(2));
        QCOMPARE(split.documents[0].length, int64_t(904));
        QCOMPARE(split.documents[1].count, 2.0);
    }

    void keys()
    {
        PackedAttention a = PackedAttention::WholeSequence;
        QVERIFY(packedAttentionFromKey("varlen", a));
        QCOMPARE(a, PackedAttention::PerDocument);
        QVERIFY(packedAttentionFromKey("packed", a));
        QCOMPARE(a, PackedAttention::WholeSequence);
        QVERIFY(!packedAttentionFromKey("sometimes", a));
        QCOMPARE(packedAttentionKey(PackedAttention::PerDocument), std::string_view("document"));
    }
};

QTEST_APPLESS_MAIN(TestPacking)
#include "tst_packing.moc"
