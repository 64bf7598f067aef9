#pragma once
// The part of every task that the kernel schedules. Not API: templates in the
// public headers need it, so it lives here, in rtkit::detail.
#include <atomic>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <utility>

#include "rtkit/detail/region_node.hpp"
#include "rtkit/lane_policy.hpp"
#include "rtkit/waker.hpp"

namespace rtkit {

/// A task's identity: unique within the process, never reused, and the same
/// from the task's spawn until its frame is gone, wherever it is read. Given
/// out when first asked for (join_handle::id, cx::id, a diagnostic), so that
/// tasks nobody asks about spend nothing on one. 0 is no task.
struct task_id {
    std::uint64_t raw = 0;
    explicit operator bool() const noexcept { return raw != 0; }
    friend bool operator==(task_id, task_id) = default;
};

/// A region's identity: unique within the process, never reused.
struct region_id {
    std::uint64_t raw = 0;
    friend bool operator==(region_id, region_id) = default;
};

namespace detail {

class handle;
struct region_node;
struct task_extras;

/// State bits of a task, in the low half of task_header::state.
namespace task_state {
inline constexpr std::uint64_t scheduled = 1ull << 0;         ///< queued, or about to be
inline constexpr std::uint64_t running = 1ull << 1;           ///< being polled
inline constexpr std::uint64_t notified = 1ull << 2;          ///< woken while running: poll again
inline constexpr std::uint64_t complete = 1ull << 3;          ///< finished; the outcome is set
inline constexpr std::uint64_t join_waker = 1ull << 4;        ///< the extras' `joiner` waits for it
inline constexpr std::uint64_t cancel_requested = 1ull << 5;  ///< unwind at the next await point
inline constexpr std::uint64_t timeout_fired = 1ull << 6;     ///< a timeout scope of it expired
/// Either bit makes the next kernel await point throw task_cancelled.
inline constexpr std::uint64_t interrupted = cancel_requested | timeout_fired;
inline constexpr std::uint64_t root = 1ull << 7;        ///< a block_on root, polled by its caller
inline constexpr std::uint64_t root_woken = 1ull << 8;  ///< the root's caller should poll it again
/// Thread-affine: polled only on task_extras::local_owner.
inline constexpr std::uint64_t local = 1ull << 9;
/// Spawned by a combinator (join_all, race) that owns its outcome: a failure
/// the combinator did not take, because its caller cancelled it first, goes
/// with the combinator's cancelled outcome instead of being reported.
inline constexpr std::uint64_t outcome_owned = 1ull << 10;
/// A task of its own (spawned, or a block_on root), whose frame goes when its
/// references do; without it a task is only ever awaited inline. Set before
/// any other thread sees the task.
inline constexpr std::uint64_t spawned = 1ull << 11;
/// Never a task's: the constant state of a cancel_stand_in, which is how the
/// kernel tells a stand-in from a task when a lane hands an entry back.
inline constexpr std::uint64_t stand_in = 1ull << 12;
/// Spawned while its runtime traces: its wakers are counted in its extras, so
/// that a wait nothing can end is seen (kernel/src/lost_wakes.hpp). Set before
/// any other thread sees the task.
inline constexpr std::uint64_t traced = 1ull << 13;
/// Spawned a task during its current or latest poll: its next queueing is
/// deferred behind what it spawned (rtkit.lanes_deferred.v1). Set and cleared
/// only by the task's poller.
inline constexpr std::uint64_t spawner = 1ull << 14;
/// The high half of the state word counts references: this is one.
inline constexpr std::uint64_t one_ref = 1ull << 32;
inline constexpr std::uint64_t refs_mask = ~0ull << 32;
inline std::uint32_t refs_of(std::uint64_t state) noexcept {
    return static_cast<std::uint32_t>(state >> 32);
}
}  // namespace task_state

/// The start of task_extras: a task that gets extras moves its region there,
/// so the header keeps one word for both (task_header::region()).
struct task_extras_region {
    region_node* region = nullptr;
};

/// What a suspended awaiter leaves in its task (task_header::leaf): the check
/// the worker makes before resuming the task. The awaiter derives from it, so
/// the check finds the awaiter from the reference it is given, and a task pays
/// one pointer for it, whatever it awaits.
struct leaf_check {
    /// True when the awaiter should resume now. It may re-arm its waker before
    /// answering false.
    bool (*ready)(leaf_check& self) noexcept;
};

/// Set by yield_now in the task polled on this thread: when the poll returns,
/// its poller requeues it behind the other ready tasks and clears this. A
/// flag of the poll, not of the task, since only the poll that yields needs it.
extern __thread bool yield_requested_slot __attribute__((tls_model("initial-exec")));

/// What the kernel queues in a lane policy (and in its injector and inboxes):
/// a task itself, or the task's cancel_stand_in. Both start with a state word,
/// so one load after a pop tells them apart (task_state::stand_in).
struct lane_entry : schedulable {
    /// A task's task_state bits, and in the high half its reference count:
    /// one word, so that a task finishes and drops the store's reference in
    /// one locked instruction. A stand-in's is task_state::stand_in.
    std::atomic<std::uint64_t> state{0};
};

/// Scheduling record embedded in every task's coroutine promise, so a spawned
/// task costs exactly one allocation: its coroutine frame.
///
/// Life: the references count the task store (until the task completes), the
/// join handle, and each waker. The frame is destroyed when the count reaches
/// zero.
struct task_header : lane_entry {
    union {
        /// Until the task finishes: the innermost coroutine of it that is
        /// suspended. Tasks awaited inline move it down and back up, so the
        /// worker always resumes here.
        std::coroutine_handle<> resume_point{};
        /// Once it has finished: its outcome, when that fits in a word (see
        /// promise_with_outcome). Nothing resumes a finished task, so a task
        /// that returns a word spends no bytes of its own on it.
        alignas(void*) std::byte outcome_word[sizeof(void*)];
    };
    union {
        /// Until the task finishes: the suspended awaiter's readiness check, or
        /// null. The worker calls it before resuming: a wake that did not make
        /// the awaited thing ready (a stale waker, say) then costs a check
        /// instead of a wrong resume. Null whenever the task runs.
        leaf_check* leaf = nullptr;
        /// Once it finished: which alternative its outcome holds
        /// (detail::outcome_slot). It is written after the last resume, when
        /// `leaf` is null, so it starts as 0 (nothing). A frame destroyed while
        /// suspended reads its leaf's lowest byte here: a multiple of
        /// alignof(leaf_check), which no outcome tag is (outcome_slot.hpp).
        std::uint8_t outcome_tag;
    };
    /// Where the task's store keeps it: the slot index in the store of worker
    /// `admitted_by`, or task_store::no_slot before its first poll (kernel
    /// only).
    std::uint32_t store_index = 0;
    /// The worker whose task store holds the task, or `not_admitted` while a
    /// spawned task waits to be registered (kernel only).
    std::uint16_t admitted_by = not_admitted;
    static constexpr std::uint16_t not_admitted = 0xFFFF;
    /// Where the task waits: in which worker's lanes, or `not_in_lanes`
    /// (kernel only: written by that worker, read by a cancellation request
    /// to find where to promote it and by a wake; the worker encodes and
    /// decodes it, see worker::in_ready_lane_of).
    std::atomic<std::uint16_t> lanes_of{not_in_lanes};
    static constexpr std::uint16_t not_in_lanes = 0xFFFF;

