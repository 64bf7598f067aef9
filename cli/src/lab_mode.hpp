#pragma once
// rtctl run --lab: a replayable run (one worker, seeded lanes, virtual time).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rtkit/script/script_error.hpp"
#include "rtkit/script/source.hpp"

namespace rtctl {

/// The configuration keys a lab run sets after the user's own (--config,
/// RTKIT_*, --set): one worker, the `lab` lane policy with `seed`, and the
/// virtual clock, so the same seed prints the same output on every run.
/// The timer driver and the reactor stay as configured.
std::vector<std::string> lab_overrides(std::uint64_t seed);

/// The first statement a lab run cannot replay (a socket, `spin`), as the
/// error that refuses the script, or nullopt. The script must tokenize (it
/// parsed already).
std::optional<rtkit::script::script_error> first_lab_refusal(
    const rtkit::script::source_file& script);

}  // namespace rtctl
