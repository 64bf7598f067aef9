#pragma once
// rtkit::conformance: the behaviour every plugin of a kind must show, checked
// against a plugin FILE loaded through rtkit::plugin_loader (a real dlopen).
// The doctest suites and `rtctl conformance PATH.so` both call these.
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "rtkit/runtime_config.hpp"

namespace rtkit::conformance {

enum class verdict { passed, failed, skipped };

/// "passed", "failed" or "skipped".
std::string_view verdict_name(verdict v) noexcept;

/// One case of a suite.
struct case_result {
    std::string name;  ///< e.g. "reactor.read_readiness"
    verdict outcome = verdict::passed;
    std::string message;  ///< why it failed or was skipped, or a note on how it passed
    std::chrono::microseconds elapsed{0};
};

/// The outcome of one suite against one plugin file.
struct report {
    std::filesystem::path file;
    std::string kind;         ///< "reactor", "timer", "lanes" (empty if it did not load)
    std::string plugin_name;  ///< from the descriptor
    std::string load_error;   ///< set when the file could not be loaded or created; no cases ran
    std::vector<case_result> cases;

    std::size_t count(verdict v) const noexcept;
    /// Loaded, and no case failed (skipped cases do not fail a plugin).
    bool passed() const noexcept;
};

/// Each suite creates a fresh object per case with `options` (validated and
/// defaulted by the loader). Never throws for a bad plugin: it is reported.
report run_reactor_conformance(const std::filesystem::path& file, const option_table& options = {});
report run_timer_conformance(const std::filesystem::path& file, const option_table& options = {});
report run_lanes_conformance(const std::filesystem::path& file, const option_table& options = {});

/// Runs the suite of the kind the file's descriptor declares.
report run_conformance(const std::filesystem::path& file, const option_table& options = {});

/// A case of a suite, as `rtctl conformance --list` shows it.
struct case_info {
    std::string name;    ///< "reactor.read_readiness"
    std::string checks;  ///< what it checks, in one line (conformance/README.md says the same)
};

/// The cases the suite of `kind` ("reactor", "timer" or "lanes") runs, in
/// order; empty for another kind.
std::vector<case_info> cases_of(std::string_view kind);

/// Their names alone ("reactor.read_readiness", ...).
std::vector<std::string> case_names(std::string_view kind);

/// A plain-text rendering, one line per case and a summary, for rtctl and logs.
std::string format_report(const report& r);

}  // namespace rtkit::conformance
