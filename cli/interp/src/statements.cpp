// Statements: blocks, control flow, and the statements that wait.
#include <rtkit/cx.hpp>

#include "channel_object.hpp"
#include "engine.hpp"
#include "fan_out_objects.hpp"
#include "operands.hpp"
#include "rtkit/script/evaluate.hpp"
#include "rtkit/script/overloaded.hpp"
#include "semaphore_object.hpp"
#include "tcp_objects.hpp"

namespace rtkit::interp {
namespace {

/// The expressions a simple statement (let, assignment, print, assert, fail,
/// cancel, break, continue, return) evaluates, in order; empty for the others.
std::vector<const script::expr*> operands_of(const script::stmt& s) {
    auto with_optional = [](const script::expr& first, const std::optional<script::expr>& second) {
        std::vector<const script::expr*> list{&first};
        if (second) list.push_back(&*second);
        return list;
    };
    return std::visit(
        script::overloaded{
            [](const script::let_stmt& n) -> std::vector<const script::expr*> {
                return {&n.value};
            },
            [](const script::assign_stmt& n) -> std::vector<const script::expr*> {
                return {&n.value};
            },
            [](const script::print_stmt& n) {
                std::vector<const script::expr*> list;
                for (const script::expr& e : n.arguments)
                    list.push_back(&e);
                return list;
            },
            [&](const script::assert_stmt& n) { return with_optional(n.condition, n.message); },
            [](const script::fail_stmt& n) -> std::vector<const script::expr*> {
                return {&n.message};
            },
            [&](const script::cancel_stmt& n) { return with_optional(n.task, n.reason); },
            [](const script::return_stmt& n) -> std::vector<const script::expr*> {
                if (n.value) return {&*n.value};
                return {};
            },
            [](const auto&) { return std::vector<const script::expr*>{}; },
        },
        s.node);
}

bool is_simple(const script::stmt& s) {
    return std::holds_alternative<script::let_stmt>(s.node) ||
           std::holds_alternative<script::assign_stmt>(s.node) ||
           std::holds_alternative<script::print_stmt>(s.node) ||
           std::holds_alternative<script::assert_stmt>(s.node) ||
           std::holds_alternative<script::fail_stmt>(s.node) ||
           std::holds_alternative<script::cancel_stmt>(s.node) ||
           std::holds_alternative<script::return_stmt>(s.node);
}

/// The outcome a join, join_all or race statement gives, if its value is one.
std::shared_ptr<script::task_outcome> outcome_of(const script::expr& e, const script::value& v) {
    const auto* b = std::get_if<script::builtin_expr>(&e.node);
    const bool gives_outcome =
        std::holds_alternative<script::race_expr>(e.node) ||
        (b && (b->op == script::builtin::join || b->op == script::builtin::join_all));
    const auto* o = std::get_if<std::shared_ptr<script::object>>(&v);
    if (!gives_outcome || !o) return nullptr;
    return std::dynamic_pointer_cast<script::task_outcome>(*o);
}

}  // namespace

rtkit::task<flow> engine::run_block(frame& f, const script::block& body) {
    script::scope_guard scope(f.env);
    for (const script::stmt& s : body.statements) {
        if (pause_due(f.task)) co_await rtkit::yield_now();
        flow ended = flow::next;
        try {
            step(f.task, s.where);
            if (s.immediate)
                ended = run_immediate(f, s);
            else
                ended = co_await run_statement(f, s);
        } catch (const script::script_error&) {
            throw;
        } catch (const script_failure&) {
            throw;
        } catch (const rtkit::task_cancelled&) {
            throw;
        } catch (const std::exception& e) {
            // A failure below the script (allocation, the runtime) still gets
            // the position of the statement that caused it.
            fail(s.where, std::string("internal error: ") + e.what());
        }
        if (ended != flow::next) co_return ended;
    }
    co_return flow::next;
}

flow engine::run_immediate(frame& f, const script::stmt& s) {
    std::vector<script::value> values;
    for (const script::expr* e : operands_of(s))
        values.push_back(script::evaluate(*e, f.env));
    return finish_simple(f, s, std::move(values));
}

flow engine::finish_simple(frame& f, const script::stmt& s, std::vector<script::value> values) {
    return std::visit(
        script::overloaded{
            [&](const script::let_stmt& n) {
                f.env.declare(n.name, std::move(values[0]), s.where);
                return flow::next;
            },
            [&](const script::assign_stmt& n) {
                f.env.assign(n.name, std::move(values[0]), s.where);
                return flow::next;
            },
            [&](const script::print_stmt&) {
                std::string line;
                for (std::size_t i = 0; i < values.size(); ++i) {
                    if (i > 0) line += ' ';
                    line += script::to_display(values[i]);
                }
                print_line(line);
                return flow::next;
            },
            [&](const script::assert_stmt& n) {
                if (!script::truth(values[0], "assert", n.condition.where))
                    fail(s.where, "assertion failed" + (values.size() > 1
                                                            ? ": " + script::to_display(values[1])
                                                            : std::string()));
                return flow::next;
            },
            [&](const script::fail_stmt&) -> flow {
                throw script_failure(script::script_error(script::error_kind::runtime, s.where,
                                                          script::to_display(values[0])),
                                     true, f.task.identity);
            },
            [&](const script::cancel_stmt& n) {
                object_operand<task_record>(values[0], "cancel", "a task", n.task.where)
                    ->cancel(values.size() > 1 ? script::to_display(values[1]) : "cancelled");
                return flow::next;
            },
            [&](const script::break_stmt&) { return flow::break_loop; },
            [&](const script::continue_stmt&) { return flow::continue_loop; },
            [&](const script::return_stmt&) {
                f.returned =
                    values.empty() ? script::value(std::monostate{}) : std::move(values[0]);
                return flow::returned;
            },
            [&](const auto&) -> flow { fail(s.where, "internal error: not a simple statement"); },
        },
        s.node);
}

rtkit::task<flow> engine::run_statement(frame& f, const script::stmt& s) {
    using namespace script;
    if (is_simple(s)) {
        std::vector<value> values;
        for (const expr* e : operands_of(s)) {
            value v = co_await evaluate(f, *e);
            values.push_back(std::move(v));
        }
        co_return finish_simple(f, s, std::move(values));
    }
    if (const auto* n = std::get_if<sleep_stmt>(&s.node)) {
        const value d = co_await evaluate(f, n->duration);
        const auto length = duration_operand(d, "sleep", n->duration.where);
        const deadlock_watch::waiting waiting(deadlocks(), f.task, s.where,
                                              deadlock_watch::ended_by::time_or_socket);
        co_await rtkit::sleep(length);
    } else if (const auto* n = std::get_if<spin_stmt>(&s.node)) {
        const value d = co_await evaluate(f, n->duration);
        const auto busy = duration_operand(d, "spin", n->duration.where);
        // Holds the worker on purpose; a cancellation point all the same. The
        // time limit's watch cannot run meanwhile on this worker: spin checks it.
        const rtkit::cx cx = rtkit::cx::current();
        const rtkit::instant start = cx.now();
        for (rtkit::instant at = start; at - start < busy; at = cx.now()) {
            if (at >= time_limit()) out_of_time(f.task, s.where);
            cx.checkpoint();
        }
    } else if (std::holds_alternative<yield_stmt>(s.node)) {
        co_await rtkit::yield_now();
    } else if (const auto* n = std::get_if<if_stmt>(&s.node)) {
        for (const if_stmt::branch& branch : n->branches) {
            const value condition = co_await evaluate(f, branch.condition);
            if (truth(condition, "if", branch.condition.where))
                co_return co_await run_block(f, branch.body);
        }
        if (n->otherwise) co_return co_await run_block(f, *n->otherwise);
    } else if (const auto* n = std::get_if<while_stmt>(&s.node)) {
        while (true) {
            const value condition = co_await evaluate(f, n->condition);
            if (!truth(condition, "while", n->condition.where)) break;
            const flow ended = co_await run_block(f, n->body);
            if (ended == flow::break_loop) break;
            if (ended == flow::returned) co_return ended;
            step(f.task, s.where);
            if (pause_due(f.task)) co_await rtkit::yield_now();
        }
    } else if (const auto* n = std::get_if<loop_stmt>(&s.node)) {
        while (true) {
            const flow ended = co_await run_block(f, n->body);
            if (ended == flow::break_loop) break;
            if (ended == flow::returned) co_return ended;
            step(f.task, s.where);
            if (pause_due(f.task)) co_await rtkit::yield_now();
        }
    } else if (const auto* n = std::get_if<repeat_stmt>(&s.node)) {
        const value v = co_await evaluate(f, n->count);
        const std::int64_t count = integer_operand(v, "repeat", n->count.where);
        if (count < 0)
            fail(n->count.where,
                 "repeat needs a count of zero or more, not " + std::to_string(count));
        for (std::int64_t i = 0; i < count; ++i) {
            if (i > 0) {
                step(f.task, s.where);
                if (pause_due(f.task)) co_await rtkit::yield_now();
            }
            scope_guard round(f.env);
            if (n->counter) f.env.declare(*n->counter, i, s.where);
            const flow ended = co_await run_block(f, n->body);
            if (ended == flow::break_loop) break;
            if (ended == flow::returned) co_return ended;
        }
    } else if (const auto* n = std::get_if<spawn_stmt>(&s.node)) {
        // Declared first, so that a name already taken fails before the task starts.
        f.env.declare(n->task.name, std::monostate{}, s.where);
        value handle = co_await spawn(f, n->task, s.where);
        f.env.assign(n->task.name, std::move(handle), s.where);
    } else if (const auto* n = std::get_if<expression_stmt>(&s.node)) {
        const value v = co_await evaluate(f, n->value);
        // A join, join_all or race whose failure nobody looks at fails here.
        if (const auto outcome = outcome_of(n->value, v); outcome && outcome->is_failure())
            std::rethrow_exception(outcome->failure());
    } else if (const auto* n = std::get_if<region_stmt>(&s.node)) {
        co_return co_await run_scope(f, n->body);
    } else if (const auto* n = std::get_if<timeout_stmt>(&s.node)) {
        const value v = co_await evaluate(f, n->limit);
        const auto limit = duration_operand(v, "timeout", n->limit.where);
        // Waits inside end on their own when the time runs out: not a deadlock.
        ++f.task.timeouts;
        struct leave_timeout {
            task_state& task;
            ~leave_timeout() { --task.timeouts; }
        } leave{f.task};
        const std::optional<flow> ended = co_await rtkit::timeout(limit, run_block(f, n->body));
        if (ended) co_return *ended;
        if (n->otherwise) co_return co_await run_block(f, *n->otherwise);
    } else if (const auto* n = std::get_if<acquire_stmt>(&s.node)) {
        const value v = co_await evaluate(f, n->semaphore);
        const auto semaphore =
            object_operand<semaphore_object>(v, "acquire", "a semaphore", n->semaphore.where);
        std::optional<rtkit::sync::semaphore_permit> permit;
        {
            const deadlock_watch::waiting waiting(deadlocks(), f.task, s.where);
            permit = co_await semaphore->gate().acquire(1);
        }
        co_return co_await run_block(f, n->body);
    } else if (const auto* n = std::get_if<send_stmt>(&s.node)) {
        const value target = co_await evaluate(f, n->channel);
        const auto* o = std::get_if<std::shared_ptr<object>>(&target);
        if (const auto fan_out = o ? std::dynamic_pointer_cast<fan_out_object>(*o) : nullptr) {
            fan_out->send(co_await evaluate(f, n->value), s.where);  // never waits
            co_return flow::next;
        }
        const auto channel = object_operand<channel_object>(
            target, "send", "a channel, a broadcast or a watch", n->channel.where);
        value v = co_await evaluate(f, n->value);
        const deadlock_watch::waiting waiting(deadlocks(), f.task, s.where);
        co_await channel->send(std::move(v), s.where);
    } else if (const auto* n = std::get_if<close_stmt>(&s.node)) {
        const value target = co_await evaluate(f, n->target);
        const auto* o = std::get_if<std::shared_ptr<object>>(&target);
        if (const auto channel = o ? std::dynamic_pointer_cast<channel_object>(*o) : nullptr)
            channel->close(s.where);
        else if (const auto stream = o ? std::dynamic_pointer_cast<tcp_stream_object>(*o) : nullptr)
            co_await stream->close(s.where);
        else if (const auto listener =
                     o ? std::dynamic_pointer_cast<tcp_listener_object>(*o) : nullptr)
            co_await listener->close(s.where);
        else if (const auto fan_out = o ? std::dynamic_pointer_cast<fan_out_object>(*o) : nullptr)
            fan_out->close(s.where);
        else
            wrong_type("close", "a channel, a broadcast, a watch, a stream or a listener", target,
                       n->target.where);
    } else if (const auto* n = std::get_if<write_stmt>(&s.node)) {
        const value target = co_await evaluate(f, n->stream);
        const auto stream =
            object_operand<tcp_stream_object>(target, "write", "a stream", n->stream.where);
        const value data = co_await evaluate(f, n->data);
        std::string bytes = string_operand(data, "write", n->data.where);
        const deadlock_watch::waiting waiting(deadlocks(), f.task, s.where,
                                              deadlock_watch::ended_by::time_or_socket);
        co_await stream->write(std::move(bytes), s.where);
    } else {
        fail(s.where, "internal error: a statement the interpreter does not know");
    }
    co_return flow::next;
}

}  // namespace rtkit::interp
