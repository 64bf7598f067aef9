// Tasks: their bodies and scopes, spawn, join_all and race.
#include <rtkit/combinators.hpp>
#include <rtkit/cx.hpp>

#include "engine.hpp"
#include "operands.hpp"
#include "task_scope.hpp"

namespace rtkit::interp {
namespace {

/// cx::region's body for a scope: the engine does the work. (A functor rather
/// than a capturing lambda: cx::region keeps it in its frame while it runs.)
struct scope_body {
    engine* self;
    frame* f;
    const script::block* body;
    task_scope* scope;
    rtkit::task<flow> operator()(rtkit::cx region) const {
        return self->run_scope_body(region, *f, *body, *scope);
    }
};

/// The failure outcome of what a task threw (`failure`, in flight).
std::shared_ptr<script::task_outcome> failed_outcome(const script_failure& f,
                                                     std::exception_ptr failure) {
    using status = script::task_outcome::status;
    return script::task_outcome::failed(f.deliberate() ? status::error : status::panicked,
                                        f.error().message(), std::move(failure));
}

/// A script value of the worst of `outcomes` (the first of that severity), or
/// ok(none) when every one is ok.
std::shared_ptr<script::task_outcome> worst_of(
    const std::vector<std::shared_ptr<script::task_outcome>>& outcomes) {
    std::shared_ptr<script::task_outcome> worst;
    for (const auto& o : outcomes)
        if (o->state() != script::task_outcome::status::ok &&
            (!worst || o->state() > worst->state()))
            worst = o;
    return worst ? worst : script::task_outcome::ok(std::monostate{});
}

}  // namespace

rtkit::task<script::value> engine::run_task(std::shared_ptr<const task_identity> identity,
                                            const script::block& body, script::environment env,
                                            std::shared_ptr<task_record> record,
                                            live_task /*alive*/) {
    if (record)
        if (std::optional<std::string> reason = record->start()) {
            // Cancelled before it started: it ends so, running nothing.
            record->finish(script::task_outcome::cancelled(*reason));
            throw rtkit::task_cancelled(rtkit::cancel_reason{std::move(*reason)});
        }
    task_state state{{identity, {}, 0}, rtkit::cx::current(), {}, 0};
    const deadlock_watch::task_alive alive(deadlocks(), state);
    frame f{state, std::move(env), std::monostate{}};
    // The outcome is published by the body itself, whatever way it ends, and
    // the exception goes on to the runtime, whose outcome then agrees.
    try {
        const flow ended = co_await run_scope(f, body);
        script::value result =
            ended == flow::returned ? std::move(f.returned) : script::value(std::monostate{});
        if (record) record->finish(script::task_outcome::ok(result));
        co_return result;
    } catch (const rtkit::task_cancelled& c) {
        if (record) record->finish(script::task_outcome::cancelled(c.reason().message));
        throw;
    } catch (const script_failure& failure) {
        if (record) record->finish(failed_outcome(failure, std::current_exception()));
        throw;
    } catch (const script::script_error& e) {
        // A runtime error of this very task: from now on it carries the task.
        const script_failure failure(e, false, identity);
        const std::exception_ptr thrown = std::make_exception_ptr(failure);
        if (record) record->finish(failed_outcome(failure, thrown));
        std::rethrow_exception(thrown);
    } catch (const std::exception& e) {
        const script_failure failure(
            script::script_error(script::error_kind::runtime, body.where,
                                 std::string("internal error: ") + e.what()),
            false, identity);
        const std::exception_ptr thrown = std::make_exception_ptr(failure);
        if (record) record->finish(failed_outcome(failure, thrown));
        std::rethrow_exception(thrown);
    }
}

rtkit::task<flow> engine::run_scope(frame& f, const script::block& body) {
    task_scope scope;
    std::exception_ptr failure;
    flow ended = flow::next;
    try {
        ended = co_await rtkit::cx::current().region(scope_body{this, &f, &body, &scope});
    } catch (...) {
        failure = std::current_exception();
    }
    // The region has ended, and every task in it. Failures that close() did
    // not pass on go no further than here: print them.
    scope.finish_unstarted();
    for (const auto& record : scope.unreported_failures())
        report(never_joined(record->outcome()->failure()));
    // Every task ended, so these awaits neither wait nor throw.
    std::vector<rtkit::join_handle<script::value>> failed = scope.failed_handles(true);
    for (auto& handle : failed)
        (void)co_await std::move(handle);
    if (failure) std::rethrow_exception(failure);
    co_return ended;
}

rtkit::task<flow> engine::run_scope_body(rtkit::cx region, frame& f, const script::block& body,
                                         task_scope& scope) {
    scope.open(region);
    f.task.scopes.push_back(&scope);
    struct pop_scope {
        task_state& task;
        ~pop_scope() { task.scopes.pop_back(); }
    } pop{f.task};
    const flow ended = co_await run_block(f, body);
    co_await scope.close(deadlocks(), f.task, body.where);
    co_return ended;
}

rtkit::task<script::value> engine::spawn(frame& f, const script::spawn_expr& s,
                                         script::source_pos where) {
    // A function gets its arguments, evaluated here; a block a copy of the variables.
    script::environment env;
    const script::block* body = s.body.get();
    if (s.call) {
        const script::function_decl& function = program_.functions.find(s.call->function)->second;
        for (std::size_t i = 0; i < s.call->arguments.size(); ++i) {
            script::value argument = co_await evaluate(f, s.call->arguments[i]);
            env.declare(function.parameters[i], std::move(argument), where);
        }
        body = &function.body;
    } else {
        env = f.env.snapshot();
    }
    live_task alive = admit_task(f.task, where);
    task_scope& scope = *f.task.scopes.back();
    // Failed tasks that ended: a scope that spawns for ever does not grow.
    std::vector<rtkit::join_handle<script::value>> failed = scope.failed_handles(false);
    for (auto& handle : failed)
        (void)co_await std::move(handle);
    auto identity =
        std::make_shared<const task_identity>(task_identity{s.name, where, f.task.identity});
    std::shared_ptr<task_record> record = scope.new_record(identity);
    scope.start(record, run_task(identity, *body, std::move(env), record, std::move(alive)));
    track(record);
    co_return std::shared_ptr<script::object>(record);
}

rtkit::task<script::value> engine::join_all(frame& f, const script::builtin_expr& b,
                                            script::source_pos where) {
    std::vector<std::shared_ptr<task_record>> tasks;
    if (b.operands.empty()) {
        tasks = f.task.scopes.back()->unobserved();
    } else {
        for (const script::expr& operand : b.operands) {
            const script::value v = co_await evaluate(f, operand);
            tasks.push_back(object_operand<task_record>(v, "join_all", "tasks", operand.where));
        }
    }
    std::vector<std::shared_ptr<script::task_outcome>> outcomes;
    for (const auto& task : tasks) {
        std::shared_ptr<script::task_outcome> outcome = task->join_if_ended();
        if (!outcome) {
            // Counted as waiting only for a task still running: a join_all
            // of many ended tasks takes a while, and runs all that time.
            deadlock_watch::waiting waiting(deadlocks(), f.task, where);
            outcome = co_await task->join();
        }
        outcomes.push_back(std::move(outcome));
    }
    co_return std::shared_ptr<script::object>(worst_of(outcomes));
}

rtkit::task<script::value> engine::race(frame& f, const script::race_expr& r,
                                        script::source_pos where) {
    std::vector<rtkit::task<script::value>> blocks;
    std::vector<std::shared_ptr<task_record>> records;
    for (std::size_t i = 0; i < r.blocks.size(); ++i) {
        auto identity = std::make_shared<const task_identity>(
            task_identity{"race block " + std::to_string(i + 1), where, f.task.identity});
        records.push_back(std::make_shared<task_record>(identity, nullptr, i));
        track(records.back());
        blocks.push_back(run_task(identity, r.blocks[i], f.env.snapshot(), records.back(),
                                  admit_task(f.task, where)));
    }
    // rtkit::race runs them in a region of their own, cancels the losers and
    // waits for them to end before it returns.
    rtkit::outcome<script::value> first;
    {
        const deadlock_watch::waiting waiting(deadlocks(), f.task, where);
        first = co_await rtkit::race(std::move(blocks));
    }
    // The runtime does not start a block cancelled before its first poll.
    for (const auto& record : records)
        record->finish(script::task_outcome::cancelled("lost the race"));
    std::shared_ptr<script::task_outcome> winner;
    if (first.is_ok()) {
        winner = script::task_outcome::ok(first.value());
    } else if (first.is_cancelled()) {
        winner = script::task_outcome::cancelled(first.reason().message);
    } else {
        // A block failed first: its record holds the same exception.
        for (const auto& record : records)
            if (const auto outcome = record->outcome();
                outcome->failure() == first.exception() && record->claim_observation())
                winner = outcome;
        if (!winner)
            winner = script::task_outcome::failed(script::task_outcome::status::panicked,
                                                  "internal error: a race block failed unseen",
                                                  first.exception());
    }
    // A block that failed as it lost: nobody else will see it.
    for (const auto& record : records)
        if (const auto outcome = record->outcome();
            outcome->is_failure() && record->claim_observation())
            report(outcome->failure());
    co_return std::shared_ptr<script::object>(winner);
}

}  // namespace rtkit::interp
