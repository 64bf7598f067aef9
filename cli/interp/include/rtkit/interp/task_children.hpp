#pragma once
// The tasks one script task has spawned and not yet joined.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rtkit/join_handle.hpp>

#include "rtkit/script/source.hpp"

namespace rtkit::interp {

/// A spawned task, by the name the script gave it.
struct child_task {
    std::string name;
    rtkit::join_handle<void> handle;
    script::source_pos spawned_at;
};

/// Names belong to the task that spawned them, not to a block: a task may
/// spawn in a repeat and join after it. A name may be reused; `join NAME`
/// takes the most recent unjoined task of that name.
class task_children {
  public:
    void add(child_task child) { children_.push_back(std::move(child)); }

    /// Removes and returns the most recent unjoined task named `name`.
    std::optional<child_task> take(std::string_view name);

    /// Removes and returns every unjoined task, in spawn order.
    std::vector<child_task> take_all() { return std::exchange(children_, {}); }

    /// The names of the unjoined tasks, for messages and suggestions.
    std::vector<std::string_view> names() const;

  private:
    std::vector<child_task> children_;  ///< in spawn order
};

}  // namespace rtkit::interp
