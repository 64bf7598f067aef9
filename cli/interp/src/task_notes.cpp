#include "task_notes.hpp"

namespace rtkit::interp {
namespace {

bool same_place(const task_places::value_type& a, const task_places::value_type& b) {
    return a.second.line == b.second.line && a.second.column == b.second.column &&
           a.first->name == b.first->name && !a.first->parent == !b.first->parent;
}

}  // namespace

std::string task_notes(const task_places& tasks, task_verb verb) {
    std::string text;
    std::size_t places = 0, unlisted_places = 0, unlisted_tasks = 0;
    for (std::size_t first = 0, end = 0; first < tasks.size(); first = end) {
        end = first + 1;
        while (end < tasks.size() && same_place(tasks[first], tasks[end]))
            ++end;
        const std::size_t count = end - first;
        if (++places > max_noted_places) {
            ++unlisted_places;
            unlisted_tasks += count;
            continue;
        }
        const auto& [task, where] = tasks[first];
        std::string who;
        if (!task->parent)
            who = "the top level " + std::string(verb.one);
        else if (count == 1)
            who = "task '" + task->name + "' " + verb.one;
        else
            who = std::to_string(count) + " tasks '" + task->name + "' " + verb.many;
        text += script::format_note(where, who + " here");
    }
    if (unlisted_places > 0)
        text += "note: and " + std::to_string(unlisted_tasks) + " more " +
                (unlisted_tasks == 1 ? "task " + std::string(verb.one)
                                     : "tasks " + std::string(verb.many)) +
                " at " + std::to_string(unlisted_places) + " more " +
                (unlisted_places == 1 ? "place\n" : "places\n");
    return text;
}

}  // namespace rtkit::interp
