// Expressions that need the runtime: now, calls, builtins, spawn and race.
// Their pure parts go to script::evaluate.
#include "channel_object.hpp"
#include "engine.hpp"
#include "fan_out_objects.hpp"
#include "interval_object.hpp"
#include "operands.hpp"
#include "rtkit/script/evaluate.hpp"
#include "semaphore_object.hpp"
#include "signal_object.hpp"
#include "tcp_objects.hpp"

namespace rtkit::interp {
namespace {

/// The count a channel or semaphore is made with: 1 to `max`.
std::size_t size_operand(const script::value& v, std::string_view what, std::int64_t max,
                         script::source_pos where) {
    const std::int64_t n = integer_operand(v, what, where);
    if (n < 1 || n > max)
        fail(where, std::string(what) + " needs a size from 1 to " + std::to_string(max) +
                        ", not " + std::to_string(n));
    return static_cast<std::size_t>(n);
}

/// interval's second operand: what to do about ticks taken late.
rtkit::missed_tick_behavior missed_ticks_operand(const script::value& v, script::source_pos where) {
    const std::string& name = string_operand(v, "interval", where);
    if (name == "burst") return rtkit::missed_tick_behavior::burst;
    if (name == "delay") return rtkit::missed_tick_behavior::delay;
    if (name == "skip") return rtkit::missed_tick_behavior::skip;
    fail(where,
         "interval's second argument says what to do about ticks taken late: \"burst\", "
         "\"delay\" or \"skip\", not \"" +
             name + "\"");
}

}  // namespace

rtkit::task<script::value> engine::evaluate(frame& f, const script::expr& e) {
    using namespace script;
    if (e.pure) co_return script::evaluate(e, f.env);
    if (std::holds_alternative<now_expr>(e.node)) co_return elapsed();
    if (const auto* n = std::get_if<unary_expr>(&e.node)) {
        const value operand = co_await evaluate(f, *n->operand);
        co_return apply(n->op, operand, e.where);
    }
    if (const auto* n = std::get_if<binary_expr>(&e.node)) {
        value result = co_await evaluate(f, *n->first);
        for (const binary_expr::step& s : n->rest) {
            if (s.op == binary_op::logical_and || s.op == binary_op::logical_or) {
                const bool decided = logic_operand(s.op, result, s.where);
                if (decided == (s.op == binary_op::logical_or)) co_return decided;
                const value right = co_await evaluate(f, *s.operand);
                result = logic_operand(s.op, right, s.where);
            } else {
                const value right = co_await evaluate(f, *s.operand);
                result = apply(s.op, result, right, s.where);
            }
        }
        co_return result;
    }
    if (const auto* n = std::get_if<field_expr>(&e.node)) {
        const value object = co_await evaluate(f, *n->object);
        co_return field_of(object, n->name, e.where);
    }
    value result;
    if (const auto* n = std::get_if<call_expr>(&e.node))
        result = co_await call(f, *n, e.where);
    else if (const auto* n = std::get_if<builtin_expr>(&e.node))
        result = co_await builtin(f, *n, e.where);
    else if (const auto* n = std::get_if<spawn_expr>(&e.node))
        result = co_await spawn(f, *n, e.where);
    else if (const auto* n = std::get_if<race_expr>(&e.node))
        result = co_await race(f, *n, e.where);
    else
        fail(e.where, "internal error: an expression the interpreter does not know");
    co_return result;
}

rtkit::task<script::value> engine::call(frame& f, const script::call_expr& c,
                                        script::source_pos where) {
    // The parser checked that the function exists and takes these arguments.
    const script::function_decl& function = program_.functions.find(c.function)->second;
    frame callee{f.task, script::environment{}, std::monostate{}};
    for (std::size_t i = 0; i < c.arguments.size(); ++i) {
        script::value argument = co_await evaluate(f, c.arguments[i]);
        callee.env.declare(function.parameters[i], std::move(argument), where);
    }
    if (f.task.call_depth >= max_call_depth)
        fail(where, "calls are nested too deeply (the limit is " + std::to_string(max_call_depth) +
                        "): a recursion without an end?");
    ++f.task.call_depth;
    struct leave_call {
        task_state& task;
        ~leave_call() { --task.call_depth; }
    } leave{f.task};
    const flow ended = co_await run_block(callee, function.body);
    if (ended == flow::returned) co_return std::move(callee.returned);
    co_return script::value();
}

rtkit::task<script::value> engine::builtin(frame& f, const script::builtin_expr& b,
                                           script::source_pos where) {
    using script::builtin;
    if (b.op == builtin::join_all) co_return co_await join_all(f, b, where);
    if (b.op == builtin::signal) {
        std::vector<std::string> names;
        for (const script::expr& name : b.operands) {
            const script::value given = co_await evaluate(f, name);
            names.push_back(string_operand(given, "signal", name.where));
        }
        co_return std::shared_ptr<script::object>(signal_object::listen(names, where));
    }
    const script::expr& operand_expr = b.operands.front();
    const script::value operand = co_await evaluate(f, operand_expr);
    const std::string_view what = script::spelling(b.op);
    const script::source_pos at = operand_expr.where;
    switch (b.op) {
        case builtin::join: {
            const auto task = object_operand<task_record>(operand, what, "a task", at);
            const deadlock_watch::waiting waiting(deadlocks(), f.task, where);
            std::shared_ptr<script::object> outcome = co_await task->join();
            co_return outcome;
        }
        case builtin::recv: {
            const auto* o = std::get_if<std::shared_ptr<script::object>>(&operand);
            if (const auto subscription =
                    o ? std::dynamic_pointer_cast<subscription_object>(*o) : nullptr) {
                const deadlock_watch::waiting waiting(deadlocks(), f.task, where);
                script::value received = co_await subscription->recv();
                co_return received;
            }
            if (const auto signals = o ? std::dynamic_pointer_cast<signal_object>(*o) : nullptr) {
                // Ended from outside the script, as a socket's wait is.
                const deadlock_watch::waiting waiting(deadlocks(), f.task, where,
                                                      deadlock_watch::ended_by::time_or_socket);
                script::value name = co_await signals->next();
                co_return name;
            }
            const auto channel = object_operand<channel_object>(
                operand, what, "a channel, a subscription or a signal stream", at);
            const deadlock_watch::waiting waiting(deadlocks(), f.task, where);
            script::value received = co_await channel->recv();
            co_return received;
        }
        case builtin::channel: {
            auto channel = std::make_shared<channel_object>(
                size_operand(operand, "channel", channel_object::max_capacity, at));
            track(channel);
            co_return std::shared_ptr<script::object>(std::move(channel));
        }
        case builtin::semaphore:
            co_return std::shared_ptr<script::object>(std::make_shared<semaphore_object>(
                size_operand(operand, "semaphore", semaphore_object::max_permits, at)));
        case builtin::listen:
            co_return std::shared_ptr<script::object>(
                tcp_listener_object::listen(string_operand(operand, what, at), where));
        case builtin::accept: {
            const auto listener =
                object_operand<tcp_listener_object>(operand, what, "a listener", at);
            const deadlock_watch::waiting waiting(deadlocks(), f.task, where,
                                                  deadlock_watch::ended_by::time_or_socket);
            std::shared_ptr<script::object> stream = co_await listener->accept(where);
            if (!stream) co_return script::value();  // the listener was closed meanwhile
            co_return stream;
        }
        case builtin::connect: {
            std::string address = string_operand(operand, what, at);
            std::optional<rtkit::duration> timeout;
            if (b.operands.size() > 1) {
                const script::expr& limit = b.operands[1];
                const script::value given = co_await evaluate(f, limit);
                timeout = duration_operand(given, "connect ... timeout", limit.where);
            }
            const deadlock_watch::waiting waiting(deadlocks(), f.task, where,
                                                  deadlock_watch::ended_by::time_or_socket);
            std::shared_ptr<script::object> stream =
                co_await tcp_stream_object::connect(std::move(address), timeout, where);
            co_return stream;
        }
        case builtin::read: {
            const auto stream = object_operand<tcp_stream_object>(operand, what, "a stream", at);
            const deadlock_watch::waiting waiting(deadlocks(), f.task, where,
                                                  deadlock_watch::ended_by::time_or_socket);
            script::value data = co_await stream->read(where);
            co_return data;
        }
        case builtin::interval: {
            const rtkit::duration period = duration_operand(operand, what, at);
            if (period <= rtkit::duration::zero()) fail(at, "interval needs a period above zero");
            rtkit::missed_tick_behavior behavior = rtkit::missed_tick_behavior::burst;
            if (b.operands.size() > 1) {
                const script::value second = co_await evaluate(f, b.operands[1]);
                behavior = missed_ticks_operand(second, b.operands[1].where);
            }
            const rtkit::instant script_start = rtkit::now() - elapsed();
            co_return std::shared_ptr<script::object>(
                std::make_shared<interval_object>(script_start, period, behavior));
        }
        case builtin::tick: {
            const auto ticks = object_operand<interval_object>(operand, what, "an interval", at);
            const deadlock_watch::waiting waiting(deadlocks(), f.task, where,
                                                  deadlock_watch::ended_by::time_or_socket);
            script::value due = co_await ticks->tick();
            co_return due;
        }
        case builtin::broadcast: {
            auto made = std::make_shared<broadcast_object>(
                size_operand(operand, "broadcast", broadcast_object::max_capacity, at));
            track(made);
            co_return std::shared_ptr<script::object>(std::move(made));
        }
        case builtin::watch: {
            auto made = std::make_shared<watch_object>(operand);
            track(made);
            co_return std::shared_ptr<script::object>(std::move(made));
        }
        case builtin::subscribe: {
            std::shared_ptr<script::object> subscription =
                object_operand<fan_out_object>(operand, what, "a broadcast or a watch", at)
                    ->subscribe();
            track(subscription);
            co_return subscription;
        }
        case builtin::join_all:
        case builtin::signal:
            break;
    }
    fail(where, "internal error: a builtin the interpreter does not know");
}

}  // namespace rtkit::interp
