#pragma once
// rtkit::task_set<T>: many tasks spawned together, their outcomes taken as
// they finish, all of them cancelled when the set goes (tokio's JoinSet).
#include <atomic>
#include <cstddef>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "rtkit/cx.hpp"
#include "rtkit/diagnostics.hpp"
#include "rtkit/outcome.hpp"
#include "rtkit/sync/notify.hpp"
#include "rtkit/sync/spin_lock.hpp"
#include "rtkit/task.hpp"

namespace rtkit {

template <class T>
class task_set;

namespace detail {

/// One task of a set, from its spawn until its outcome is taken (or dropped
/// with the set). The set's lock guards every field but `result`, which the
/// task's body writes before it ends and the set reads after it ended.
template <class T>
struct task_set_member {
    task_set_member* prev = nullptr;
    task_set_member* next = nullptr;
    /// The task while its body runs, so that the set can cancel it.
    task_header* running = nullptr;
    /// Set when the set cancelled it before its body began.
    std::optional<cancel_reason> cancel_before_start;
    std::optional<outcome<T>> result;
    task_id failed_id;  ///< the task's id, when it failed (for the report)
};

/// A list of members, linked through them.
template <class T>
class task_set_list {
  public:
    using member = task_set_member<T>;
    bool empty() const noexcept { return head_ == nullptr; }
    member* front() const noexcept { return head_; }
    void push_back(member* m) noexcept {
        m->prev = tail_;
        m->next = nullptr;
        (tail_ ? tail_->next : head_) = m;
        tail_ = m;
    }
    void remove(member* m) noexcept {
        (m->prev ? m->prev->next : head_) = m->next;
        (m->next ? m->next->prev : tail_) = m->prev;
        m->prev = m->next = nullptr;
    }
    member* pop_front() noexcept {
        member* m = head_;
        if (m) remove(m);
        return m;
    }

  private:
    member* head_ = nullptr;
    member* tail_ = nullptr;
};

/// What a set and the tasks it spawned share. A member moves from `running`
/// to `finished` once its task's body is over and has left its outcome in
/// it; a task cancelled before its body began is handed over when its frame
/// goes instead (task_set_ticket), so a member never stays running for ever.
template <class T>
class task_set_state {
  public:
    using member = task_set_member<T>;

    sync::detail::spin_lock lock;
    // Guarded by lock:
    task_set_list<T> running;
    task_set_list<T> finished;
    std::size_t size = 0;
    bool set_alive = true;
    /// Notified when a member is finished (join_next waits here).
    sync::notify member_finished;

    /// The body of `m`'s task begins: false when the set already cancelled
    /// it (then its outcome says so).
    bool start(member& m, task_header* task) {
        std::lock_guard guard(lock);
        if (m.cancel_before_start) {
            m.result.emplace(outcome<T>::cancelled(*m.cancel_before_start));
            return false;
        }
        m.running = task;
        return true;
    }
    /// `m`'s task is over: `m` goes to the finished list, or, if the set is
    /// gone, away (its failure reported).
    void member_ended(member* m) noexcept {
        {
            std::lock_guard guard(lock);
            running.remove(m);
            m->running = nullptr;
            // Ended without a word (cancelled before it began, or no memory
            // to say how): cancelled, "never completed".
            if (!m->result) m->result.emplace();
            if (set_alive) {
                finished.push_back(m);
                m = nullptr;
            }
        }
        if (m) {
            report_if_failed(*m);
            delete m;
        } else {
            member_finished.notify_one();
        }
    }

    /// Cancels every running member: a task whose body runs gets a
    /// cancellation request; one not begun yet ends cancelled when it
    /// begins.
    void cancel_all(const cancel_reason& reason) {
        std::vector<task_header*> to_cancel;
        {
            std::lock_guard guard(lock);
            for (member* m = running.front(); m; m = m->next) {
                if (m->running) {
                    m->running->add_ref();  // its frame stays while we cancel it
                    to_cancel.push_back(m->running);
                } else if (!m->cancel_before_start) {
                    m->cancel_before_start.emplace(reason);
                }
            }
        }
        for (task_header* t : to_cancel) {
            t->home().request_cancel(t, reason);
            t->release();
        }
    }

    static void report_if_failed(const member& m) noexcept {
        if (m.result && m.result->is_panicked())
            report_unobserved_failure(m.failed_id, m.result->exception(), " of a task set");
    }

    void add_ref() noexcept { refs_.fetch_add(1, std::memory_order_relaxed); }
    void release() noexcept {
        if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
    }

  private:
    std::atomic<int> refs_{1};  ///< the set's, and one per member's task
};

/// A parameter of a member's task, which holds a reference to the set's
/// state. The body hands the member over when it ends (hand_over); a task
/// cancelled before its body began never runs it, so the ticket hands the
/// member over when the frame goes.
template <class T>
class task_set_ticket {
  public:
    task_set_ticket(task_set_state<T>* state, task_set_member<T>* m) noexcept
        : state_(state), member_(m) {}
    task_set_ticket(task_set_ticket&& other) noexcept
        : state_(std::exchange(other.state_, nullptr)),
          member_(other.member_),
          handed_over_(other.handed_over_) {}
    task_set_ticket& operator=(task_set_ticket&&) = delete;
    ~task_set_ticket() {
        if (!state_) return;
        if (!handed_over_) state_->member_ended(member_);
        state_->release();
    }
    task_set_state<T>& state() const noexcept { return *state_; }
    task_set_member<T>& member() const noexcept { return *member_; }
    /// The member is the set's again (it may be gone once this returns).
    void hand_over() noexcept {
        handed_over_ = true;
        state_->member_ended(member_);
    }

