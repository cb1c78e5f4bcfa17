#pragma once
// The message of the mfu::InputError a call throws, or a marker that says what happened instead: what the tests of
// bad input compare against (every bad input ends in an InputError naming the file or flag).
#include <QString>

#include <exception>
#include <functional>

#include "core/errors.h"

namespace mfu::test {

inline QString errorOf(const std::function<void()>& f)
{
    try {
        f();
    } catch (const InputError& e) {
        return QString::fromUtf8(e.what());
    } catch (const std::exception& e) {
        return QStringLiteral("<not an InputError: %1>").arg(QString::fromUtf8(e.what()));
    }
    return QStringLiteral("<no error>");
}

} // namespace mfu::test
