#include <utility>

#include "rtkit/cx.hpp"
#include "rtkit/detail/io.hpp"
#include "scheduler.hpp"
#include "thread_context.hpp"
#include "worker.hpp"

namespace rtkit::detail {

namespace {
worker& holder_or_throw() {
    worker* w = this_thread().active_worker;
    if (!w)
        throw no_runtime_error(
            "I/O needs a runtime's worker: run it in a task, or in a block_on root that holds the "
            "worker");
    return *w;
}
}  // namespace

io_registration::io_registration(int fd, interest what) {
    worker& w = holder_or_throw();
    reactor_ = &w.io();
    sched_ = &w.sched();
    token_ = reactor_->add(fd, what);
    w.io_registered(+1);
}

io_registration::io_registration(io_registration&& other) noexcept
    : reactor_(std::exchange(other.reactor_, nullptr)),
      sched_(std::exchange(other.sched_, nullptr)),
      token_(std::exchange(other.token_, 0)) {}

io_registration& io_registration::operator=(io_registration&& other) noexcept {
    if (this != &other) {
        reset();
        reactor_ = std::exchange(other.reactor_, nullptr);
        sched_ = std::exchange(other.sched_, nullptr);
        token_ = std::exchange(other.token_, 0);
    }
    return *this;
}

void io_registration::reset() noexcept {
    if (!reactor_) return;
    reactor_->remove(token_);
    if (worker* home = sched_->home()) home->io_registered(-1);
    reactor_ = nullptr;
}

void io_registration::modify(interest what) {
    reactor_->modify(token_, what);
}

bool io_registration::ready_awaiter::await_suspend(std::coroutine_handle<>) {
    task_header* self = current_task();
    bits_ = reg_.poll_ready(want_, self->make_waker());
    if (bits_ != 0) return false;  // already ready: do not suspend
    self->leaf_ready = &leaf_ready;
    self->leaf = this;
    return true;
}

bool io_registration::ready_awaiter::leaf_ready(void* self) noexcept {
    auto* me = static_cast<ready_awaiter*>(self);
    if (cancel_pending() || me->bits_ != 0) return true;
    try {
        me->bits_ = me->reg_.poll_ready(me->want_, current_task()->make_waker());
    } catch (...) {
        me->bits_ = ready::error;
    }
    return me->bits_ != 0;
}

unsigned io_registration::ready_awaiter::await_resume() {
    check_cancel();
    return bits_;
}

}  // namespace rtkit::detail
