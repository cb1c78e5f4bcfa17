#pragma once
// Helpers shared by the tests that read a diagnosis: pick a finding by its code, and round a fraction to the
// one-decimal percent that reports and sources state ("39.7%").
#include <QtGlobal>

#include <string>
#include <vector>

#include "core/diagnosis/diagnosis.h"

namespace mfu::test {

inline const Finding* findFinding(const std::vector<Finding>& findings, const std::string& code)
{
    for (const auto& f : findings)
        if (f.code == code)
            return &f;
    return nullptr;
}

inline double percent(double fraction)
{
    return qRound(fraction * 1000) / 10.0;
}

} // namespace mfu::test