  private:
    task_set_state<T>* state_;
    task_set_member<T>* member_;
    bool handed_over_ = false;
};

/// The task the set spawns for a member: runs `inner` inline and keeps how
/// it ended in the member. Its own outcome is always ok, so nobody needs to
/// take it: the member carries the real one. (`inner` is the last parameter,
/// so that a frame destroyed unrun drops it before the ticket hands over.)
template <class T>
task<void> run_in_set(task_set_ticket<T> ticket, task<T> inner) {
    task_set_member<T>& m = ticket.member();
    // However the body ends: the inner task's frame goes (with its
    // parameters) before the set hears of the end.
    struct hand_over_on_exit {
        task_set_ticket<T>& ticket;
        task<T>& inner;
        ~hand_over_on_exit() {
            inner = task<T>();
            ticket.hand_over();
        }
    } hand_over{ticket, inner};
    if (!ticket.state().start(m, current_task())) co_return;
    try {
        if constexpr (std::is_void_v<T>) {
            co_await std::move(inner);
            m.result.emplace(outcome<void>::ok());
        } else {
            m.result.emplace(outcome<T>::ok(co_await std::move(inner)));
        }
    } catch (const task_cancelled& c) {
        m.result.emplace(outcome<T>::cancelled(c.reason()));
    } catch (...) {
        m.result.emplace(outcome<T>::panicked(std::current_exception()));
        try {
            m.failed_id = current_task()->id();
        } catch (...) {
            // No memory for an id: the report goes without one.
        }
    }
}

}  // namespace detail

/// A set of tasks of one result type: spawn() starts each as a task of its
/// own, join_next() gives their outcomes in the order they finish, and when
/// the set is destroyed, the tasks still running are cancelled (tokio's
/// JoinSet). The tasks belong to the region of the task that spawned them,
/// which still waits for them (cancelled or not) before it closes.
///
/// An outcome nobody took, because the set was destroyed first, is dropped;
/// a failure among them (a task that threw) is reported through the
/// diagnostic hook, as for a join handle dropped unawaited. A task costs its
/// frame, one small frame around it and one node in the set. Any thread may
/// destroy or cancel a set; one task at a time spawns into it and awaits
/// join_next.
template <class T>
class task_set {
  public:
    task_set() : state_(new detail::task_set_state<T>()) {}
    task_set(task_set&& other) noexcept : state_(std::exchange(other.state_, nullptr)) {}
    task_set& operator=(task_set other) noexcept {
        std::swap(state_, other.state_);
        return *this;
    }
    ~task_set() {
        if (!state_) return;
        state_->cancel_all(cancel_reason{"task set dropped"});
        detail::task_set_list<T> unjoined;
        {
            std::lock_guard guard(state_->lock);
            state_->set_alive = false;
            while (detail::task_set_member<T>* m = state_->finished.pop_front())
                unjoined.push_back(m);
        }
        while (detail::task_set_member<T>* m = unjoined.pop_front()) {
            detail::task_set_state<T>::report_if_failed(*m);
            delete m;
        }
        state_->release();
    }

    /// Starts `t` as a task of the calling task's region (see cx::spawn).
    /// Throws no_runtime_error outside a task.
    void spawn(task<T> t) {
        cx here = cx::current();
        auto* m = new detail::task_set_member<T>();
        {
            std::lock_guard guard(state_->lock);
            state_->running.push_back(m);
            ++state_->size;
        }
        state_->add_ref();  // the ticket's
        task<void> runner;
        try {
            runner = detail::run_in_set(detail::task_set_ticket<T>(state_, m), std::move(t));
        } catch (...) {
            // No memory for the frame: the ticket handed `m` over as ended
            // and released its reference.
            {
                std::lock_guard guard(state_->lock);
                state_->finished.remove(m);
                --state_->size;
            }
            delete m;
            throw;
        }
        here.spawn(std::move(runner)).detach();
    }

    /// `while (auto o = co_await set.join_next())`: the outcome of the next
    /// task to finish, waiting for one while tasks run; nullopt when the set
    /// is empty. A cancellation point, and cancellation-safe: cancelled while
    /// it waits, it takes no outcome. The set must outlive the co_await.
    task<std::optional<outcome<T>>> join_next() {
        std::unique_ptr<detail::task_set_member<T>> m = co_await next_finished();
        if (!m) co_return std::nullopt;
        co_return std::move(m->result);
    }

    /// Cancels every task in the set: each ends cancelled (with `reason`)
    /// at its next await point, or before it begins. Returns at once; their
    /// outcomes still come through join_next.
    void cancel_all(cancel_reason reason = {"task set cancelled"}) { state_->cancel_all(reason); }

    /// Cancels every task and waits until all have ended, dropping their
    /// outcomes (a failure among them is reported, as nobody took it).
    task<void> shutdown() {
        cancel_all();
        while (std::unique_ptr<detail::task_set_member<T>> m = co_await next_finished())
            detail::task_set_state<T>::report_if_failed(*m);
    }

    /// Tasks in the set: running, or finished with their outcome not taken.
    std::size_t size() const {
        std::lock_guard guard(state_->lock);
        return state_->size;
    }
    bool empty() const { return size() == 0; }

  private:
    /// The next finished member, waiting for one while tasks run; null when
    /// the set is empty. Its only wait is for the notification, before it
    /// takes anything.
    task<std::unique_ptr<detail::task_set_member<T>>> next_finished() {
        for (;;) {
            {
                std::lock_guard guard(state_->lock);
                if (detail::task_set_member<T>* m = state_->finished.pop_front()) {
                    --state_->size;
                    co_return std::unique_ptr<detail::task_set_member<T>>(m);
                }
                if (state_->running.empty()) co_return nullptr;
            }
            co_await state_->member_finished.notified();
        }
    }

    detail::task_set_state<T>* state_;
};

}  // namespace rtkit
