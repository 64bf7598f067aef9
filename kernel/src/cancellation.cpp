// Cancellation requests: on one task, or on a region and everything below it.
// A request only sets state and wakes; the task unwinds itself at its next
// await point (task_cancelled), and its join observes cancelled(reason).
#include <atomic>

#include "rtkit/cx.hpp"
#include "rtkit/detail/region_node.hpp"
#include "rtkit/detail/task_extras.hpp"
#include "scheduler.hpp"
#include "thread_context.hpp"
#include "worker.hpp"

namespace rtkit::detail {

std::uint64_t next_region_id() noexcept {
    static std::atomic<std::uint64_t> next{1};
    return next.fetch_add(1, std::memory_order_relaxed);
}

void request_cancel(task_header* t, cancel_reason reason) {
    set_cancel_reason(*t, std::move(reason));
    if (t->state.fetch_or(task_state::cancel_requested, std::memory_order_acq_rel) &
        (task_state::complete | task_state::cancel_requested))
        return;
    waker w = t->make_waker();
    w.wake();
}

void cancel_region(scheduler& sched, region_node& region, cancel_reason reason) {
    auto* mine = new cancel_reason(std::move(reason));
    cancel_reason* none = nullptr;
    if (!region.reason.compare_exchange_strong(none, mine, std::memory_order_acq_rel)) delete mine;
    if (region.cancelled.exchange(true, std::memory_order_acq_rel)) return;
    worker* holder = this_thread().active_worker;
    if (holder == sched.home()) {
        holder->cancel_region_tasks(region);
    } else {
        region.enter();  // keeps the region open until the worker has handled it
        sched.submit({remote_item::kind::cancel_region, &region});
    }
}

void worker::cancel_region_tasks(region_node& region) {
    cancel_reason why = region.cancel_reason_or_default();
    store_.for_each([&](task_header* t) {
        if (t->region && t->region->is_within(&region)) request_cancel(t, why);
    });
}

}  // namespace rtkit::detail
