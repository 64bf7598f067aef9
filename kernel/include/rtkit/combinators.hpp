#pragma once
// join_all and race: run several tasks at once and combine their outcomes.
#include <cstddef>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "rtkit/cx.hpp"

namespace rtkit {

namespace detail {

/// Suspends until at least one of `tasks` finished. A cancellation point.
class any_finished_awaiter : leaf_check {
  public:
    explicit any_finished_awaiter(std::vector<task_header*> tasks) noexcept
        : leaf_check{&leaf_ready}, tasks_(std::move(tasks)) {}
    bool await_ready() const noexcept { return cancel_pending() || first_finished() != npos; }
    bool await_suspend(std::coroutine_handle<>) {
        if (!install_all()) return false;
        task_header* self = current_task();
        self->leaf = this;
        return true;
    }
    /// The index of the first finished task (in the given order).
    std::size_t await_resume() {
        check_cancel();
        return first_finished();
    }

  private:
    static constexpr std::size_t npos = static_cast<std::size_t>(-1);
    std::size_t first_finished() const noexcept {
        for (std::size_t i = 0; i < tasks_.size(); ++i)
            if (join_finished(tasks_[i])) return i;
        return npos;
    }
    bool install_all() {
        for (task_header* t : tasks_)
            if (!join_install_waker(t)) return false;
        return true;
    }
    static bool leaf_ready(leaf_check& self) noexcept {
        auto* me = static_cast<any_finished_awaiter*>(&self);
        if (cancel_pending() || me->first_finished() != npos) return true;
        return !me->install_all();
    }
    std::vector<task_header*> tasks_;
};

/// The more severe of two outcome states (ok < err < cancelled < panicked).
template <class A, class B>
bool more_severe(const outcome<A>& a, const outcome<B>& b) noexcept {
    return static_cast<int>(a.status()) > static_cast<int>(b.status());
}

/// Converts a non-ok outcome to another value type, keeping its state.
template <class To, class From>
outcome<To> rethrow_as(const outcome<From>& o) {
    switch (o.status()) {
        case outcome<From>::state::err:
            return outcome<To>::err(o.error());
        case outcome<From>::state::cancelled:
            return outcome<To>::cancelled(o.reason());
        default:
            return outcome<To>::panicked(o.exception());
    }
}

}  // namespace detail

namespace detail {

// The bodies run inside cx::region, which keeps the functor alive in its frame
// while the body runs. (join_all and race themselves are not coroutines, so
// the tasks never sit in a coroutine parameter that a lambda moves from.)

/// What join_all of tasks of T gives when all are ok: their values in order,
/// or nothing for tasks of void.
template <class T>
struct join_all_values {
    using type = std::vector<T>;
};
template <>
struct join_all_values<void> {
    using type = void;
};

template <class T>
struct join_all_body {
    using values_type = typename join_all_values<T>::type;
    std::vector<task<T>> tasks;
    task<outcome<values_type>> operator()(cx scope) {
        std::vector<join_handle<T>> handles;
        handles.reserve(tasks.size());
        for (task<T>& t : tasks) {
            handles.push_back(scope.spawn(std::move(t)));
            own_outcome(*handles.back().record());
        }
        std::vector<outcome<T>> outcomes;
        outcomes.reserve(handles.size());
        for (join_handle<T>& h : handles)
            outcomes.push_back(co_await std::move(h));
        const outcome<T>* worst = nullptr;
        for (const outcome<T>& o : outcomes)
            if (!o.is_ok() && (!worst || more_severe(o, *worst))) worst = &o;
        if (worst) co_return rethrow_as<values_type>(*worst);
        if constexpr (std::is_void_v<T>) {
            co_return outcome<void>::ok();
        } else {
            std::vector<T> values;
            values.reserve(outcomes.size());
            for (outcome<T>& o : outcomes)
                values.push_back(std::move(o).value());
            co_return outcome<values_type>::ok(std::move(values));
        }
    }
};

template <class T>
struct race_body {
    std::vector<task<T>> tasks;
    task<outcome<T>> operator()(cx scope) {
        if (tasks.empty()) co_return outcome<T>::cancelled(cancel_reason{"race of no tasks"});
        std::vector<join_handle<T>> handles;
        std::vector<task_header*> records;
        handles.reserve(tasks.size());
        for (task<T>& t : tasks) {
            handles.push_back(scope.spawn(std::move(t)));
            records.push_back(handles.back().record());
            own_outcome(*records.back());
        }
        std::size_t winner = co_await any_finished_awaiter(std::move(records));
        for (std::size_t i = 0; i < handles.size(); ++i)
            if (i != winner) handles[i].cancel(cancel_reason{"lost the race"});
        outcome<T> first = co_await std::move(handles[winner]);
        // The losers' outcomes are race's to drop: one that failed as it lost
        // (in the same turn as the winner) is not a failure nobody took.
        for (std::size_t i = 0; i < handles.size(); ++i)
            if (i != winner) co_await std::move(handles[i]);
        co_return first;
    }
};

/// The outcome of a task that has finished, taken without waiting; the
/// handle is empty afterwards.
template <class T>
outcome<T> take_finished(join_handle<T>& handle) {
    outcome<T> result = handle.record()->take_result();
    outcome_taken(*handle.record());
    handle = join_handle<T>();
    return result;
}

/// The body of race over tasks of different types (see race below).
template <class... Ts>
struct race_variant_body {
    using result_type = std::variant<outcome<Ts>...>;
    std::tuple<task<Ts>...> tasks;

