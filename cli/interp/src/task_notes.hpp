#pragma once
// rtkit::interp::task_notes: the notes of a report that say where a script's
// tasks are (wait, or run a statement), grouped by place and capped, so that
// a report on 40,000 tasks stays a few lines long.
#include <cstddef>
#include <string>

#include "deadlock_watch.hpp"

namespace rtkit::interp {

/// A report lists at most this many places; one line counts the rest.
inline constexpr std::size_t max_noted_places = 16;

/// How a note says what the tasks at a place do: "waits" or "wait".
struct task_verb {
    const char* one;
    const char* many;
};

/// One note per place and task name, in the order of `tasks` (sorted by
/// place, see deadlock_watch): "task 'NAME' VERB here", "N tasks 'NAME' VERB
/// here" or "the top level VERB here", with the line and a caret; past
/// max_noted_places, "and N more tasks VERB at M more places".
std::string task_notes(const task_places& tasks, task_verb verb);

}  // namespace rtkit::interp