  private:
    /// The region (tagged with region_tag), or once the task has extras, the
    /// extras (their task_extras_region part), which then hold the region;
    /// 0 before either. Rarely needed state (cancel reason, region scopes,
    /// timeouts) lives in the extras, allocated on first use by whichever
    /// thread needs it first; most tasks never do, so they pay one word here
    /// for both.
    std::atomic<std::uintptr_t> region_or_extras_{0};
    static constexpr std::uintptr_t region_tag = 1;

  public:
    /// The region this task belongs to; it keeps the region open until it
    /// ends, and its handle is how the task's runtime is reached. Null until
    /// the task is spawned. Any thread.
    region_node* region() const noexcept {
        const std::uintptr_t word = region_or_extras_.load(std::memory_order_acquire);
        if (word & region_tag) return reinterpret_cast<region_node*>(word & ~region_tag);
        return word ? reinterpret_cast<task_extras_region*>(word)->region : nullptr;
    }
    /// Puts the task in `region`, before any other thread can see it.
    void set_region(region_node* region) noexcept;
    /// Whether the task has its extras yet (any thread).
    bool has_extras() const noexcept {
        const std::uintptr_t word = region_or_extras_.load(std::memory_order_acquire);
        return word && !(word & region_tag);
    }
    /// The extras, or nullptr when the task has none yet (any thread; defined
    /// in task_extras.hpp, which has the type).
    task_extras* extras() const noexcept;
    /// The extras, allocated if needed (any thread).
    task_extras& get_extras();

    /// Spawned or a root (task_state::spawned): a task of its own.
    bool is_spawned() const noexcept {
        return state.load(std::memory_order_relaxed) & task_state::spawned;
    }
    /// The task's id, given out now if nobody asked before (any thread; it
    /// allocates the extras, so it may throw std::bad_alloc).
    task_id id();

