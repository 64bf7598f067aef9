#pragma once
// Wakes made by threads that drive none of the woken task's runtime's workers.
#include <cstdint>

namespace rtkit::detail {

/// A thread that drives no worker of a runtime (a std::thread holding a
/// waker, a multi_thread block_on caller) wakes one of its tasks in two steps:
/// it publishes the task (into the injector or a worker's inbox, or sets a
/// root's wake flag), then tells a worker or the root's caller (reads which
/// worker is parked, unparks it). Between the two the task may run and
/// finish, block_on return and the runtime be destroyed: the second step
/// would then touch freed memory. The waker keeps the task alive, not the
/// runtime.
///
/// So such a wake counts itself in (outside_wake) before it reads anything of
/// its task, and a runtime's destruction, once every task of it is complete,
/// waits out every wake still counted in (wait_out_outside_wakes). A wake
/// that counts itself in later finds its task complete and touches nothing
/// of the runtime. The count is process-wide: a wake cannot know which
/// runtime it is in before it reads the task, and reading the task is what
/// must be covered. Only these wakes pay for it (two read-modify-writes);
/// wakes on the threads of the task's own runtime pay nothing.
class outside_wake {
  public:
    outside_wake() noexcept;
    ~outside_wake();
    outside_wake(const outside_wake&) = delete;
    outside_wake& operator=(const outside_wake&) = delete;

  private:
    std::uint32_t slot_;
};

/// Once every task of a runtime is complete, before its memory goes: returns
/// when no wake counted in before this call is still running.
void wait_out_outside_wakes() noexcept;

}  // namespace rtkit::detail
