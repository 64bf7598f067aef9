#pragma once
// Every rtkit sync primitive: channel, mpmc_channel, broadcast, watch,
// oneshot, notify, semaphore, mutex.
//
// How they are built, and why:
// - Each primitive's state sits behind a small spin_lock: critical sections are
//   a few instructions, and tasks of different runtimes (or plain threads) may
//   share a primitive. Wakers are fired after the unlock (pending_wakes).
// - Waiting allocates nothing: the queue node (detail::waiter) lives in the
//   awaiter, in the coroutine frame, and queues are intrusive FIFO lists.
// - A suspended awaiter's node is the kernel's leaf check
//   (waiter::settled_or_cancelled): the task resumes only once its node was
//   settled (granted/closed) or a cancel is pending, so a stray wake costs one
//   load and await_resume can trust the node.
// - Every wait is a cancellation point. A cancel pending at the await makes it
//   throw task_cancelled without acting; a cancel that lands while waiting
//   unwinds through the awaiter's destructor, which leaves the queue or passes
//   on what was granted meanwhile (a slot, permits, the lock, a notify_one, a
//   value handed to a receiver). Nothing is lost or leaked either way.
// - An operation that completed at once does not throw afterwards: a send that
//   went through stays sent even if a cancel arrives right after it.
//
// A trap worth knowing: a coroutine's parameters live as long as its frame,
// and a spawned task's frame lives until its join handle is gone. A sender
// passed by value to a task keeps the channel open after the task's body
// ended; move it into a local, or drop it by hand, when the receiver must see
// the end.
#include "rtkit/sync/broadcast.hpp"
#include "rtkit/sync/channel.hpp"
#include "rtkit/sync/mpmc_channel.hpp"
#include "rtkit/sync/mutex.hpp"
#include "rtkit/sync/notify.hpp"
#include "rtkit/sync/oneshot.hpp"
#include "rtkit/sync/semaphore.hpp"
#include "rtkit/sync/watch.hpp"
