// Contract test of `mfu-explorer cost`: the FIXED flags and JSON keys scripts rely on, run through the real binary.
#include <QProcess>
#include <QTest>

#include <set>

#include <nlohmann/json.hpp>

namespace {

struct Run {
    int status = -1;
    QString out;
    QString err;
};

Run runCli(const QStringList& args)
{
    QProcess p;
    p.start(QStringLiteral(MFU_CLI_BINARY), QStringList { QStringLiteral("cost") } + args);
    Run r;
    if (!p.waitForFinished(60000))
        return r;
    r.status = p.exitCode();
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

nlohmann::json runJson(const QStringList& args)
{
    const Run r = runCli(args + QStringList { QStringLiteral("--json") });
    if (r.status != 0)
        qWarning("stderr: %s", qPrintable(r.err));
    return nlohmann::json::parse(r.out.toStdString(), nullptr, false);
}

QStringList vectorLabsJob(const QString& baseline, const QString& target)
{
    return QString::fromLatin1("--gpu h100-sxm --gpus 256 --days 90 --price-per-gpu-hour 2.50 --baseline-mfu %1 "
                               "--target-mfu %2")
        .arg(baseline, target)
        .split(QLatin1Char(' '));
}

} // namespace

class TestCliCost : public QObject {
    Q_OBJECT
private slots:
    void vectorLabsJobJson_data()
    {
        QTest::addColumn<QString>("baseline");
        QTest::addColumn<QString>("target");
        QTest::newRow("fractions") << "0.4"
                                   << "0.6";
        QTest::newRow("percent numbers") << "40"
                                         << "60";
        QTest::newRow("percent signs") << "40%"
                                       << "60%";
    }
    void vectorLabsJobJson()
    {
        // The VECTOR Labs cost article: 256 H100 x 90 days x $2.50 = $1,382,400; 40% -> 60% recovers 256 x 0.2 = 51.2
        // GPU-equivalents worth 51.2 x 2,160 h x $2.50 = $276,480; the same work finishes 1 - 40/60 = a third sooner.
        QFETCH(QString, baseline);
        QFETCH(QString, target);
        const auto j = runJson(vectorLabsJob(baseline, target));
        QVERIFY2(j.is_object(), "no JSON on stdout");
        QCOMPARE(j.at("gpu_hours").get<double>(), 552960.0);
        QCOMPARE(j.at("total_cost_usd").get<double>(), 1382400.0);
        QCOMPARE(j.at("gpu_equivalents_recovered").get<double>(), 51.2);
        QCOMPARE(j.at("recovered_value_usd").get<double>(), 276480.0);
        QCOMPARE(j.at("time_saved_fraction").get<double>(), 1.0 / 3.0);
        QCOMPARE(j.at("baseline_mfu").get<double>(), 0.4);
        QCOMPARE(j.at("gpu_equivalents_baseline").get<double>(), 102.4);
        QCOMPARE(j.at("fixed_work").at("cost_saved_usd").get<double>(), 460800.0);
        QCOMPARE(j.at("fixed_work").at("days_saved").get<double>(), 30.0);
        // H100 SXM preset: 700 W per board -> 552,960 GPU-h x 0.7 kW.
        QCOMPARE(j.at("energy_kwh").get<double>(), 387072.0);
    }

    void vectorLabsJobText()
    {
        const Run r = runCli(vectorLabsJob(QStringLiteral("40%"), QStringLiteral("60%")));
        QCOMPARE(r.status, 0);
        QVERIFY2(r.out.contains(QStringLiteral("$1,382,400")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("51.2 recovered")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("$276,480")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("33.33% sooner")), qPrintable(r.out));
        QVERIFY(r.err.isEmpty());

        // Backwards, 60% -> 40% is a loss in positive amounts: the same work takes half as long again.
        const Run loss = runCli(vectorLabsJob(QStringLiteral("60%"), QStringLiteral("40%")));
        QCOMPARE(loss.status, 0);
        QVERIFY2(loss.out.contains(QStringLiteral("50.00% longer")), qPrintable(loss.out));
        QVERIFY2(loss.out.contains(QStringLiteral("lost")), qPrintable(loss.out));
        QVERIFY2(!loss.out.contains(QStringLiteral("-50")), qPrintable(loss.out));
        QVERIFY2(!loss.out.contains(QStringLiteral("$-")), qPrintable(loss.out));
    }

