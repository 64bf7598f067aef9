#pragma once
// rtkit::task_name: what a trace calls a task, and where it was spawned.
#include <cstdint>
#include <string>
#include <string_view>

namespace rtkit {

/// A name for a task and the place it was spawned, given to a spawn
/// (`cx::spawn(task_name, task)`, `rtkit::spawn("fetch", f())`). Traces show
/// the name on every poll of the task and the site on its spawn
/// (kernel/README.md, "Trace events"). The kernel copies both at the spawn
/// when the runtime traces, and ignores them otherwise (then a named spawn
/// costs one branch more than an unnamed one).
struct task_name {
    // The site comes from __builtin_FILE / __builtin_LINE, which GCC and
    // Clang both give as default arguments: std::source_location needs a
    // builtin that Clang 14 with libstdc++ 12 does not have.

    /// The site is where this is made: the spawn call that converts a string.
    task_name(std::string_view name, const char* file = __builtin_FILE(),
              std::uint32_t line = __builtin_LINE()) noexcept
        : name(name), file(file), line(line) {}
    /// The same from a literal, `spawn("fetch", ...)` (one conversion, not two).
    task_name(const char* name, const char* file = __builtin_FILE(),
              std::uint32_t line = __builtin_LINE()) noexcept
        : task_name(std::string_view(name), file, line) {}
    task_name(const std::string& name, const char* file = __builtin_FILE(),
              std::uint32_t line = __builtin_LINE()) noexcept
        : task_name(std::string_view(name), file, line) {}
    /// A task spawned for code elsewhere, such as a script's line.
    task_name(std::string_view name, std::string_view file, std::uint32_t line) noexcept
        : name(name), file(file), line(line) {}

    std::string_view name;
    std::string_view file;  ///< empty: no site
    std::uint32_t line = 0;
};

}  // namespace rtkit
