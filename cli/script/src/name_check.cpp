#include "rtkit/script/name_check.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "rtkit/config/closest_match.hpp"
#include "rtkit/script/overloaded.hpp"

namespace rtkit::script {
namespace {

/// Walks one task's or function's code with the variables it can see.
class name_checker {
  public:
    explicit name_checker(std::vector<script_error>& errors) : errors_(errors) {}

    /// Starts a body that sees `visible` and nothing else.
    void check_body(const block& body, const std::vector<std::string>& visible) {
        scopes_.clear();
        scopes_.emplace_back();
        for (const std::string& name : visible)
            scopes_.back().emplace(name, source_pos{});
        check_block(body);
    }

  private:
    using scope = std::map<std::string, source_pos, std::less<>>;

    void check_block(const block& b) {
        scopes_.emplace_back();
        for (const stmt& s : b.statements)
            check_statement(s);
        scopes_.pop_back();
    }

    /// A block in a scope of its own around it (a repeat's counter).
    void check_block_with(const std::string& name, source_pos where, const block& b) {
        scopes_.emplace_back();
        declare(name, where);
        check_block(b);
        scopes_.pop_back();
    }

    void declare(const std::string& name, source_pos where) {
        const auto [it, inserted] = scopes_.back().emplace(name, where);
        if (inserted) return;
        std::string earlier;
        if (it->second.line != 0)
            earlier =
                " at " + std::to_string(it->second.line) + ':' + std::to_string(it->second.column);
        errors_.emplace_back(error_kind::runtime, where,
                             "variable '" + name + "' is already declared in this block" + earlier +
                                 " (assign it with '" + name + " = ...')");
    }

    void use(const std::string& name, source_pos where) {
        std::vector<std::string_view> names;
        for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
            if (s->contains(name)) return;
            for (const auto& entry : *s)
                names.push_back(entry.first);
        }
        errors_.emplace_back(error_kind::runtime, where,
                             "unknown variable '" + name + "'" + config::did_you_mean(name, names));
    }

    /// Every variable visible here, for a task that starts with copies of them.
    std::vector<std::string> visible() const {
        std::vector<std::string> names;
        for (const scope& s : scopes_)
            for (const auto& entry : s)
                names.push_back(entry.first);
        return names;
    }

    /// A spawned block or race block: checked with what is visible here, then
    /// this walk goes on where it was.
    void check_task(const block& body) {
        const std::vector<std::string> names = visible();
        std::vector<scope> saved = std::move(scopes_);
        check_body(body, names);
        scopes_ = std::move(saved);
    }

    void check_optional(const std::optional<expr>& e) {
        if (e) check_expr(*e);
    }

    void check_statement(const stmt& s) {
        std::visit(
            overloaded{
                [&](const let_stmt& n) {
                    check_expr(
                        n.value);  // before the name exists: `let x = x + 1` reads an outer x
                    declare(n.name, s.where);
                },
                [&](const assign_stmt& n) {
                    check_expr(n.value);
                    use(n.name, s.where);
                },
                [&](const print_stmt& n) {
                    for (const expr& e : n.arguments)
                        check_expr(e);
                },
                [&](const assert_stmt& n) {
                    check_expr(n.condition);
                    check_optional(n.message);
                },
                [&](const fail_stmt& n) { check_expr(n.message); },
                [&](const sleep_stmt& n) { check_expr(n.duration); },
                [&](const spin_stmt& n) { check_expr(n.duration); },
                [&](const yield_stmt&) {},
                [&](const if_stmt& n) {
                    for (const if_stmt::branch& b : n.branches) {
                        check_expr(b.condition);
                        check_block(b.body);
                    }
                    if (n.otherwise) check_block(*n.otherwise);
                },
                [&](const while_stmt& n) {
                    check_expr(n.condition);
                    check_block(n.body);
                },
                [&](const loop_stmt& n) { check_block(n.body); },
                [&](const repeat_stmt& n) {
                    check_expr(n.count);
                    if (n.counter)
                        check_block_with(*n.counter, s.where, n.body);
                    else
                        check_block(n.body);
                },
                [&](const break_stmt&) {},
                [&](const continue_stmt&) {},
                [&](const return_stmt& n) { check_optional(n.value); },
                [&](const spawn_stmt& n) {
                    // The name is declared first, so the task sees it too.
                    declare(n.task.name, s.where);
                    check_spawn(n.task);
                },
                [&](const expression_stmt& n) { check_expr(n.value); },
                [&](const cancel_stmt& n) {
                    check_expr(n.task);
                    check_optional(n.reason);
                },
                [&](const region_stmt& n) { check_block(n.body); },
                [&](const timeout_stmt& n) {
                    check_expr(n.limit);
                    check_block(n.body);
                    if (n.otherwise) check_block(*n.otherwise);
                },
                [&](const acquire_stmt& n) {
                    check_expr(n.semaphore);
                    check_block(n.body);
                },
                [&](const send_stmt& n) {
                    check_expr(n.channel);
                    check_expr(n.value);
                },
                [&](const close_stmt& n) { check_expr(n.target); },
                [&](const write_stmt& n) {
                    check_expr(n.stream);
                    check_expr(n.data);
                },
            },
            s.node);
    }

    /// A function's arguments are read here; its body is checked on its own.
    void check_spawn(const spawn_expr& n) {
        if (n.call)
            for (const expr& a : n.call->arguments)
                check_expr(a);
        else
            check_task(*n.body);
    }

    void check_expr(const expr& e) {
        std::visit(overloaded{
                       [&](const variable_ref& n) { use(n.name, e.where); },
                       [&](const unary_expr& n) { check_expr(*n.operand); },
                       [&](const binary_expr& n) {
                           check_expr(*n.first);
                           for (const binary_expr::step& s : n.rest)
                               check_expr(*s.operand);
                       },
                       [&](const field_expr& n) { check_expr(*n.object); },
                       [&](const call_expr& n) {
                           for (const expr& a : n.arguments)
                               check_expr(a);
                       },
                       [&](const builtin_expr& n) {
                           for (const expr& a : n.operands)
                               check_expr(a);
                       },
                       [&](const spawn_expr& n) { check_spawn(n); },
                       [&](const race_expr& n) {
                           for (const block& b : n.blocks)
                               check_task(b);
                       },
                       [&](const auto&) {},  // literals and `now`
                   },
                   e.node);
    }

    std::vector<script_error>& errors_;
    std::vector<scope> scopes_;  ///< innermost last
};

}  // namespace

std::vector<script_error> check_names(const program& p) {
    std::vector<script_error> errors;
    name_checker checker(errors);
    checker.check_body(p.body, {});
    for (const auto& [name, function] : p.functions)
        checker.check_body(function.body, function.parameters);
    std::stable_sort(errors.begin(), errors.end(),
                     [](const script_error& a, const script_error& b) {
                         return std::pair(a.where().line, a.where().column) <
                                std::pair(b.where().line, b.where().column);
                     });
    return errors;
}

}  // namespace rtkit::script
