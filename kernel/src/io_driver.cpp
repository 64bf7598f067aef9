#include "rtkit/detail/io_driver.hpp"

#include <cerrno>
#include <system_error>
#include <utility>

#include "rtkit/reactor_support/thread_number.hpp"
#include "thread_context.hpp"
#include "worker.hpp"
#include "worker_group.hpp"

namespace rtkit::detail {

namespace {
/// Marks a call into the reactor plugin on the activity board of the worker
/// the calling thread drives, when that worker's runtime owns `io` (a thread
/// driving no worker of it marks nothing). `timed`: a poll that may block.
activity_slot* caller_slot(io_driver& io) noexcept {
    const handle* const here = driving();
    return here && &here->group().io() == &io ? &here->owner().activity() : nullptr;
}
activity_mark in_reactor(io_driver& io, plugin_call call, bool timed = false) noexcept {
    return activity_mark(caller_slot(io), worker_activity::state::in_reactor, call, timed);
}
}  // namespace

void io_driver::lock_calls() {
    if (calls_.try_lock()) return;
    const activity_mark waiting(caller_slot(*this), worker_activity::state::waiting_for_reactor,
                                plugin_call::none, true);
    waiting_for_calls_.fetch_add(1, std::memory_order_acq_rel);
    wake();
    calls_.lock();
    waiting_for_calls_.fetch_sub(1, std::memory_order_acq_rel);
}

io_driver::io_driver(std::shared_ptr<reactor> backend, std::string name)
    : backend_(std::move(backend)),
      name_(std::move(name)),
      limits_(backend_->limits()),
      thread_bound_(backend_->query_interface(thread_bound_reactor_name) != nullptr),
      completions_(static_cast<completion_reactor_v1*>(
          backend_->query_interface(completion_reactor_v1_name))),
      handoff_(static_cast<driver_handoff_v1*>(backend_->query_interface(driver_handoff_v1_name))) {
}

bool io_driver::claim_for_this_thread() noexcept {
    if (!thread_bound_) return true;
    const std::uint64_t me = reactor_support::this_thread_number();
    std::uint64_t none = 0;
    return home_.compare_exchange_strong(none, me, std::memory_order_relaxed) || none == me;
}

bool io_driver::begin_driving_unshared() noexcept {
    const std::uint64_t me = reactor_support::this_thread_number();
    // A plain load first: every block_on of a one-thread runtime comes here.
    std::uint64_t first = first_driver_.load(std::memory_order_relaxed);
    if (first == me) return true;
    if (first == 0 && first_driver_.compare_exchange_strong(first, me, std::memory_order_relaxed))
        return true;
    return share();  // a second thread: the backend is shared from now on
}

bool io_driver::share_before_handoff() noexcept {
    if (!handoff_ || shared_.load(std::memory_order_acquire)) return true;
    return share();
}

bool io_driver::share() noexcept {
    if (share_failed_.load(std::memory_order_acquire)) return false;
    try {
        handoff_->share();
        shared_.store(true, std::memory_order_release);
        return true;
    } catch (const std::exception& e) {
        share_error_ = "reactor " + name_ + " could not be shared between threads: " + e.what();
    } catch (...) {
        share_error_ = "reactor " + name_ + " could not be shared between threads";
    }
    share_failed_.store(true, std::memory_order_release);
    return false;
}

void io_driver::refuse(const std::string& why) const {
    throw std::system_error(EMFILE, std::generic_category(), "reactor " + name_ + " " + why);
}

io_token io_driver::add(int fd, interest what) {
    if (limits_.max_registrations != 0 && table_.size() >= limits_.max_registrations)
        refuse("holds at most " + std::to_string(limits_.max_registrations) +
               " registrations (its declared limit), and that many are open; close some, or "
               "configure a reactor without this limit");
    if (limits_.descriptor_limit != 0 && fd >= limits_.descriptor_limit)
        refuse("watches descriptor numbers below " + std::to_string(limits_.descriptor_limit) +
               " only (its declared limit), and this one is " + std::to_string(fd) +
               "; configure a reactor without this limit");
    const io_token token = table_.insert(fd, what);  // EBADF, EEXIST
    try {
        const activity_mark marked = in_reactor(*this, plugin_call::reactor_add);
        backend_->add(fd, token);
    } catch (...) {
        table_.erase(token);
        throw;
    }
    return token;
}

void io_driver::modify(io_token token, interest what) {
    entry* r = table_.find(token);
    if (!r)
        throw std::system_error(ENOENT, std::generic_category(),
                                "reactor " + name_ + ": modify of a removed registration");
    r->interest = static_cast<std::uint8_t>(what);
}

void io_driver::remove(io_token token) noexcept {
    entry* r = table_.find(token);
    if (!r) return;
    const activity_mark marked = in_reactor(*this, plugin_call::reactor_remove);
    // Every wait on it ends: the descriptor is about to close. An operation in
    // the backend is cancelled first (cancel() returns once its completion was
    // reaped, and wakes nobody), so none completes on a closed descriptor.
    while (io_waiter* w = r->extra.head) {
        if (w->completion_ && w->completion_->pending) completions_->cancel(*w->completion_);
        wake_unlinked(r->extra.head, *w);
    }
    backend_->remove(r->fd, token);
    table_.erase(token);
}

void io_driver::wake_unlinked(io_waiter*& head, io_waiter& w) noexcept {
    void* const data = w.wake_data_;
    const waker_vtable* const vtable = w.wake_vtable_;
    unlink(head, w);
    // Once unlinked, `w` is its task's alone: the task may run on another
    // worker and end the wait as soon as it is woken.
    if (vtable) vtable->wake_by_ref(data);
}

void io_driver::deliver(io_token token, unsigned bits) noexcept {
    // A stale token (removed meanwhile, its slot perhaps reused) fails the
    // generation check: nothing of an old registration reaches a new one.
    entry* r = table_.find(token);
    if (!r) return;
    r->latched |= bits;  // whatever the interest: an edge is reported once
    if (bits & (r->interest | always_reported)) ++became_ready_;
    // Every readiness waiter this answers is woken: the first to act takes
    // what is there, the others meet EAGAIN and wait again.
    for (io_waiter* w = r->extra.head; w;) {
        io_waiter* const next = w->next_;
        if (!w->completion_ && (bits & (w->want_ | always_reported)))
            wake_unlinked(r->extra.head, *w);
        w = next;
    }
}

void io_driver::watch_in_backend(int fd, io_token token, interest want) {
    const activity_mark marked = in_reactor(*this, plugin_call::reactor_watch);
    backend_->watch(fd, token, want);
}

std::size_t io_driver::poll(duration timeout) {
    const activity_mark marked = in_reactor(*this, plugin_call::reactor_poll, timeout.count() != 0);
    became_ready_ = 0;
    const std::size_t completions = backend_->poll(timeout, *this);
    return completions + std::exchange(became_ready_, 0);
}

}  // namespace rtkit::detail
