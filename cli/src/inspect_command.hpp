#pragma once
// rtctl inspect FILE: a script's tree of tasks and blocks, or a trace's
// summary and lints (and, with --svg, its timeline).
#include <cstdint>
#include <filesystem>
#include <optional>

namespace rtctl {

struct inspect_options {
    std::filesystem::path file;  ///< a script (.rts) or a trace (JSON)
    std::optional<std::filesystem::path> svg;
    std::uint64_t frame_limit = 16384;  ///< bytes: a larger coroutine frame is a lint
};

/// Exit 0 when the file was read (lints do not change it), 2 for a file that
/// cannot be read, a script with a syntax error or a file that is not a trace.
int inspect_command(const inspect_options& options);

}  // namespace rtctl
