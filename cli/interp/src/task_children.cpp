#include "rtkit/interp/task_children.hpp"

namespace rtkit::interp {

std::optional<child_task> task_children::take(std::string_view name) {
    for (auto it = children_.rbegin(); it != children_.rend(); ++it) {
        if (it->name != name) continue;
        child_task found = std::move(*it);
        children_.erase(std::next(it).base());
        return found;
    }
    return std::nullopt;
}

std::vector<std::string_view> task_children::names() const {
    std::vector<std::string_view> names;
    for (const auto& child : children_)
        names.push_back(child.name);
    return names;
}

}  // namespace rtkit::interp
