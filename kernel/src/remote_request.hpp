#pragma once
// Work that a thread hands to one particular worker because only that worker
// may do it (its timer driver, its task store, its lanes), and the links that
// put tasks and requests into a worker's lock-free inbox.
#include <atomic>
#include <cstdint>

#include "rtkit/detail/io.hpp"
#include "rtkit/detail/task_header.hpp"
#include "rtkit/lane_policy.hpp"
#include "rtkit/time.hpp"
#include "rtkit/timer_driver.hpp"
#include "rtkit/waker.hpp"

namespace rtkit::detail {

/// A timer armed by a thread that does not drive the worker whose timer
/// driver it goes into: that worker arms it (and maybe cancels it) when it
/// drains the request. Shared by the sleeping awaiter and the queued request.
class remote_timer {
  public:
    remote_timer(instant deadline, waker w) noexcept : deadline(deadline), to_wake(std::move(w)) {}
    void add_ref() noexcept { refs_.fetch_add(1, std::memory_order_relaxed); }
    void release() noexcept {
        if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
    }

    const instant deadline;
    waker to_wake;           ///< moved into the timer driver when armed
    timer_handle id = 0;     ///< set by the worker once armed
    bool cancelled = false;  ///< worker only: a cancel arrived before the arm

  private:
    std::atomic<int> refs_{1};
};

/// A descriptor whose owner was destroyed on a thread that may not use the
/// reactor: the worker deregisters, then closes it.
struct pending_close {
    io_registration registration;
    int fd;
};

/// One request for a worker, queued in its inbox. Owns a reference to what it
/// names (the timer record, the task); the worker drops it when done.
struct remote_request {
    enum class kind : std::uint8_t {
        arm_timer,         ///< target: remote_timer*
        cancel_timer,      ///< target: remote_timer*, or null and `timer` set
        cancel_region,     ///< target: region_node* (entered, so it stays open)
        promote,           ///< target: task_header* whose cancellation was requested
        close_descriptor,  ///< target: pending_close*
    };
    kind what;
    void* target;
    timer_handle timer = 0;          ///< cancel_timer of a timer armed by the worker itself
    remote_request* next = nullptr;  ///< the inbox's link
};

/// Queue links: a task in an inbox links through its lane_next (no lane holds
/// it then); a request through its own field.
struct task_link {
    static std::atomic_ref<schedulable*> next(schedulable& s) noexcept {
        return std::atomic_ref<schedulable*>(s.lane_next);
    }
};
struct request_link {
    static std::atomic_ref<remote_request*> next(remote_request& r) noexcept {
        return std::atomic_ref<remote_request*>(r.next);
    }
};

}  // namespace rtkit::detail
