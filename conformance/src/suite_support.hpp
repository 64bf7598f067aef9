#pragma once
// What the conformance suites share: failing and skipping a case, and running
// a list of cases against fresh plugin objects.
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "rtkit/conformance/conformance.hpp"
#include "rtkit/plugin_loader.hpp"

namespace rtkit::conformance::detail {

/// Thrown by require(): the case failed with this message.
struct case_failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};
/// Thrown by skip(): the case cannot run on this machine (say why).
struct case_skipped : std::runtime_error {
    using std::runtime_error::runtime_error;
};

inline void require(bool ok, const std::string& what) {
    if (!ok) throw case_failure(what);
}
[[noreturn]] inline void skip(const std::string& why) {
    throw case_skipped(why);
}
/// Says how a case passed (its message in the report), e.g. the size it ran at.
void note(std::string text);

/// Makes a fresh plugin object for one case.
template <class Interface>
using factory = std::function<std::shared_ptr<Interface>()>;

template <class Interface>
struct test_case {
    const char* name;
    void (*run)(const factory<Interface>& make);
    /// What it checks, in one line: `rtctl conformance --list` prints it, and
    /// conformance/README.md shows the same text.
    const char* checks;
};

/// Each suite's cases, in the order they run.
const std::vector<test_case<reactor>>& reactor_cases();
const std::vector<test_case<timer_driver>>& timer_cases();
const std::vector<test_case<lane_policy>>& lanes_cases();

/// Runs every case with its own object; a case that throws anything fails.
template <class Interface>
report run_cases(const std::filesystem::path& file, const option_table& options,
                 const std::vector<test_case<Interface>>& cases);

}  // namespace rtkit::conformance::detail
