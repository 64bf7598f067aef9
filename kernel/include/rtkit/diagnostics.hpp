#pragma once
// rtkit::set_diagnostic_hook: where the runtime's own messages go.
#include <cstdint>
#include <functional>
#include <string>

#include "rtkit/detail/task_header.hpp"

namespace rtkit {

/// What a diagnostic is about.
enum class diagnostic_kind : std::uint8_t {
    plugin_skipped,           ///< a preferred plugin did not start; a later one did
    unobserved_task_failure,  ///< a task threw and nobody took its outcome
    thread_stopped,           ///< a worker or background thread stopped after an error
    tasks_leaked,             ///< shutdown could not unwind some tasks
    blocking_calls_left,      ///< shutdown left blocking calls running on their threads
};

/// One message from the runtime: something an operator should see, that no
/// caller could be told through a return value or an exception.
struct diagnostic {
    diagnostic_kind kind;
    std::string message;  ///< one line, no trailing newline, no "rtkit: " prefix
    task_id task{};       ///< the task it is about, when there is one
};

/// Receives every diagnostic, on whichever thread found it (a worker, a
/// thread in block_on, a destructor). It should be quick; what it throws is
/// dropped.
using diagnostic_hook = std::function<void(const diagnostic&)>;

/// Installs `hook` for the whole process and returns the one it replaces. An
/// empty hook restores the default: one line on stderr, "rtkit: MESSAGE".
diagnostic_hook set_diagnostic_hook(diagnostic_hook hook);

/// Sends `d` to the installed hook. The kernel reports through this; so may
/// plugins and tools built on rtkit.
void report_diagnostic(const diagnostic& d) noexcept;

}  // namespace rtkit
