// Why a document is not JSON, as every reader says it (core/io/json_errors.h): where the parser stopped, without
// nlohmann's tag, and a cut-off or empty file named as such.
#include <QtTest>

#include <nlohmann/json.hpp>

#include <string>

#include "core/errors.h"
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

    // A key named twice in one object is refused with the key (nlohmann kept the last value silently: a report
    // with "gpu" twice was diagnosed on the second GPU); the same key in two objects, or in an array's objects, is
    // fine. Syntax errors read as before, with the source first.
    void keyTwiceInOneObject()
    {
        const auto errorOf = [](const std::string& text) {
            try {
                parseJsonDocument(text, "run.json");
                return std::string();
            } catch (const mfu::InputError& e) {
                return std::string(e.what());
            }
        };
        const std::string twice = errorOf(R"({"gpu": "h100-sxm", "gpus": 8, "gpu": "a100-sxm-80gb"})");
        QVERIFY2(twice.starts_with("run.json: the key 'gpu' appears twice in one object"), twice.c_str());
        const std::string nested = errorOf(R"({"text_config": {"num_hidden_layers": 2, "num_hidden_layers": 36}})");
        QVERIFY2(nested.find("'num_hidden_layers' appears twice") != std::string::npos, nested.c_str());
        QCOMPARE(errorOf(R"({"a": {"x": 1}, "b": {"x": 2}, "runs": [{"gpu": 1}, {"gpu": 2}], "x": 3})"), std::string());
        QVERIFY(errorOf("{\"a\": 1,, \"b\": 2}").starts_with("run.json: not valid JSON at byte 9: "));
        QCOMPARE(errorOf("[1e309]"), std::string("run.json: not valid JSON: a number is too large"));
        QCOMPARE(parseJsonDocument(R"({"a": [1, 2]})", "ok.json")["a"][1].get<int>(), 2);
    }
};

QTEST_GUILESS_MAIN(TestJsonErrors)
#include "tst_json_errors.moc"