    void tokenBudget()
    {
        // A bare 7B model (6N = 4.2e10 FLOP/token) for 1T tokens at 40% of 989 TFLOP/s on 64 GPUs:
        // 4.2e22 / (0.4 x 989e12) s = 106,167,846 GPU-s = 29,491.07 GPU-h; x $2.50.
        const auto j = runJson(QString::fromLatin1("--gpu h100-sxm --gpus 64 --tokens 1T --params 7B --baseline-mfu 40 "
                                                   "--target-mfu 50")
                                   .split(QLatin1Char(' ')));
        QVERIFY(j.is_object());
        const double gpuHours = 4.2e22 / (0.4 * 989e12) / 3600.0;
        QCOMPARE(j.at("gpu_hours").get<double>(), gpuHours);
        QCOMPARE(j.at("total_cost_usd").get<double>(), gpuHours * 2.5); // the preset's typical price
        QCOMPARE(j.at("wall_clock_days").get<double>(), gpuHours / 64 / 24);
        QCOMPARE(j.at("job").at("flops_per_token").get<double>(), 4.2e10);
        QCOMPARE(j.at("job").at("formula").get<std::string>(), std::string("six_n"));
        QCOMPARE(j.at("fixed_budget").at("extra_tokens").get<double>(), 0.25e12);
        QCOMPARE(j.at("time_saved_fraction").get<double>(), 0.2);
    }

    void stepsEqualTokens()
    {
        const auto byTokens = runJson(QString::fromLatin1("--gpu b200 --gpus 8 --tokens 4e9 --model llama-3.1-8b "
                                                          "--seq 8192 --baseline-mfu 0.35")
                                          .split(QLatin1Char(' ')));
        const auto bySteps = runJson(QString::fromLatin1("--gpu b200 --gpus 8 --steps 1000 --tokens-per-step 4M "
                                                         "--model llama-3.1-8b --seq 8192 --baseline-mfu 0.35")
                                         .split(QLatin1Char(' ')));
        QVERIFY(byTokens.is_object() && bySteps.is_object());
        QCOMPARE(bySteps.at("gpu_hours").get<double>(), byTokens.at("gpu_hours").get<double>());
        QCOMPARE(byTokens.at("job").at("formula").get<std::string>(), std::string("per_layer")); // the default
        QVERIFY(!byTokens.contains("gpu_equivalents_recovered")); // no target, no savings
    }

    void hardwareComparison()
    {
        // The VECTOR Labs job (256 H100, 90 days at 40%: 552,960 GPU-hours) on H100 and B200, each at the MFU of the
        // planner's best configuration of Llama 3.1 70B on 256 of it. The same FLOPs: GPU-hours scale as
        // 40% / MFU, and by the dense peak ratio for another GPU. The fixed keys are those without --compare.
        const QStringList job = vectorLabsJob(QStringLiteral("40"), QStringLiteral("60"))
            + QStringList { QStringLiteral("--model"), QStringLiteral("llama-3.1-70b") };
        const auto plain = runJson(job);
        const auto j = runJson(job + QStringList { QStringLiteral("--compare"), QStringLiteral("h100-sxm,b200") });
        QVERIFY(j.is_object());
        for (const char* key : { "gpu_hours", "total_cost_usd", "gpu_equivalents_recovered", "recovered_value_usd",
                 "time_saved_fraction" })
            QCOMPARE(j.at(key).get<double>(), plain.at(key).get<double>());
        QCOMPARE(j.at("gpu_hours").get<double>(), 552960.0);
        const auto& rows = j.at("hardware_comparison");
        QCOMPARE(rows.size(), size_t(2));
        QCOMPARE(rows[0].at("gpu").get<std::string>(), std::string("h100-sxm"));
        QCOMPARE(rows[1].at("gpu").get<std::string>(), std::string("b200"));
        for (const auto& r : rows) {
            const double mfu = r.at("mfu").get<double>();
            QVERIFY2(mfu > 0.1 && mfu <= 1, r.dump().c_str());
            QCOMPARE(r.at("gpus").get<int>(), 256);
            const double hours = r.at("gpu_hours").get<double>();
            QCOMPARE(hours, 552960.0 * 0.4 / mfu / r.at("peak_speedup_vs_first").get<double>());
            QCOMPARE(r.at("total_cost_usd").get<double>(), hours * r.at("price_per_gpu_hour_usd").get<double>());
            QCOMPARE(r.at("wall_clock_days").get<double>(), hours / 256 / 24);
            QVERIFY(!r.at("configuration").get<std::string>().empty());
        }
        QCOMPARE(rows[0].at("price_per_gpu_hour_usd").get<double>(), 2.5); // --price-per-gpu-hour is the H100's
        QCOMPARE(rows[0].at("peak_speedup_vs_first").get<double>(), 1.0);
        QVERIFY(rows[1].at("peak_speedup_vs_first").get<double>() > 2); // B200's dense BF16 peak vs H100's
        QVERIFY(j.at("hardware_left_out").empty());
        const auto fastest = j.at("hardware_fastest").get<std::string>();
        QCOMPARE(fastest, std::string("b200"));

        // Every preset: each is compared or left out with a reason, once.
        const auto all = runJson(job + QStringList { QStringLiteral("--compare-all") });
        std::set<std::string> seen;
        for (const auto& r : all.at("hardware_comparison"))
            QVERIFY(seen.insert(r.at("gpu").get<std::string>()).second);
        for (const auto& l : all.at("hardware_left_out")) {
            QVERIFY(seen.insert(l.at("gpu").get<std::string>()).second);
            QVERIFY(!l.at("reason").get<std::string>().empty());
        }
        QVERIFY2(seen.size() >= 10, all.dump().c_str());
        QVERIFY(seen.count("h100-sxm") && seen.count("b200"));

        const Run text = runCli(job + QStringList { QStringLiteral("--compare"), QStringLiteral("h100-sxm,b200") });
        QCOMPARE(text.status, 0);
        QVERIFY2(text.out.contains(QStringLiteral("Same job on other GPUs")), qPrintable(text.out));
        QVERIFY(text.out.contains(QStringLiteral("[fastest]")));
    }

