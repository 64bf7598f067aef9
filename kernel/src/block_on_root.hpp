#pragma once
// A block_on root: the task block_on runs on its caller's thread. Both
// drivers run it with the same loop (run_root) and retire it the same way
// (root_reference::retire); they differ only in who dispatches the worker
// while the root waits.
#include <exception>

#include "rtkit/detail/task_header.hpp"

namespace rtkit::detail {

class worker;
class worker_group;

/// block_on's reference to its root task. The driver retires it where the root
/// ran; if the drive ends by an exception first, the destructor drops it.
class root_reference {
  public:
    root_reference(task_header* root, take_root_result take, void* into) noexcept
        : root_(root), take_(take), into_(into) {}
    ~root_reference() {
        if (root_) root_->release();
    }
    root_reference(const root_reference&) = delete;
    root_reference& operator=(const root_reference&) = delete;

    task_header* get() const noexcept { return root_; }
    /// Moves the outcome out, then drops the reference; when it is the last,
    /// the frame is destroyed here and what a destructor in it threw is returned.
    std::exception_ptr retire() noexcept;

  private:
    task_header* root_;
    take_root_result take_;
    void* into_;
};

/// Polls `root` on the calling thread whenever it is woken, until it
/// finishes, then marks it complete. In between, with `driving` (the worker
/// this thread drives), the worker dispatches its tasks; without it (a
/// multi_thread root, or a current_thread root whose worker another thread
/// holds), the thread sleeps until the root's next wake. When the runtime
/// begins shutting down, the root is asked once to unwind, and the worker
/// no longer dispatches for it. With `polled_once`, it goes on after
/// poll_root_once() left the root unfinished.
void run_root(task_header* root, worker_group& group, worker* driving, bool polled_once = false);

/// run_root's first poll on its own, for a caller that may not need the
/// rest: true when the root finished (and is marked complete).
bool poll_root_once(task_header* root, worker_group& group);

}  // namespace rtkit::detail
