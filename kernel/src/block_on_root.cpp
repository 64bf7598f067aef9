#include "block_on_root.hpp"

#include "root_wake.hpp"
#include "rtkit/detail/handle.hpp"
#include "thread_context.hpp"
#include "timeouts.hpp"
#include "worker_group.hpp"
#include "worker_run_loop.hpp"

namespace rtkit::detail {

namespace {

/// Polls the root once, with its context installed. True when it yielded.
[[gnu::always_inline]] inline bool poll_root(task_header* root) {
    scoped_task polling(root);
    const bool yielded = root->resume_if_ready();
    if (!root->finished()) after_suspending_poll(*root);
    return yielded;
}

/// A finished root that block_on alone still references has no waker and no
/// awaiter left, so only this thread touches its state word: a plain store
/// does. A root that never waited (W8) then costs no locked instruction here.
void mark_root_complete(task_header* root) noexcept {
    if (task_state::refs_of(root->state.load(std::memory_order_acquire)) == 1)
        root->state.store(root->state.load(std::memory_order_relaxed) | task_state::complete,
                          std::memory_order_release);
    else
        root->state.fetch_or(task_state::complete, std::memory_order_acq_rel);
}

}  // namespace

bool poll_root_once(task_header* root, worker_group& group) {
    // Shutdown before the first poll: the root unwinds at its first await.
    if (group.shutting_down())
        root->home().request_cancel(root, cancel_reason{"runtime shut down"});
    const bool yielded = poll_root(root);
    if (root->finished()) {
        mark_root_complete(root);
        return true;
    }
    if (yielded) set_root_wake(root);
    return false;
}

void run_root(task_header* root, worker_group& group, worker* driving, bool polled_once) {
    // A root already polled once heard about a shutdown begun before that.
    bool cancel_sent =
        polled_once && (root->state.load(std::memory_order_relaxed) & task_state::cancel_requested);
    // Not marked woken: the first poll happens unconditionally (no waker can
    // exist before it), which spares a read-modify-write per call.
    for (bool first_poll = !polled_once;; first_poll = false) {
        if (!cancel_sent && group.shutting_down()) {
            // Shutdown while the root runs: it unwinds at its next await point.
            cancel_sent = true;
            root->home().request_cancel(root, cancel_reason{"runtime shut down"});
        }
        if (first_poll || take_root_wake(root)) {
            const bool yielded = poll_root(root);
            if (root->finished()) break;
            if (yielded) set_root_wake(root);
            // A batch of dispatch turns between root polls, as a busy worker
            // maintains: a self-waking root does not starve spawned work,
            // and a root that joins many tasks finds them done.
            if (driving) driving->run_batch(worker::maintenance_interval);
        } else if (driving && !cancel_sent) {
            // Until the root is woken: looked at between dispatch batches.
            driving->run_loop_until([&] { return root_wake_pending(root); }, false,
                                    worker::maintenance_interval);
        } else {
            wait_root_wake(root);
        }
    }
    mark_root_complete(root);
}

std::exception_ptr root_reference::retire() noexcept {
    task_header* root = std::exchange(root_, nullptr);
    take_(*root, into_);
    outcome_taken(*root);  // block_on returns it or rethrows it
    if (task_state::refs_of(root->state.load(std::memory_order_acquire)) != 1) {
        root->release();  // a waker outlives the call; its last release destroys the frame
        return nullptr;
    }
    try {
        root->destroy_frame();
    } catch (...) {
        return std::current_exception();
    }
    return nullptr;
}

}  // namespace rtkit::detail