    void badInput_data()
    {
        QTest::addColumn<QString>("args");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("no gpu") << "--gpus 8 --days 1"
                                << "--gpu";
        QTest::newRow("unknown gpu") << "--gpu h900 --days 1"
                                     << "h900";
        QTest::newRow("MFU above 100%") << "--gpu h100-sxm --days 1 --baseline-mfu 150%"
                                        << "above 100%";
        QTest::newRow("MFU not a number") << "--gpu h100-sxm --days 1 --baseline-mfu high"
                                          << "--baseline-mfu";
        QTest::newRow("zero days") << "--gpu h100-sxm --days 0"
                                   << "--days";
        QTest::newRow("negative price") << "--gpu h100-sxm --days 1 --price-per-gpu-hour -2"
                                        << "--price-per-gpu-hour";
        QTest::newRow("no job") << "--gpu h100-sxm"
                                << "exactly one of";
        QTest::newRow("two jobs") << "--gpu h100-sxm --days 1 --tokens 1T"
                                  << "exactly one of";
        QTest::newRow("tokens without model") << "--gpu h100-sxm --tokens 1T --baseline-mfu 0.4"
                                              << "--model";
        QTest::newRow("tokens without MFU") << "--gpu h100-sxm --tokens 1T --params 7B"
                                            << "--baseline-mfu";
        QTest::newRow("target without baseline") << "--gpu h100-sxm --days 1 --target-mfu 0.6"
                                                 << "--baseline-mfu";
        // 80% -> 1.2% had been costed as a loss of 6,567% more time; a typo of one unit is likelier.
        QTest::newRow("MFUs in two units") << "--gpu h100-sxm --gpus 8 --days 1 --baseline-mfu 0.8 --target-mfu 1.2"
                                           << "--target-mfu 1.2 reads as a percentage (1.20%)";
        QTest::newRow("steps without size") << "--gpu h100-sxm --steps 10 --params 7B --baseline-mfu 0.4"
                                            << "--tokens-per-step";
        QTest::newRow("palm on a bare model") << "--gpu h100-sxm --tokens 1T --params 7B --formula palm "
                                                 "--baseline-mfu 0.4"
                                              << "bare parameter count";
        QTest::newRow("unknown option") << "--gpu h100-sxm --days 1 --mfu 0.4"
                                        << "mfu";
        QTest::newRow("compare an unknown gpu")
            << "--gpu h100-sxm --days 1 --baseline-mfu 0.4 --model llama-3.1-8b --compare b200,h900"
            << "h900";
        QTest::newRow("compare a bare model") << "--gpu h100-sxm --tokens 1T --params 7B --baseline-mfu 0.4 "
                                                 "--formula six_n --compare b200"
                                              << "--compare";
        QTest::newRow("compare a reservation without MFU")
            << "--gpu h100-sxm --days 1 --model llama-3.1-8b --compare b200"
            << "--baseline-mfu";
        QTest::newRow("compare and compare-all")
            << "--gpu h100-sxm --days 1 --baseline-mfu 0.4 --model llama-3.1-8b --compare b200 --compare-all"
            << "--compare-all";
        QTest::newRow("compare where nothing fits")
            << "--gpu h100-sxm --gpus 1 --days 1 --baseline-mfu 0.4 --model llama-3.1-70b --compare h100-sxm"
            << "Nothing fits in memory";
        // A 4M batch is 4,000,000 tokens, not a whole number of 8k sequences: the planner rounds within 5%, and a
        // batch no layout can run is named as such, not as "fits on none".
        QTest::newRow("compare at a batch nothing runs")
            << "--gpu h100-sxm --gpus 8 --steps 10 --baseline-mfu 0.4 --model llama-3.1-8b --compare h100-sxm "
               "--tokens-per-step 4096"
            << "No layout runs a global batch of 4,096 tokens";
    }
    void badInput()
    {
        QFETCH(QString, args);
        QFETCH(QString, mentions);
        const Run r = runCli(args.split(QLatin1Char(' ')) + QStringList { QStringLiteral("--json") });
        QVERIFY(r.status != 0);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.startsWith(QStringLiteral("mfu-explorer cost: error: ")), qPrintable(r.err));
        QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
        QVERIFY2(r.err.contains(mentions), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestCliCost)
#include "tst_cli_cost.moc"
