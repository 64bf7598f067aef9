#pragma once
// For the tests that run a conformance suite on a deliberately faulty variant
// of a plugin (built into RTKIT_TEST_VARIANT_DIR): where a variant's file is,
// and how to find one case of the suite's report.
#include <filesystem>
#include <string>

#include "rtkit/conformance/conformance.hpp"

/// The file of the variant `name` of a plugin of `kind` (reactor, timer, lanes).
inline std::filesystem::path variant_file(const std::string& kind, const std::string& name) {
    return std::filesystem::path(RTKIT_TEST_VARIANT_DIR) / ("rtkit_" + kind + "_" + name + ".so");
}

/// The case named `name` in `r`, or nullptr when the report has none.
inline const rtkit::conformance::case_result* find_case(const rtkit::conformance::report& r,
                                                        const std::string& name) {
    for (const auto& c : r.cases)
        if (c.name == name) return &c;
    return nullptr;
}
