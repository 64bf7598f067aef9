#pragma once
// Chaos points: the places in the kernel's synchronisation protocols (queue
// pushes and pops, parking and unparking, task state transitions, shutdown
// steps) where a race between threads lives in a window of a few
// instructions. A chaos build (CMake option RTKIT_CHAOS, on in the asan and
// tsan presets) compiles a call at each; any other build compiles nothing
// there at all.
//
// A chaos point does nothing until a run asks for chaos: with a seed
// (RTKIT_CHAOS_SEED=N in the environment, or chaos::reseed) each point makes
// the calling thread yield or stall at random, from a generator of its own
// seeded from N, so windows that a plain run almost never hits open wide; a
// test may also install a hook that every point calls, to hold a thread at
// one chosen point while others go on (chaos::set_hook). Not API.
#include <cstdint>

namespace rtkit::detail::chaos {

/// Where a chaos point stands. Each name says what has just happened, or what
/// is about to.
enum class site : std::uint8_t {
    injector_pushed,         ///< a task is in the injector; the pusher has not notified yet
    inbox_pushed,            ///< a task or request is in a worker's inbox; no unpark yet
    queue_popping,           ///< a worker is about to take from the injector or its inbox
    inbox_request,           ///< a worker is about to carry out a request from its inbox
    lanes_pushing,           ///< a task is about to go into a worker's lanes
    lanes_popping,           ///< a worker is about to pop its lanes
    stealing,                ///< a thief is about to take the victim's lanes lock
    task_state_changing,     ///< a task's state word is about to change (claim, idle, complete)
    root_woken,              ///< a block_on root's wake flag is set; its caller is not yet told
    joiner_installing,       ///< a join found the task not complete and replaces its joiner
    completing_with_joiner,  ///< a finishing task saw a joiner: its completion follows
    joiner_taken,            ///< a completing task took its joiner out; the wake follows
    joiner_woken,            ///< a completing task woke its joiner; the joiner may run now
    timeout_firing,          ///< a timeout's timer fires: it is about to act on its scope
    searching_changed,       ///< a worker's searching or parked count changed
    parking,                 ///< a worker counts as parked; its last look follows
    park_announced,          ///< a parking worker said where it waits; its last look follows
    park_waiting,            ///< a parked worker found no work and is about to wait
    park_woke,               ///< a parked worker's wait ended
    unparking,               ///< a thread is about to read a parked worker's state to end its wait
    shutdown_begun,          ///< the shutdown flag is set; the workers are about to be unparked
    shutdown_joining,        ///< a shutdown is about to join the worker threads
    shutdown_waiting,        ///< a second shutdown call waits for the first to end
    shutdown_retiring,       ///< a shutdown is about to retire the workers (a round of it)
    worker_unwinding,        ///< a stopping worker thread unwinds its local tasks (a round)
    runtime_destroying,      ///< the runtime waits out wakes from other threads before it goes
    readiness_clearing,      ///< an I/O operation met EAGAIN; it is about to forget the readiness
    reservation_entering,  ///< a reserved worker's owner says it borrows; its look at a revocation
                           ///< follows
    reservation_leaving,   ///< the owner says its borrow ended; its look at a revocation follows
    reservation_revoked,   ///< a reservation was revoked; the look at the owner's borrow follows
};

#ifdef RTKIT_CHAOS

/// The site's name as written above (for messages).
const char* name(site s) noexcept;

/// The chaos point itself: nothing unless a seed or a hook is set.
void point(site s) noexcept;

/// A test's hook: called at every chaos point, on the thread that reaches it,
/// with the `context` given to set_hook. It may block that thread.
using hook_function = void (*)(site s, void* context);
/// Installs `f` (null: removes the hook). Removing waits until no thread is
/// inside the hook any more.
void set_hook(hook_function f, void* context) noexcept;

/// Starts random stalls from `seed` (0: none). Every thread reseeds its own
/// generator at its next chaos point, from `seed` and the order in which the
/// threads get there.
void reseed(std::uint64_t seed) noexcept;
/// The seed in force (0: none); RTKIT_CHAOS_SEED sets it at start-up.
std::uint64_t seed() noexcept;

#define RTKIT_CHAOS_POINT(s) ::rtkit::detail::chaos::point(::rtkit::detail::chaos::site::s)

#else

#define RTKIT_CHAOS_POINT(s) ((void)0)

#endif

}  // namespace rtkit::detail::chaos
