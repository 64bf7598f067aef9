#pragma once
// The variables a task can see: nested scopes, one per block.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "rtkit/script/value.hpp"

namespace rtkit::script {

/// A stack of scopes. A spawned task starts from a copy of its parent's
/// visible variables (snapshot()): tasks never share variables, so the
/// interpreter needs no locks; channels will be how tasks share.
class environment {
  public:
    environment() : scopes_(1) {}

    /// Opens a scope for a block; the matching close_scope drops its variables.
    void open_scope() { scopes_.emplace_back(); }
    void close_scope() { scopes_.pop_back(); }

    /// let: a new variable in the innermost scope. Throws script_error when the
    /// innermost scope already has one of that name (an inner block may shadow).
    void declare(const std::string& name, value v, source_pos where);

    /// assignment: throws script_error when no visible variable has that name.
    void assign(const std::string& name, value v, source_pos where);

    /// The visible variable `name`; throws script_error naming the closest one.
    const value& lookup(const std::string& name, source_pos where) const;

    /// Every visible variable flattened into one scope (inner ones win).
    environment snapshot() const;

  private:
    using scope = std::map<std::string, value, std::less<>>;
    value* find(std::string_view name);
    [[noreturn]] void unknown(const std::string& name, source_pos where) const;
    std::vector<scope> scopes_;
};

/// Closes the scope it opened on every exit path, including an exception.
class scope_guard {
  public:
    explicit scope_guard(environment& env) : env_(env) { env_.open_scope(); }
    ~scope_guard() { env_.close_scope(); }
    scope_guard(const scope_guard&) = delete;
    scope_guard& operator=(const scope_guard&) = delete;

  private:
    environment& env_;
};

}  // namespace rtkit::script
