#include "widgets/charts/chart_data.h"

#include <QLocale>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

namespace mfu::widgets {

QString formatExact(double value)
{
    std::array<char, 64> buffer {};
    const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
    return QString::fromLatin1(buffer.data(), static_cast<qsizetype>(result.ptr - buffer.data()));
}

QString formatReadable(double value)
{
    const QLocale locale;
    if (std::abs(value) >= 1000 && std::abs(value) < 1e15 && value == std::round(value))
        return locale.toString(static_cast<qlonglong>(value));
    return locale.toString(value, 'g', 4);
}

namespace {

QString csvField(const QString& text)
{
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) && !text.contains(QLatin1Char('\n')))
        return text;
    QString quoted = text;
    quoted.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

} // namespace

QString chartDataToCsv(const ChartData& data)
{
    QStringList header { csvField(data.xAxis.text()) };
    QVector<double> xs;
    for (const auto& s : data.series) {
        const QString unit = data.unitOf(s);
        header << csvField(unit.isEmpty() ? s.name : s.name + QStringLiteral(" (") + unit + QLatin1Char(')'));
        xs += s.x;
    }
    std::sort(xs.begin(), xs.end());
    xs.erase(std::unique(xs.begin(), xs.end()), xs.end());

    QString csv = header.join(QLatin1Char(',')) + QLatin1Char('\n');
    for (double x : xs) {
        const int category = static_cast<int>(x);
        const bool named
            = !data.categories.isEmpty() && x == category && category >= 0 && category < data.categories.size();
        QStringList row { named ? csvField(data.categories[category]) : formatExact(x) };
        for (const auto& s : data.series) {
            const auto it = std::find(s.x.begin(), s.x.end(), x);
            row << (it == s.x.end() ? QString() : formatExact(s.y[static_cast<int>(it - s.x.begin())]));
        }
        csv += row.join(QLatin1Char(',')) + QLatin1Char('\n');
    }
    return csv;
}

} // namespace mfu::widgets
