#pragma once
// Lost wake-ups of traced tasks: a task left waiting where nothing can wake it.
//
// A task suspends either in one of the kernel's awaiters (a channel, a timer,
// a socket, a join...), which leaves its readiness check in the task
// (task_header::leaf) and is woken by the primitive that holds it, or in any
// other awaitable, which only a waker can end (rtkit::current_waker()). The
// task's reference count holds its wakers, its store slot and its join handle
// together, so a traced task (task_state::traced) also counts its wakers in
// its extras: its wakers have their own vtable, and make_waker picks it from
// the state word it updates anyway, so an untraced waker pays nothing.
//
// The wait is lost when a poll ended in such a wait with no leaf check, no
// timeout scope around it and no wake pending, and no waker of the task is
// left: then only a cancellation can make it run again. That is checked where
// either side of the race ends: on the worker, once the poll suspended
// (note_traced_suspend), and on whichever thread drops the task's last waker
// without waking it. `trace_wait` says the wait is open; a wake through a
// waker closes it before it wakes, and the next poll starts with it closed, so
// each check sees the other's step (both sequentially consistent) and the
// first to close it as reported writes the trace event, once per task.
// A task with a cancellation requested (by its region, its handle or the
// runtime's shutdown) is never reported: it is about to unwind.
#include "rtkit/detail/task_extras.hpp"
#include "rtkit/detail/task_header.hpp"
#include "rtkit/waker.hpp"

namespace rtkit::detail {

/// trace_wait's values.
namespace traced_wait {
inline constexpr std::uint8_t none = 0;      ///< polled, or woken since its last poll
inline constexpr std::uint8_t on_waker = 1;  ///< suspended where only a waker can wake it
inline constexpr std::uint8_t reported = 2;  ///< its lost wake-up is in the trace
}  // namespace traced_wait

/// A waker of traced `task`, whose reference the caller already took: counted
/// among the task's wakers.
waker make_traced_waker(task_header& task) noexcept;

/// On the polling thread, when a poll of traced `task` ended suspended (not
/// yielded): opens its wait, and reports it lost if no waker of it is left.
void note_traced_suspend(task_header& task) noexcept;

/// At the start of a poll of a traced task: the wait, if any, is over.
inline void note_traced_poll(task_extras& extras) noexcept {
    std::uint8_t open = traced_wait::on_waker;
    if (extras.trace_wait.load(std::memory_order_relaxed) != open) return;
    extras.trace_wait.compare_exchange_strong(open, traced_wait::none, std::memory_order_seq_cst);
}

}  // namespace rtkit::detail
