// A worker's lanes as other paths than dispatch see them: a task taken in
// from a queue, a promotion to the cancel lane, and the steal of a worker
// that ran dry. With thieves around (several workers), every call on the
// policy is made under lanes_lock_.
#include <algorithm>

#include "rtkit/detail/chaos.hpp"
#include "worker.hpp"

namespace rtkit::detail {

void worker::take_in(task_header* task) {
    if (task->admitted_by == task_header::not_admitted)
        admit(task);
    else
        push(task);
}

void worker::promote(task_header* task) noexcept {
    if (shared_) lanes_lock_.lock();
    // Only a task in this worker's ready lane: it may have run, been stolen
    // or been promoted since the request was made. Its entry stays there; a
    // stand-in joins the cancel lane, and whichever comes out first runs it.
    if (task->lanes_of.load(std::memory_order_relaxed) == index_) {
        if (schedulable* twin = make_twin(task)) {
            lanes_->push(twin, lane::cancel);
            count_push();
            task->lanes_of.store(index_ | in_cancel_lane, std::memory_order_relaxed);
        }
    }
    if (shared_) lanes_lock_.unlock();
}

std::size_t worker::steal_into(task_header** out, std::size_t max) noexcept {
    RTKIT_CHAOS_POINT(stealing);
    if (!lanes_lock_.try_lock()) return 0;  // its owner is at it: try another victim
    const std::size_t queued_before = lanes_->size();
    const std::size_t want = std::min({max, (queued_before + 1) / 2, max_steal});
    // What goes to the thief: the first `given` of the last batch taken.
    schedulable* entries[max_steal];
    std::uint64_t states[max_steal];
    std::size_t given = 0;
    // Local tasks run only here. Those the policy hands out are set aside,
    // linked through the entry that left the lanes, and queued again below,
    // so that the thief reaches the tasks behind them: up to max_steal
    // entries in all, which bounds the time the lock is held. (Should that
    // many local tasks come first, thieves get nothing until the next push.)
    schedulable* kept_head = nullptr;
    schedulable** kept_tail = &kept_head;
    std::size_t seen = 0;
    std::size_t kept = 0;
    while (given == 0 && seen < std::min(queued_before, max_steal)) {
        const std::size_t taken = lanes_->steal(entries, std::min(want, max_steal - seen));
        if (taken == 0) break;
        seen += taken;
        for (std::size_t i = 0; i < taken; ++i) {
            schedulable* const entry = entries[i];
            const std::uint64_t state = left_lanes(entry);
            if (!is_local_task_entry(entry, state)) {
                entries[given] = entry;  // given <= i
                states[given++] = state;
            } else if (task_leaving_lane(entry, state)) {
                entry->lane_next = nullptr;
                *kept_tail = entry;
                kept_tail = &entry->lane_next;
                ++kept;
            }
        }
    }
    for (schedulable* entry = kept_head; entry;) {
        schedulable* const next = entry->lane_next;
        queue_held(task_of_entry(entry));
        entry = next;
    }
    // One store: the owner reads the count without the lock, and must not
    // see its lanes empty while they hold what was kept.
    queued_.store(queued_.load(std::memory_order_relaxed) - seen + kept, std::memory_order_relaxed);
    // Nothing for thieves: none asks here again until the next push.
    if (given == 0) thieves_refused_.store(true, std::memory_order_relaxed);
    lanes_lock_.unlock();
    std::size_t tasks = 0;
    for (std::size_t i = 0; i < given; ++i)
        if (task_header* task = task_leaving_lane(entries[i], states[i])) out[tasks++] = task;
    return tasks;
}

}  // namespace rtkit::detail