    task<result_type> operator()(cx scope) {
        // A braced list spawns them in order.
        std::tuple<join_handle<Ts>...> handles = std::apply(
            [&](task<Ts>&... ts) {
                return std::tuple<join_handle<Ts>...>{scope.spawn(std::move(ts))...};
            },
            tasks);
        std::vector<task_header*> records;
        std::apply([&](join_handle<Ts>&... h) { (records.push_back(h.record()), ...); }, handles);
        for (task_header* r : records)
            own_outcome(*r);
        const std::size_t winner = co_await any_finished_awaiter(std::move(records));
        std::apply(
            [&](join_handle<Ts>&... h) {
                std::size_t i = 0;
                ((i++ != winner ? h.cancel(cancel_reason{"lost the race"}) : void()), ...);
            },
            handles);
        // The region drains the losers before race returns; their outcomes
        // are race's to drop (outcome_owned), so a loser that failed as it
        // lost is not reported.
        co_return take_winner(handles, winner, std::index_sequence_for<Ts...>{});
    }

    template <std::size_t... I>
    static result_type take_winner(std::tuple<join_handle<Ts>...>& handles, std::size_t winner,
                                   std::index_sequence<I...>) {
        std::optional<result_type> result;
        ((I == winner
              ? (void)result.emplace(std::in_place_index<I>, take_finished(std::get<I>(handles)))
              : void()),
         ...);
        return std::move(*result);
    }
};

}  // namespace detail

/// Runs every task at once, in a child region, and waits for all of them. Ok
/// with every value, in order, when all are ok (outcome<void> for tasks of
/// void); otherwise the most severe outcome among them (the first one of that
/// severity). If the caller is cancelled meanwhile, the tasks are cancelled and
/// drained first, and what they ended with is dropped (even a failure).
template <class T>
task<outcome<typename detail::join_all_values<T>::type>> join_all(std::vector<task<T>> tasks) {
    return cx::current().region(detail::join_all_body<T>{std::move(tasks)});
}

/// Runs every task at once, in a child region, and returns the outcome of the
/// first to finish (the lowest index among those finished together). The
/// losers are cancelled and drained before race returns, so none outlives it;
/// the same happens to all of them if the caller is cancelled, and what they
/// ended with is dropped then (even a failure).
template <class T>
task<outcome<T>> race(std::vector<task<T>> tasks) {
    return cx::current().region(detail::race_body<T>{std::move(tasks)});
}

/// race over tasks of different result types: runs them at once, in a child
/// region, and gives the outcome of the first to finish (the lowest position
/// among those finished together) as the alternative of the variant at its
/// position, so `result.index()` says which won, also when types repeat:
///
///     auto r = co_await race(fetch(url), sleep_then(5s));  // task<std::string>, task<void>
///     if (r.index() == 0) use(std::get<0>(r).value());
///
/// Like race over a vector, the losers are cancelled and drained before it
/// returns, and so is every task if the caller is cancelled; what the losers
/// ended with is dropped (even a failure).
template <class T0, class T1, class... Ts>
task<std::variant<outcome<T0>, outcome<T1>, outcome<Ts>...>> race(task<T0> first, task<T1> second,
                                                                  task<Ts>... rest) {
    return cx::current().region(detail::race_variant_body<T0, T1, Ts...>{
        {std::move(first), std::move(second), std::move(rest)...}});
}

}  // namespace rtkit
