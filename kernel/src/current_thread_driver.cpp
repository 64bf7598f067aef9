#include "current_thread_driver.hpp"

#include <chrono>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>

#include "rtkit/detail/task_extras.hpp"
#include "rtkit/diagnostics.hpp"
#include "rtkit/join_handle.hpp"
#include "thread_context.hpp"
#include "worker_group.hpp"
#include "worker_run_loop.hpp"

namespace rtkit::detail {

void retire_worker::operator()(worker* w) const noexcept {
    scoped_driving here(&w->get_handle(), w->group().huge_pages());
    w->group().retire();
}

namespace {
/// The parked background thread re-checks the shutdown flag at least this often.
constexpr auto background_wait_slice = std::chrono::milliseconds(100);
/// A graceful shutdown that cannot borrow the worker re-checks at least this often.
constexpr auto drain_observe_slice = std::chrono::milliseconds(1);
/// The post-root drain returns after this many stop checks even if work remains,
/// so a self-waking task cannot keep block_on from returning.
constexpr unsigned post_root_drain_turns = 64;

/// Says on the activity board whether a thread drives the worker (under the
/// slot's lock, by the thread taking or leaving it).
void mark_driven(worker& w, bool driven) noexcept {
    using state = worker_activity::state;
    w.activity().write(activity_slot::word(driven ? state::running : state::not_driven));
}

}  // namespace

class current_thread_driver::loan {
  public:
    loan(current_thread_driver& driver, held_worker w) : driver_(driver), worker_(std::move(w)) {}
    ~loan() { driver_.release(std::move(worker_), seen_idle_); }
    loan(const loan&) = delete;
    loan& operator=(const loan&) = delete;
    worker& get() noexcept { return *worker_; }
    /// The worker was just seen with nothing to run and no I/O registered,
    /// and nothing ran since: release() need not look again.
    void seen_idle() noexcept { seen_idle_ = true; }