    /// Takes one more reference.
    void add_ref() noexcept { state.fetch_add(task_state::one_ref, std::memory_order_relaxed); }
    /// Replaces the state bits of a task no other thread can see yet,
    /// keeping its references and whether it is spawned and traced.
    void start_with_state(std::uint64_t bits) noexcept {
        constexpr std::uint64_t kept =
            task_state::refs_mask | task_state::spawned | task_state::traced;
        state.store((state.load(std::memory_order_relaxed) & kept) | bits,
                    std::memory_order_relaxed);
    }
    /// A waker for this task (takes a reference).
    waker make_waker() noexcept;
    /// A waker that takes over a reference the caller already counted.
    waker adopt_as_waker() noexcept;
    /// How the task's runtime is reached (its region's handle). Wakes go
    /// through it, except for a block_on root, whose wakes set root_woken for
    /// its caller.
    handle& home() const noexcept { return *region()->home; }
    /// The coroutine frame whose promise starts with this header. GCC and
    /// Clang place the promise right after the frame's resume and destroy
    /// pointers, at an offset that depends only on the promise's alignment
    /// (promise_base checks it is this header's), so no field has to hold it.
    std::coroutine_handle<> frame() noexcept {
        return std::coroutine_handle<>::from_address(
            __builtin_coro_promise(this, alignof(task_header), true));
    }
    /// Whether the task's outermost frame reached its final suspend.
    bool finished() noexcept { return frame().done(); }
    /// Resumes the task where it is suspended, unless its leaf check says that
    /// what it awaits is not ready yet. The caller has made it the current
    /// task. True when the task yielded (yield_now): the caller requeues it.
    bool resume_if_ready() {
        if (leaf) {
            if (!leaf->ready(*leaf)) return false;
            leaf = nullptr;
        }
        resume_point.resume();
        return std::exchange(yield_requested_slot, false);
    }
    /// Drops one reference; destroys the frame at zero.
    void release() noexcept;
    /// What release() does at zero. Not noexcept: a destructor in the frame may
    /// throw, and block_on reports that for its root instead of terminating.
    /// Inline: most tasks have no extras, and then it is the frame's destroy.
    void destroy_frame() {
        if (has_extras())
            destroy_frame_with_extras();
        else
            frame().destroy();
    }

  private:
    /// destroy_frame() of a task with extras, which go after the frame.
    void destroy_frame_with_extras();
};

/// Wakes `task` at once, without a waker, when this thread holds the worker
/// that polls it: it then cannot run before the caller returns to that worker.
/// Returns false (and does nothing) otherwise. Lets a sync primitive wake a
/// waiter under its lock with no reference taken, since the waiter's node lives
/// in the task's frame and leaves its queue only under that same lock.
bool wake_if_polled_here(task_header* task) noexcept;

/// Failures nobody observes. A spawned task that ends by throwing notes the
/// exception (note_failure); taking its outcome clears the note
/// (outcome_taken); a note still there when the frame is destroyed is
/// reported as a diagnostic, unless a combinator owns the outcome.
void note_failure(task_header& task) noexcept;
void forget_failure(task_header& task) noexcept;
/// Reports the failure of task `id` that nobody took as a diagnostic;
/// `where` follows the task's number in the message (" of a task set").
void report_unobserved_failure(task_id id, const std::exception_ptr& failure,
                               const char* where = "") noexcept;
inline void outcome_taken(task_header& task) noexcept {
    if (task.has_extras()) forget_failure(task);
}
/// Marks a task a combinator spawned (task_state::outcome_owned).
inline void own_outcome(task_header& task) noexcept {
    task.state.fetch_or(task_state::outcome_owned, std::memory_order_relaxed);
}

/// Moves a finished block_on root's outcome out of its promise into `into`
/// (an std::optional<outcome<T>>, typed by block_on, which knows T).
using take_root_result = void (*)(task_header& root, void* into) noexcept;

/// The task being polled on this thread. A plain (GNU `__thread`) variable in
/// the static TLS block of the kernel library, so reading it is one
/// %fs-relative load: it is read at every await.
extern __thread task_header* current_task_slot __attribute__((tls_model("initial-exec")));

/// The task being polled on this thread, or nullptr outside a poll.
inline task_header* current_task() noexcept {
    return current_task_slot;
}

/// Throws task_cancelled when the task polled on this thread has a pending
/// cancellation request. Every kernel await point calls it.
[[noreturn]] void throw_cancelled();
inline void check_cancel() {
    task_header* t = current_task();
    if (t && (t->state.load(std::memory_order_relaxed) & task_state::interrupted))
        throw_cancelled();
}
inline bool cancel_pending() noexcept {
    task_header* t = current_task();
    return t && (t->state.load(std::memory_order_relaxed) & task_state::interrupted);
}

}  // namespace detail
}  // namespace rtkit
