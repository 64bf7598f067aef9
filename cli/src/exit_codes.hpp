#pragma once
// rtctl's exit statuses, shared by every subcommand.

namespace rtctl {

inline constexpr int exit_ok = 0;
/// The script ran and failed (a runtime error in some task), or the runtime
/// could not start (a plugin that cannot be loaded).
inline constexpr int exit_failed = 1;
/// Bad input before anything ran: usage, a syntax error, a bad configuration.
inline constexpr int exit_bad_input = 2;

}  // namespace rtctl