  private:
    current_thread_driver& driver_;
    held_worker worker_;
    bool seen_idle_ = false;
};

current_thread_driver::current_thread_driver(worker_group& group, region_node& root_region)
    : group_(group), worker_(group.worker_at(0)), root_region_(root_region) {
    // The background thread revokes a reservation when it takes the worker.
    worker_.park_state().on_wake_resting = [this] {
        start_background();
        std::lock_guard lock(mutex_);
        changed_.notify_all();
    };
}

current_thread_driver::~current_thread_driver() {
    if (background_.joinable()) background_.join();
}

void current_thread_driver::adopt(held_worker w) {
    std::lock_guard lock(mutex_);
    slot_ = slot_state::returned;
    held_ = std::move(w);
    resting_ = true;
    resting_deadline_ = no_deadline;
    worker_.park_state().announce(parker::resting);
    mark_driven(worker_, false);
}

void current_thread_driver::start_background() noexcept {
    if (background_started_.load(std::memory_order_acquire)) return;
    // A thread-bound reactor belongs to the thread that drives block_on (and
    // so does one that could not be shared): work waits for the next block_on
    // there.
    if (!group_.io().other_threads_may_drive()) return;
    std::lock_guard lock(background_mutex_);
    if (background_.joinable() || background_closed_) return;
    try {
        background_ = std::thread([this] { run_background(nullptr); });
        background_started_.store(true, std::memory_order_release);
    } catch (const std::system_error& e) {
        if (!std::exchange(background_failure_reported_, true))
            report_diagnostic({diagnostic_kind::thread_stopped,
                               std::string("cannot start the runtime's background thread (") +
                                   e.what() +
                                   "): spawned tasks run during the next block_on instead"});
    }
}

void current_thread_driver::stop_background_after_failure(held_worker w,
                                                          std::exception_ptr error) noexcept {
    const char* what = "an exception that is not a std::exception";
    try {
        std::rethrow_exception(error);
    } catch (const std::exception& e) {
        what = e.what();
    } catch (...) {
    }
    report_diagnostic({diagnostic_kind::thread_stopped,
                       std::string("the runtime's background thread stopped after an error (") +
                           what + "): spawned tasks run during the next block_on instead"});
    held_worker retired;
    {
        std::lock_guard lock(mutex_);
        if (slot_ == slot_state::closed) {
            retired = std::move(w);
        } else {
            // A caller waiting for the worker gets it now; otherwise the next
            // block_on takes it. The thread stays joinable and so never restarts.
            slot_ = slot_ == slot_state::requested ? slot_state::offered : slot_state::returned;
            held_ = std::move(w);
            mark_driven(worker_, false);
            resting_ = false;
            resting_deadline_ = no_deadline;
            changed_.notify_all();
        }
    }
    retired.reset();
}

void current_thread_driver::run_background(held_worker w) {
    if (!w) {
        std::unique_lock lock(mutex_);
        w = take_back_when_needed(lock);
    }
    auto handover_requested = [this] {
        return handover_requested_.load(std::memory_order_acquire);
    };
    while (w) {
        try {
            if (!group_.io().begin_driving_here())
                throw std::runtime_error(group_.io().share_error());
            scoped_driving holder(&w->get_handle(), w->group().huge_pages());
            w->rescue_stranded();
            w->run_loop_until(handover_requested, false);
        } catch (...) {
            // A plugin failed under the worker (a reactor's poll, a timer
            // driver). Nobody on this thread can take the error: report it,
            // hand the worker to the next block_on and end the thread.
            stop_background_after_failure(std::move(w), std::current_exception());
            return;
        }
        if (group_.shutting_down()) break;

        std::unique_lock lock(mutex_);
        if (slot_ == slot_state::closed) break;
        if (slot_ != slot_state::requested) {
            // Only a requester holding `requested` raises the flag: a stale flag
            // means the requester already went away.
            handover_requested_.store(false, std::memory_order_release);
            continue;
        }
        if (w->local_tasks_of(std::this_thread::get_id()) > 0) {
            // Local tasks of this thread can only be polled here: refuse. The
            // requester polls its root directly instead.
            slot_ = slot_state::background;
            handover_requested_.store(false, std::memory_order_release);
            changed_.notify_all();
            continue;
        }
        slot_ = slot_state::offered;
        held_ = std::move(w);
        mark_driven(worker_, false);
        changed_.notify_all();
        w = take_back_when_needed(lock);
    }
    close_slot();
    w.reset();  // retire on this thread, with no lock held
}

held_worker current_thread_driver::take_back_when_needed(
    std::unique_lock<sync::detail::spin_lock>& lock) {
    while (true) {
        if (slot_ == slot_state::closed) return nullptr;  // close_slot() retired what it held
        if (slot_ == slot_state::returned && resting_worker_needs_driving() &&
            !reservation_.revoke()) {
            slot_ = slot_state::background;
            worker_.park_state().clear();
            mark_driven(worker_, true);
            changed_.notify_all();
            return std::move(held_);
        }
        if (group_.shutting_down()) {
            lock.unlock();
            close_slot();
            lock.lock();
            return nullptr;
        }
        if (slot_ == slot_state::returned && resting_deadline_ != no_deadline) {
            duration left = resting_deadline_ - worker_.now();
            changed_.wait_for(lock, std::min<duration>(left, background_wait_slice));
        } else {
            changed_.wait_for(lock, background_wait_slice);
        }
    }
}

bool current_thread_driver::resting_worker_needs_driving() const {
    if (!resting_ || worker_.inbox_may_have_items()) return true;
    // Virtual time moves only while someone drives the worker: a timer
    // armed needs it driven now, to jump there.
    if (resting_deadline_ == no_deadline) return false;
    return group_.clock().is_virtual() || resting_deadline_ <= worker_.now();
}

held_worker current_thread_driver::acquire() {
    std::unique_lock lock(mutex_);
    switch (slot_) {
        case slot_state::returned:
            // Its owner borrows it right now: as good as loaned.
            if (reservation_.revoke()) return nullptr;
            // The previous borrower handed it back and the background thread
            // has not taken it yet (always so when it came back idle).
            slot_ = slot_state::loaned;
            // No fence needed: a submitter that still sees `resting` only makes
            // a spurious notify, and parking later publishes with seq_cst.
            worker_.park_state().clear();
            mark_driven(worker_, true);
            return std::move(held_);
        case slot_state::background:
            slot_ = slot_state::requested;
            requester_ = std::this_thread::get_id();
            break;
        default:
            return nullptr;
    }
    handover_requested_.store(true, std::memory_order_release);
    group_.io().wake();  // the background thread may be blocked in the reactor
    // This caller, as it asked: another may ask after it is refused.
    const std::thread::id me = requester_;
    while (true) {
        if (slot_ == slot_state::offered && requester_ == me) {
            slot_ = slot_state::loaned;
            handover_requested_.store(false, std::memory_order_release);
            mark_driven(worker_, true);
            return std::move(held_);
        }
        if (slot_ == slot_state::requested && requester_ == me) {
            changed_.wait(lock);
            continue;
        }
        if (slot_ == slot_state::closed) {
            handover_requested_.store(false, std::memory_order_release);
            return nullptr;
        }
        // Refused, and maybe another caller asked or borrowed meanwhile: never
        // wait on a foreign loan, take a foreign offer, or clear its flag.
        return nullptr;
    }
}

void current_thread_driver::release(held_worker w, bool seen_idle) {
    // Registered I/O needs someone in the reactor: such a worker never rests.
    const bool idle = seen_idle || (!w->has_runnable() && !group_.has_io());
    // Another thread may drive it next, with I/O of this one's in the
    // reactor: a reactor cheaper for one thread is shared while this one can.
    if (!idle) group_.io().share_before_handoff();
    // A plain instant, not an optional: GCC copies an optional<instant> with
    // a wide load right after its flag's narrow store, a stall on every call.
    instant deadline = no_deadline;
    if (idle && w->has_armed_timers()) deadline = w->next_deadline().value_or(no_deadline);
    held_worker retired;
    {
        std::lock_guard lock(mutex_);
        if (slot_ == slot_state::closed) {
            retired = std::move(w);
        } else {
            slot_ = slot_state::returned;
            held_ = std::move(w);
            mark_driven(worker_, false);
            resting_ = idle;
            resting_deadline_ = deadline;
            if (idle) {
                worker_.park_state().announce(parker::resting);
                if (deadline == no_deadline && !worker_.inbox_may_have_items())
                    reservation_.grant();
            }
        }
    }
    // An idle worker rests without a handshake; remote work that raced with the
    // store above is caught by the remote_pending check.
    if (!idle || worker_.inbox_may_have_items() || deadline != no_deadline) {
        if (!retired) start_background();
        std::lock_guard lock(mutex_);
        changed_.notify_all();
    }
    retired.reset();
}

void current_thread_driver::drain_until(instant deadline) {
    // Nothing can finish meanwhile that this thread could wait for: it drives
    // the worker further up its stack already, or it may never drive it (a
    // thread-bound reactor whose home is another thread).
    if (handle::driven_at_any_depth(group_) || !group_.io().claim_for_this_thread()) return;
    while (group_.live_tasks() > 0 && worker_.now() < deadline) {
        if (held_worker w = acquire()) {
            loan borrowed(*this, std::move(w));
            if (!group_.io().begin_driving_here()) return;
            scoped_driving holder(&borrowed.get().get_handle(),
                                  borrowed.get().group().huge_pages());
            borrowed.get().rescue_stranded();
            borrowed.get().run_until_drained(deadline);
            return;
        }
        // Another thread drives the worker (its block_on, or a background
        // thread that keeps local tasks): look again when the slot changes,
        // or after a short while.
        std::unique_lock lock(mutex_);
        changed_.wait_for(lock, std::min<duration>(deadline - worker_.now(), drain_observe_slice));
    }
}

void current_thread_driver::close_slot() {
    held_worker retired;
    {
        std::lock_guard lock(mutex_);
        slot_ = slot_state::closed;
        // A worker its owner borrows right now is retired by that owner.
        if (!reservation_.revoke()) retired = std::move(held_);
        changed_.notify_all();
    }
    retired.reset();
}

bool current_thread_driver::shutdown() {
    // From inside (a task or root this thread polls, or a destructor the
    // retirement runs) nothing may wait: the work needs this thread to return.
    std::unique_lock lock(shutdown_mutex_, std::defer_lock);
    if (!handle::driven_here(group_)) lock.lock();
    if (shutdown_begun_.exchange(true, std::memory_order_acq_rel)) return false;
    held_worker w;
    // From a task or root this thread polls, the worker is busy further up the
    // stack: whoever drives it retires it when its drive unwinds.
    // A thread that may not drive a thread-bound reactor leaves the worker
    // where it is: retiring it here would enter that reactor.
    if (!handle::driven_at_any_depth(group_) && group_.io().claim_for_this_thread()) w = acquire();
    group_.begin_shutdown();
    close_slot();
    w.reset();  // retire here: the caller's local tasks unwind on their own thread
    std::thread background;
    {
        std::lock_guard lock(background_mutex_);
        background_closed_ = true;
        background = std::move(background_);
    }
    if (background.joinable()) background.join();
    return true;
}

std::exception_ptr current_thread_driver::drive(root_reference& reference) {
    const bool nested = handle::driven_at_any_depth(group_);
    task_header* root = reference.get();
    root->start_with_state(task_state::root);
    // The root spawns into the runtime's root region. It is not counted in it:
    // that region only ever closes at shutdown, when no block_on is running.
    root->set_region(&root_region_);
    // The worker rests reserved for this thread, which passed the checks
    // below when it took it last.
    if (!nested && reservation_.try_enter()) return drive_reserved(reference);
    if (!nested && !group_.io().claim_for_this_thread())
        throw std::logic_error(
            "block_on from a thread other than this runtime's home thread: its reactor is bound "
            "to the thread that first drove it (such as uring with single_issuer); call block_on "
            "on that thread, or configure a reactor that is not bound to one thread");

    if (nested) {
        // Nested in a task or root this thread polls: drive the worker here,
        // between that poll's frames (it is idle at this point of its loop).
        // The drive further up keeps dispatching after this root.
        scoped_driving holder(&worker_.get_handle(), worker_.group().huge_pages());
        return drive_root_on(worker_, reference);
    }
    if (held_worker w = acquire()) {
        loan borrowed(*this, std::move(w));
        worker& driven = borrowed.get();
        if (!group_.io().begin_driving_here()) throw std::runtime_error(group_.io().share_error());
        scoped_driving holder(&driven.get_handle(), driven.group().huge_pages());
        driven.rescue_stranded();
        const std::exception_ptr destructor_error = drive_root_on(driven, reference);
        drain_after_root(borrowed);
        return destructor_error;
    }
    // Another thread holds the worker: run the root here without it. Its
    // spawns and timers go to the worker.
    run_root(root, group_, nullptr);
    scoped_task retiring(root);
    return reference.retire();
}

void current_thread_driver::drain_after_root(loan& borrowed) {
    worker& driven = borrowed.get();
    if (!driven.has_runnable() && !group_.has_io()) {
        borrowed.seen_idle();
        return;
    }
    unsigned checks = 0;
    driven.run_loop_until([&] { return ++checks > post_root_drain_turns; }, true);
}

std::exception_ptr current_thread_driver::drive_root_on(worker& w, root_reference& reference) {
    task_header* const root = reference.get();
    // The root is a registered task for the life of the call.
    w.store().admit_root(root);
    root->admitted_by = w.index();
    return finish_root_on(w, reference, false, nullptr);
}

std::exception_ptr current_thread_driver::finish_root_on(worker& w, root_reference& reference,
                                                         bool polled_once,
                                                         std::exception_ptr plugin_error) {
    task_header* const root = reference.get();
    if (!plugin_error && !root->finished()) {
        try {
            run_root(root, group_, &w, polled_once);
        } catch (...) {
            // A plugin threw under the drive (a reactor's poll, a timer's insert).
            // The root goes as on the normal path; then the caller sees the error.
            plugin_error = std::current_exception();
        }
    }
    const std::exception_ptr destructor_error = retire_root(w, reference);
    if (plugin_error) std::rethrow_exception(plugin_error);
    return destructor_error;
}

std::exception_ptr current_thread_driver::retire_root(worker& w, root_reference& reference) {
    // Destroying the frame runs user code (its parameters' destructors): like
    // a poll, it gets the root's context, and the root stays registered until
    // it is done.
    std::exception_ptr destructor_error;
    {
        scoped_task retiring(reference.get());
        destructor_error = reference.retire();
    }
    w.store().remove_root();
    return destructor_error;
}

std::exception_ptr current_thread_driver::drive_reserved(root_reference& reference) {
    task_header* const root = reference.get();
    worker& w = worker_;
    reservation_.count_borrow();
    scoped_driving holder(&w.get_handle(), w.group().huge_pages());
    mark_driven(w, true);
    // Local tasks of this thread held while another thread drove the worker
    // run now: queued, they make the borrow a loan below.
    w.rescue_stranded();
    w.store().admit_root(root);
    root->admitted_by = w.index();
    bool finished = false;
    std::exception_ptr plugin_error;
    try {
        finished = poll_root_once(root, group_);
    } catch (...) {
        plugin_error = std::current_exception();  // a timer driver refused the root's timeout
    }
    if (!finished || plugin_error) {
        // More than one poll: an ordinary loan from here on.
        loan borrowed(*this, loan_reserved());
        const std::exception_ptr destructor_error =
            finish_root_on(w, reference, true, std::move(plugin_error));
        drain_after_root(borrowed);
        return destructor_error;
    }
    const std::exception_ptr destructor_error = retire_root(w, reference);
    // Resting, the worker had nothing to run, no timer and no I/O: it may rest
    // on only as it was (the root's frame, destroyed above, ran user code too).
    if (!w.has_runnable() && !w.has_armed_timers() && !group_.has_io()) {
        mark_driven(w, false);
        if (reservation_.leave()) hand_over_reserved();
        return destructor_error;
    }
    loan borrowed(*this, loan_reserved());
    drain_after_root(borrowed);
    return destructor_error;
}

held_worker current_thread_driver::loan_reserved() {
    std::lock_guard lock(mutex_);
    reservation_.end_mine();
    // A shutdown that came meanwhile closed the slot and left the worker to
    // this thread: the loan's return retires it.
    if (slot_ != slot_state::closed) slot_ = slot_state::loaned;
    worker_.park_state().clear();
    return std::move(held_);
}

void current_thread_driver::hand_over_reserved() {
    held_worker retired;
    bool start = false;
    {
        std::lock_guard lock(mutex_);
        reservation_.end_mine();
        if (slot_ == slot_state::closed)
            retired = std::move(held_);  // shutdown left it to this thread
        else
            start = slot_ == slot_state::returned && resting_worker_needs_driving();
    }
    retired.reset();
    if (start) start_background();
    std::lock_guard lock(mutex_);
    changed_.notify_all();  // whoever revoked may wait for the worker
}

}  // namespace rtkit::detail
