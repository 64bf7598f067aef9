#include "rtkit/script/environment.hpp"

#include "rtkit/config/closest_match.hpp"
#include "rtkit/script/script_error.hpp"

namespace rtkit::script {

void environment::declare(const std::string& name, value v, source_pos where) {
    auto [it, inserted] = scopes_.back().try_emplace(name, std::move(v));
    if (!inserted)
        throw script_error(error_kind::runtime, where,
                           "variable '" + name +
                               "' is already declared in this block (assign it with '" + name +
                               " = ...')");
}

value* environment::find(std::string_view name) {
    for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
        auto it = scope->find(name);
        if (it != scope->end()) return &it->second;
    }
    return nullptr;
}

void environment::assign(const std::string& name, value v, source_pos where) {
    value* slot = find(name);
    if (!slot) unknown(name, where);
    *slot = std::move(v);
}

const value& environment::lookup(const std::string& name, source_pos where) const {
    const value* slot = const_cast<environment*>(this)->find(name);
    if (!slot) unknown(name, where);
    return *slot;
}

environment environment::snapshot() const {
    environment copy;
    for (const auto& scope : scopes_)
        for (const auto& [name, v] : scope)
            copy.scopes_.front().insert_or_assign(name, v);
    return copy;
}

void environment::unknown(const std::string& name, source_pos where) const {
    std::vector<std::string_view> names;
    for (const auto& scope : scopes_)
        for (const auto& entry : scope)
            names.push_back(entry.first);
    throw script_error(error_kind::runtime, where,
                       "unknown variable '" + name + "'" + config::did_you_mean(name, names));
}

}  // namespace rtkit::script
