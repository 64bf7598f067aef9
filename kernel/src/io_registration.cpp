#include <unistd.h>

#include <utility>

#include "remote_request.hpp"
#include "rtkit/cx.hpp"
#include "rtkit/detail/io.hpp"
#include "thread_context.hpp"
#include "worker.hpp"
#include "worker_group.hpp"

namespace rtkit::detail {

io_registration::io_registration(int fd, interest what) {
    task_header* task = current_task();
    if (!task)
        throw no_runtime_error("I/O needs a runtime: run it in a task, or in a block_on root");
    handle& home = task->home();
    worker_group& group = home.group();
    if (!group.io_shared() && !home.driven_here())
        throw no_runtime_error(
            "I/O needs the runtime's worker: run it in a task, or in a block_on root that drives "
            "the worker (another thread drives it now)");
    worker_group::io_lock lock(group);
    token_ = group.io().add(fd, what);
    io_ = &group.io();
    group_ = &group;
    shared_ = group.io_shared();
    group.io_registered(+1);
}

io_registration::io_registration(io_registration&& other) noexcept
    : io_(std::exchange(other.io_, nullptr)),
      group_(std::exchange(other.group_, nullptr)),
      token_(std::exchange(other.token_, 0)),
      shared_(other.shared_) {}

io_registration& io_registration::operator=(io_registration&& other) noexcept {
    if (this != &other) {
        reset();
        io_ = std::exchange(other.io_, nullptr);
        group_ = std::exchange(other.group_, nullptr);
        token_ = std::exchange(other.token_, 0);
        shared_ = other.shared_;
    }
    return *this;
}

void io_registration::reset() noexcept {
    if (!io_) return;
    {
        worker_group::io_lock lock(*group_);
        io_->remove(token_);
    }
    group_->io_registered(-1);
    io_ = nullptr;
}

void io_registration::reset_and_close(int fd) noexcept {
    if (io_ && !usable_here()) {
        // Another thread may be inside the reactor: its driver does both.
        worker& owner = group_->worker_at(0);
        owner.send_request(new remote_request{remote_request::kind::close_descriptor,
                                              new pending_close{std::move(*this), fd}});
        return;
    }
    reset();
    ::close(fd);
}

void io_registration::abandon() noexcept {
    if (!io_) return;
    group_->io_registered(-1);
    io_ = nullptr;
}

void io_registration::modify(interest what) {
    worker_group::io_lock lock(*group_);
    io_->modify(token_, what);
}

bool io_registration::usable_here() const noexcept {
    if (shared_ || !group_) return true;
    return handle::driven_here(*group_) != nullptr;
}

void io_registration::withdraw_shared(io_waiter& w) noexcept {
    if (!group_) return;
    worker_group::io_lock lock(*group_);  // a delivery may be unlinking it right now
    if (io_driver* io = w.driver()) io->withdraw(w);
}

unsigned io_registration::poll_ready_shared(interest want, io_waiter& w, const waker& wake) {
    worker_group::io_lock lock(*group_);
    return io_->poll_ready(token_, want, w, wake);
}

void io_registration::clear_ready_shared(unsigned bits) noexcept {
    worker_group::io_lock lock(*group_);
    io_->clear_ready(token_, bits);
}

void io_registration::latch_again(unsigned bits) noexcept {
    worker_group::io_lock lock(*group_);
    io_->latch_again(token_, bits);
}

}  // namespace rtkit::detail
