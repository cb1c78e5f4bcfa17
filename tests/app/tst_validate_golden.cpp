// The cost model's predictions for every published run, held against tests/data/validate_golden.json. A change to a
// constant, a formula or a preset that moves any prediction fails here, run by run, until the snapshot is rewritten on
// purpose (scripts/update_validate_golden.py) and its diff reviewed: the means `validate` prints can stay put while
// one run gets better and another worse.
#include <QFile>
#include <QtTest>

#include <cmath>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace {

// Equal within rounding: the dev, release and sanitizer builds may differ in the last bits of a sum.
bool sameNumber(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)) + 1e-12;
}

// Every value the golden holds must be in `now`, equal; `now` may hold more (new keys are not drift).
void compare(
    const nlohmann::json& golden, const nlohmann::json& now, const std::string& where, std::vector<std::string>& drift)
{
    if (golden.is_object()) {
        for (auto it = golden.begin(); it != golden.end(); ++it) {
            if (!now.is_object() || !now.contains(it.key()))
                drift.push_back(where + "." + it.key() + ": missing now");
            else
                compare(it.value(), now[it.key()], where + "." + it.key(), drift);
        }
    } else if (golden.is_number() && now.is_number()) {
        if (!sameNumber(golden.get<double>(), now.get<double>()))
            drift.push_back(where + ": " + golden.dump() + " -> " + now.dump());
    } else if (golden.is_array() && now.is_array() && golden.size() == now.size()) {
        for (size_t i = 0; i < golden.size(); ++i)
            compare(golden[i], now[i], where + "[" + std::to_string(i) + "]", drift);
    } else if (golden != now) {
        drift.push_back(where + ": " + golden.dump() + " -> " + now.dump());
    }
}

} // namespace

class TestValidateGolden : public QObject {
    Q_OBJECT
private slots:
    void predictionsMatchTheSnapshot()
    {
        QFile file(QStringLiteral(MFU_SOURCE_DIR "/tests/data/validate_golden.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const nlohmann::json golden = nlohmann::json::parse(file.readAll().toStdString());
        const mfu::test::CliResult r = mfu::test::runCli({ QStringLiteral("validate"), QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const nlohmann::json now = nlohmann::json::parse(r.out.toStdString());

        std::vector<std::string> drift;
        for (const char* summary : { "all", "out_of_sample", "groups" })
            compare(golden[summary], now[summary], summary, drift);
        // Runs by id, so that adding a run is said as such and not as every later run moving.
        std::map<std::string, nlohmann::json> runsNow;
        for (const auto& run : now["runs"])
            runsNow[run["id"].get<std::string>()] = run;
        for (const auto& run : golden["runs"]) {
            const std::string id = run["id"].get<std::string>();
            const auto it = runsNow.find(id);
            if (it == runsNow.end()) {
                drift.push_back(id + ": no longer validated");
                continue;
            }
            compare(run, it->second, id, drift);
            runsNow.erase(it);
        }
        for (const auto& [id, run] : runsNow)
            drift.push_back(id + ": new run, not in the snapshot");

        std::string message;
        for (size_t i = 0; i < drift.size() && i < 40; ++i)
            message += "\n  " + drift[i];
        if (drift.size() > 40)
            message += "\n  ... and " + std::to_string(drift.size() - 40) + " more";
        QVERIFY2(drift.empty(),
            qPrintable(QString::fromStdString(std::to_string(drift.size())
                + " figures differ from tests/data/validate_golden.json; if the change is meant, run "
                  "scripts/update_validate_golden.py and review the diff:"
                + message)));
    }
};

QTEST_APPLESS_MAIN(TestValidateGolden)
#include "tst_validate_golden.moc"
