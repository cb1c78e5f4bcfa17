// Numbers as people type them: grouping, exponents and the k/M/B/T suffixes (the command line's flags, files, logs
// and the window's fields parse through the same function); anything else is refused, never half-read ("32k" is not
// 32, "2,50" is not 250, "1e" is not 1).
#include <QTest>

#include "core/number_parse.h"

using namespace mfu;

class TestNumberParse : public QObject {
    Q_OBJECT
private slots:
    void accepts_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<double>("value");
        QTest::newRow("plain") << "8192" << 8192.0;
        QTest::newRow("grouped") << "1,000,000" << 1e6;
        QTest::newRow("grouped fraction") << "2,500.5" << 2500.5;
        QTest::newRow("underscore") << "1_000_000" << 1e6;
        QTest::newRow("exponent") << "2.5e9" << 2.5e9;
        QTest::newRow("log exponent") << "1.9185E+04" << 19185.0;
        QTest::newRow("2^32+8") << "4294967304" << 4294967304.0; // the caller bounds it; never wrapped to 8
        QTest::newRow("32k") << "32k" << 32000.0;
        QTest::newRow("32K") << "32K" << 32000.0;
        QTest::newRow("1.5M") << "1.5M" << 1.5e6;
        QTest::newRow("8B") << "8B" << 8e9;
        QTest::newRow("70G") << "70G" << 70e9;
        QTest::newRow("15T") << "15T" << 15e12;
        QTest::newRow("plus") << "+3" << 3.0;
        QTest::newRow("negative") << "-0.5" << -0.5; // the caller bounds the range
        QTest::newRow("1e30") << "1e30" << 1e30;
    }
    void accepts()
    {
        QFETCH(QString, text);
        QFETCH(double, value);
        const auto v = parseQuantity(text.toStdString());
        QVERIFY2(v.has_value(), qPrintable(text));
        QCOMPARE(*v, value);
    }

    void refuses_data()
    {
        QTest::addColumn<QString>("text");
        for (const char* t : { "", " ", "k", "abc", "32kk", "3.2.1", "1e400", "inf", "nan", "0x10", "12 tokens", "1e",
                 "1e+", " 8", "8 ", "8 GPUs", "2,50", "2,5", "1,0000", "1,000_000", ",000", "1,,000", "-", ".", "e5",
                 "2,500" }) // "2,500": 2500, or 2.5 with a decimal comma? Refused on the command line
            QTest::newRow(t) << QString::fromLatin1(t);
    }
    void refuses()
    {
        QFETCH(QString, text);
        QVERIFY2(!parseQuantity(text.toStdString()).has_value(), qPrintable(text));
        QVERIFY2(!parseSequenceLength(text.toStdString()).has_value(), qPrintable(text));
    }

    // Sequence lengths: a 32k context is 32,768 tokens, a 1M context 1,048,576; plain numbers as parseQuantity.
    void sequenceLengths_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<double>("value");
        QTest::newRow("8k") << "8k" << 8192.0;
        QTest::newRow("32K") << "32K" << 32768.0;
        QTest::newRow("1.5k") << "1.5k" << 1536.0;
        QTest::newRow("1M") << "1M" << 1048576.0;
        QTest::newRow("plain") << "8192" << 8192.0;
        QTest::newRow("grouped") << "1,048,576" << 1048576.0;
        QTest::newRow("exponent") << "3.2e4" << 32000.0;
    }
    void sequenceLengths()
    {
        QFETCH(QString, text);
        QFETCH(double, value);
        const auto v = parseSequenceLength(text.toStdString());
        QVERIFY2(v.has_value(), qPrintable(text));
        QCOMPARE(*v, value);
    }

    // The window's fields and a training log's figures: a single ',' group ("21,111", Python's f"{n:,}") and the
    // locale's spaces are read there, where the text is the window's own display or a program's output.
    void lenient_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<double>("value");
        QTest::newRow("one group") << "21,111" << 21111.0;
        QTest::newRow("spaces") << " 8 192 " << 8192.0;
        QTest::newRow("narrow nbsp") << QStringLiteral("8\u202F192") << 8192.0;
        QTest::newRow("spaced suffix") << "1.294 B" << 1.294e9;
    }
    void lenient()
    {
        QFETCH(QString, text);
        QFETCH(double, value);
        const auto v = parseQuantity(text.toStdString(), NumberText::Lenient);
        QVERIFY2(v.has_value(), qPrintable(text));
        QCOMPARE(*v, value);
        QCOMPARE(parseSequenceLength(" 128 k ", NumberText::Lenient).value_or(0), 131072.0);
        for (const char* bad : { "2,50", "8 GPUs", "1,000 000", "1e", "12 tokens" })
            QVERIFY2(!parseQuantity(bad, NumberText::Lenient), bad);
    }

    // Why a text is no number: past a double's range only for one written well (the parser's own grammar, so a hex
    // float or an underflow is not called that), the syntax rules otherwise.
    void refusalReasons()
    {
        const std::string past = "past the largest number a double holds, about 1.8e308";
        QCOMPARE(numberRefusalReason("1e400"), past);
        QCOMPARE(numberRefusalReason("-1E+400"), past);
        QCOMPARE(numberRefusalReason("2e308k"), past); // finite, then past the range once scaled
        QCOMPARE(numberRefusalReason("1e-400"), std::string(kNumberSyntaxHint));
        QCOMPARE(numberRefusalReason("0x1p99999"), std::string(kNumberSyntaxHint));
        QCOMPARE(numberRefusalReason("abc"), std::string(kNumberSyntaxHint));
        QVERIFY(!parseQuantity("1e400"));
    }
};

QTEST_GUILESS_MAIN(TestNumberParse)
#include "tst_number_parse.moc"
