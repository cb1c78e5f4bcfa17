// Why a document is not JSON, as every reader says it (core/io/json_errors.h): where the parser stopped, without
// nlohmann's tag, and a cut-off or empty file named as such.
#include <QtTest>

#include <nlohmann/json.hpp>

#include <string>

#include "core/io/json_errors.h"

using namespace mfu;

namespace {
std::string problemOf(const std::string& text)
{
    try {
        const nlohmann::json parsed = nlohmann::json::parse(text);
        return "parsed: " + parsed.dump();
    } catch (const nlohmann::json::parse_error& e) {
        return jsonParseProblem(e, text.size());
    }
}
} // namespace

class TestJsonErrors : public QObject {
    Q_OBJECT
private slots:
    void emptyFile() { QCOMPARE(problemOf(""), std::string("not valid JSON: the file is empty (0 bytes)")); }

    // Cut off in a key: where, what the parser met, and that the file ends there.
    void cutOffFile()
    {
        const std::string problem = problemOf("{\"model_type\": \"llama\", \"hidden_si");
        QVERIFY2(
            problem.starts_with("not valid JSON at byte 35: syntax error while parsing object key"), problem.c_str());
        QVERIFY2(problem.ends_with("; the file ends there, so it is probably truncated (an interrupted download, "
                                   "copy or write)"),
            problem.c_str());
        QVERIFY(problem.find("[json.exception") == std::string::npos);
    }

    // A mistake in the middle is not called a truncation.
    void malformedInTheMiddle()
    {
        const std::string problem = problemOf("{\"a\": 1,, \"b\": 2}");
        QVERIFY2(problem.starts_with("not valid JSON at byte 9: "), problem.c_str());
        QVERIFY2(problem.find("truncated") == std::string::npos, problem.c_str());
    }
};

QTEST_GUILESS_MAIN(TestJsonErrors)
#include "tst_json_errors.moc"
