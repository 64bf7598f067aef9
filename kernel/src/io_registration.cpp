// A descriptor's registration with its runtime's reactor, and the calls on
// the reactor it makes (each under the reactor lock when the reactor is
// shared). Which thread may register or close is the handle's decision
// (handle::register_io, close_io).
#include <unistd.h>

#include <utility>

#include "rtkit/cx.hpp"
#include "rtkit/detail/handle.hpp"
#include "rtkit/detail/io.hpp"
#include "worker_group.hpp"

namespace rtkit::detail {

io_registration::io_registration(int fd, interest what) {
    task_header* task = current_task();
    if (!task)
        throw no_runtime_error("I/O needs a runtime: run it in a task, or in a block_on root");
    handle& home = task->home();
    token_ = home.register_io(fd, what);
    io_ = &home.group().io();
    handle_ = &home;
    shared_ = home.group().io_shared();
}

io_registration::io_registration(io_registration&& other) noexcept
    : io_(std::exchange(other.io_, nullptr)),
      handle_(std::exchange(other.handle_, nullptr)),
      token_(std::exchange(other.token_, 0)),
      shared_(other.shared_) {}

io_registration& io_registration::operator=(io_registration&& other) noexcept {
    if (this != &other) {
        reset();
        io_ = std::exchange(other.io_, nullptr);
        handle_ = std::exchange(other.handle_, nullptr);
        token_ = std::exchange(other.token_, 0);
        shared_ = other.shared_;
    }
    return *this;
}

void io_registration::reset() noexcept {
    if (!io_) return;
    worker_group& group = handle_->group();
    {
        worker_group::io_lock lock(group);
        io_->remove(token_);
    }
    group.io_registered(-1);
    io_ = nullptr;
}

void io_registration::reset_and_close(int fd) noexcept {
    if (!io_) {
        ::close(fd);
        return;
    }
    handle_->close_io(*this, fd);
}

void io_registration::abandon() noexcept {
    if (!io_) return;
    handle_->group().io_registered(-1);
    io_ = nullptr;
}

void io_registration::modify(interest what) {
    worker_group::io_lock lock(handle_->group());
    io_->modify(token_, what);
}

bool io_registration::usable_here() const noexcept {
    return !handle_ || handle_->may_call_reactor_here();
}

void io_registration::withdraw_shared(io_waiter& w) noexcept {
    if (!handle_) return;
    worker_group::io_lock lock(handle_->group());  // a delivery may be unlinking it right now
    if (io_driver* io = w.driver()) io->withdraw(w);
}

unsigned io_registration::poll_ready_shared(interest want, io_waiter& w, const waker& wake) {
    worker_group::io_lock lock(handle_->group());
    return io_->poll_ready(token_, want, w, wake);
}

void io_registration::clear_ready_shared(unsigned bits) noexcept {
    worker_group::io_lock lock(handle_->group());
    io_->clear_ready(token_, bits);
}

void io_registration::latch_again(unsigned bits) noexcept {
    worker_group::io_lock lock(handle_->group());
    io_->latch_again(token_, bits);
}

}  // namespace rtkit::detail
