#include "rtkit/interp/interpreter.hpp"

#include <rtkit/cx.hpp>

#include "rtkit/config/closest_match.hpp"
#include "rtkit/interp/task_failed.hpp"
#include "rtkit/script/evaluate.hpp"
#include "rtkit/script/overloaded.hpp"

namespace rtkit::interp {
namespace {

using script::error_kind;
using script::script_error;

[[noreturn]] void fail(script::source_pos where, std::string message) {
    throw script_error(error_kind::runtime, where, std::move(message));
}

/// Statements that suspend the task run as coroutines; the rest run inline,
/// which keeps a loop of plain statements free of coroutine frames.
bool suspends(const script::stmt& s) {
    return std::holds_alternative<script::sleep_stmt>(s.node) ||
           std::holds_alternative<script::yield_stmt>(s.node) ||
           std::holds_alternative<script::join_stmt>(s.node) ||
           std::holds_alternative<script::repeat_stmt>(s.node);
}

std::string quoted_names(const std::vector<std::string_view>& names) {
    if (names.empty()) return "none";
    std::string text;
    for (auto name : names)
        text += (text.empty() ? "'" : ", '") + std::string(name) + "'";
    return text;
}

}  // namespace

rtkit::task<void> interpreter::run() {
    return run_task(program_.body, script::environment{});
}

void interpreter::report(const script_error& error) {
    ++errors_;
    out_.flush();  // what the script printed before the error comes first
    err_ << script::format_diagnostic(error) << std::flush;
}

rtkit::task<void> interpreter::run_task(const script::block& body, script::environment env) {
    task_children children;
    bool failed = false;
    try {
        co_await run_block(body, env, children);
    } catch (const task_failed&) {
        failed = true;
    } catch (const script_error& error) {
        report(error);
        failed = true;
    }
    // Structured concurrency: this task ends after every task it spawned.
    for (child_task& child : children.take_all())
        if (!co_await join_child(std::move(child))) failed = true;
    if (failed) throw task_failed();
}

rtkit::task<bool> interpreter::join_child(child_task child) {
    rtkit::outcome<void> outcome = co_await std::move(child.handle);
    if (outcome.is_ok()) co_return true;
    std::string problem;
    if (outcome.is_panicked()) {
        try {
            std::rethrow_exception(outcome.exception());
        } catch (const task_failed&) {
            // Reported by the task itself.
        } catch (const std::exception& e) {
            problem = e.what();
        } catch (...) {
            problem = "an unknown exception";
        }
    } else if (outcome.is_cancelled()) {
        problem = "cancelled: " + outcome.reason().message;
    } else {
        problem = outcome.error().message;
    }
    if (!problem.empty())
        report(script_error(error_kind::runtime, child.spawned_at,
                            "task '" + child.name + "' failed: " + problem));
    co_return false;
}

rtkit::task<void> interpreter::run_block(const script::block& body, script::environment& env,
                                         task_children& children) {
    script::scope_guard scope(env);
    for (const script::stmt& s : body.statements) {
        try {
            if (suspends(s))
                co_await run_awaiting(s, env, children);
            else
                run_immediate(s, env, children);
        } catch (const script_error&) {
            throw;
        } catch (const task_failed&) {
            throw;
        } catch (const rtkit::task_cancelled&) {
            throw;
        } catch (const std::exception& e) {
            // A failure below the script (allocation, the runtime) still gets
            // the position of the statement that caused it.
            fail(s.where, std::string("internal error: ") + e.what());
        }
    }
}

void interpreter::run_immediate(const script::stmt& s, script::environment& env,
                                task_children& children) {
    std::visit(script::overloaded{
                   [&](const script::let_stmt& n) {
                       env.declare(n.name, script::evaluate(n.value, env), s.where);
                   },
                   [&](const script::assign_stmt& n) {
                       env.assign(n.name, script::evaluate(n.value, env), s.where);
                   },
                   [&](const script::print_stmt& n) {
                       // Evaluate everything first: an error prints nothing.
                       std::string line;
                       for (std::size_t i = 0; i < n.arguments.size(); ++i) {
                           if (i > 0) line += ' ';
                           line += script::to_display(script::evaluate(n.arguments[i], env));
                       }
                       out_ << line << '\n' << std::flush;
                   },
                   [&](const script::spawn_stmt& n) {
                       children.add(child_task{
                           n.name, rtkit::spawn(run_task(n.body, env.snapshot())), s.where});
                   },
                   [&](const auto&) { fail(s.where, "internal error: statement must suspend"); },
               },
               s.node);
}

rtkit::task<void> interpreter::run_awaiting(const script::stmt& s, script::environment& env,
                                            task_children& children) {
    if (const auto* n = std::get_if<script::sleep_stmt>(&s.node)) {
        const script::value v = script::evaluate(n->duration, env);
        const auto* d = std::get_if<std::chrono::nanoseconds>(&v);
        if (!d)
            fail(n->duration.where,
                 "sleep needs a duration such as 10ms, not " + std::string(script::type_name(v)));
        if (d->count() < 0)
            fail(n->duration.where,
                 "sleep needs a duration of zero or more, not " + script::to_display(v));
        co_await rtkit::sleep(*d);
    } else if (std::holds_alternative<script::yield_stmt>(s.node)) {
        co_await rtkit::yield_now();
    } else if (const auto* n = std::get_if<script::join_stmt>(&s.node)) {
        std::optional<child_task> child = children.take(n->name);
        if (!child) {
            const auto names = children.names();
            fail(s.where, "no running task named '" + n->name + "' to join" +
                              config::did_you_mean(n->name, names) +
                              " (this task's unjoined tasks: " + quoted_names(names) + ")");
        }
        if (!co_await join_child(std::move(*child))) throw task_failed();
    } else if (const auto* n = std::get_if<script::repeat_stmt>(&s.node)) {
        const script::value v = script::evaluate(n->count, env);
        const auto* count = std::get_if<std::int64_t>(&v);
        if (!count)
            fail(n->count.where,
                 "repeat needs an integer count, not " + std::string(script::type_name(v)));
        if (*count < 0)
            fail(n->count.where,
                 "repeat needs a count of zero or more, not " + std::to_string(*count));
        for (std::int64_t i = 0; i < *count; ++i)
            co_await run_block(n->body, env, children);
    } else {
        fail(s.where, "internal error: statement does not suspend");
    }
}

}  // namespace rtkit::interp
