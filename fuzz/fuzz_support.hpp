#pragma once
// What every harness shares: how a broken expectation is reported. A harness
// that finds an input breaking a rule the code promises calls fuzz_failure,
// which aborts, so libFuzzer saves the input as a finding like any crash.
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace rtkit_fuzz {

/// Prints what rule the current input broke, and aborts.
[[noreturn]] inline void fuzz_failure(std::string_view rule, std::string_view detail = {}) {
    std::fprintf(stderr, "fuzz: broken rule: %.*s\n", static_cast<int>(rule.size()), rule.data());
    if (!detail.empty())
        std::fprintf(stderr, "fuzz: detail: %.*s\n", static_cast<int>(detail.size()),
                     detail.data());
    std::abort();
}

/// Aborts with `rule` unless `holds`.
inline void expect(bool holds, std::string_view rule, std::string_view detail = {}) {
    if (!holds) fuzz_failure(rule, detail);
}

}  // namespace rtkit_fuzz
