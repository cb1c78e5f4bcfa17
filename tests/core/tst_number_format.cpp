// Human-readable numbers (core/number_format.h): separators, decimals, the one percent format, huge magnitudes.
#include <QtTest>

#include <cfloat>
#include <cmath>

#include "core/number_format.h"
#include "core/text.h"

using namespace mfu;

class TestNumberFormat : public QObject {
    Q_OBJECT
private slots:
    void grouping()
    {
        QCOMPARE(formatNumber(1222.6, 0), std::string("1,223"));
        QCOMPARE(formatNumber(-21111.25, 1), std::string("-21,111.2"));
        QCOMPARE(formatNumber(999, 0), std::string("999"));
        QCOMPARE(formatNumber(-0.001, 1), std::string("0.0")); // no "-0.0"
    }

    void hugeNumbersKeepEveryDigit()
    {
        // 2^210 = 1.6e63 is exact in a double and has 64 digits: with a 64-byte buffer "%.2f" was cut short (64 digits
        // + ".00" + NUL do not fit) and the grouping placed commas in the wrong digits.
        QCOMPARE(formatNumber(std::ldexp(1.0, 210), 2),
            std::string("1,645,504,557,321,206,042,154,969,182,557,350,504,982,735,865,633,579,863,348,609,024.00"));
        // DBL_MAX: 309 integer digits, grouped in threes (103 groups, 102 commas).
        const std::string max = formatNumber(DBL_MAX, 0);
        QCOMPARE(max.size(), size_t(309 + 102));
        QCOMPARE(max.substr(0, 7), std::string("179,769"));
    }

    void bytesAndDurations()
    {
        QCOMPARE(formatGiB(80e9), std::string("74.5 GiB"));
        QCOMPARE(formatGiB(4096.0 * 1024 * 1024 * 1024, 0), std::string("4,096 GiB"));
        QCOMPARE(formatMilliseconds(0.007125), std::string("7.125 ms"));
        QCOMPARE(formatMilliseconds(0.11561), std::string("115.6 ms"));
        QCOMPARE(formatSeconds(22.03), std::string("22.030 s"));
        QCOMPARE(formatCount(1, "GPU"), std::string("1 GPU"));
        QCOMPARE(formatCount(1024, "GPU"), std::string("1,024 GPUs"));
    }

    void parametersAsModelCardsWriteThem()
    {
        QCOMPARE(formatParameters(11'840'000.0), std::string("11.8M"));
        QCOMPARE(formatParameters(8'030'261'248.0), std::string("8.03B"));
        QCOMPARE(formatParameters(405e9), std::string("405B"));
        QCOMPARE(formatParameters(1.03e12), std::string("1.03T"));
        QCOMPARE(formatParameters(512.0), std::string("512"));
    }

    void percentHasTwoDecimals()
    {
        QCOMPARE(formatPercent(0.54339), std::string("54.34%"));
        QCOMPARE(formatPercent(1.7568), std::string("175.68%"));
        QCOMPARE(formatPercent(0.0), std::string("0.00%"));
    }

    // The one TFLOPS rule (issue 34: four local formatters had three rules): one decimal, two below 10 TFLOPS.
    void tflopsOneRule()
    {
        QCOMPARE(formatTflops(1222.64e12), std::string("1,222.6 TFLOPS"));
        QCOMPARE(formatTflops(989e12), std::string("989.0 TFLOPS"));
        QCOMPARE(formatTflops(10e12), std::string("10.0 TFLOPS"));
        QCOMPARE(formatTflops(4.254e12), std::string("4.25 TFLOPS"));
        QCOMPARE(formatTflopsValue(312e12), std::string("312.0"));
        QCOMPARE(formatTflopsValue(0.5e12), std::string("0.50"));
    }

    // A list as a sentence says it, the one wording the diagnosis and the rank checks share.
    void listsInWords()
    {
        QCOMPARE(listInWords({}), std::string());
        QCOMPARE(listInWords({ "a.json" }), std::string("a.json"));
        QCOMPARE(listInWords({ "a.json", "b.json" }), std::string("a.json and b.json"));
        QCOMPARE(listInWords({ "H100", "H200", "H800" }, "or"), std::string("H100, H200 or H800"));
    }

    // A user's value in an error message: whole up to 80 bytes, else its two ends and its length in characters,
    // never cutting a UTF-8 character (the 2-byte 'é' either side of the cut).
    void quotedForMessages()
    {
        QCOMPARE(quotedForMessage("llama"), std::string("'llama'"));
        QCOMPARE(quotedForMessage(std::string(80, 'x')), "'" + std::string(80, 'x') + "'");
        QCOMPARE(quotedForMessage(std::string(100000, 'a')),
            "'" + std::string(36, 'a') + "\u2026" + std::string(36, 'a') + "' (100,000 characters)");
        std::string accents = "a";
        for (int i = 0; i < 50; ++i)
            accents += "\u00e9";
        accents += "b"; // 102 bytes: byte 36 and byte 66 are each the second byte of an 'é'
        const std::string quoted = quotedForMessage(accents);
        QVERIFY(QString::fromUtf8(quoted.c_str()).toUtf8() == QByteArray(quoted.c_str())); // valid UTF-8
        QCOMPARE(quoted, "'" + accents.substr(0, 35) + "\u2026" + accents.substr(67) + "' (52 characters)");
    }
};

QTEST_GUILESS_MAIN(TestNumberFormat)
#include "tst_number_format.moc"
