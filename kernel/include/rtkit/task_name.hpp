#pragma once
// rtkit::task_name: what a trace calls a task, and where it was spawned.
#include <cstdint>
#include <source_location>
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
    /// The site is where this is made: the spawn call that converts a string.
    task_name(std::string_view name,
              std::source_location where = std::source_location::current()) noexcept
        : name(name), file(where.file_name()), line(where.line()) {}
    /// The same from a literal, `spawn("fetch", ...)` (one conversion, not two).
    task_name(const char* name,
              std::source_location where = std::source_location::current()) noexcept
        : task_name(std::string_view(name), where) {}
    task_name(const std::string& name,
              std::source_location where = std::source_location::current()) noexcept
        : task_name(std::string_view(name), where) {}
    /// A task spawned for code elsewhere, such as a script's line.
    task_name(std::string_view name, std::string_view file, std::uint32_t line) noexcept
        : name(name), file(file), line(line) {}

    std::string_view name;
    std::string_view file;  ///< empty: no site
    std::uint32_t line = 0;
};

}  // namespace rtkit
