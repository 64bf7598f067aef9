// The task header's functions: its references and the waker that holds one
// (whose wake is wake_task, in handle.cpp), its extras (the per-task state
// the kernel keeps beside the frame: id, cancel reason, unobserved failure),
// and the frame's destruction.
#include <exception>
#include <string>

#include "lane_entries.hpp"
#include "lost_wakes.hpp"
#include "rtkit/cx.hpp"
#include "rtkit/detail/region_node.hpp"
#include "rtkit/detail/task_extras.hpp"
#include "rtkit/detail/task_header.hpp"
#include "rtkit/diagnostics.hpp"
#include "task_wake.hpp"

namespace rtkit::detail {

void throw_cancelled() {
    task_header* t = current_task();
    const std::uint64_t s = t ? t->state.load(std::memory_order_acquire) : 0;
    if (!(s & task_state::cancel_requested) && (s & task_state::timeout_fired))
        throw task_cancelled(cancel_reason{"timed out"});
    if (task_extras* extras = t ? t->extras() : nullptr)
        if (cancel_reason* why = extras->reason.load(std::memory_order_acquire))
            throw task_cancelled(*why);
    throw task_cancelled(cancel_reason{"cancelled"});
}

void report_unobserved_failure(task_id id, const std::exception_ptr& failure,
                               const char* where) noexcept try {
    std::string what = "an exception that is not a std::exception";
    try {
        std::rethrow_exception(failure);
    } catch (const std::exception& e) {
        what = e.what();
    } catch (...) {
    }
    report_diagnostic(
        {diagnostic_kind::unobserved_task_failure,
         "task " + std::to_string(id.raw) + where + " failed and nobody took its outcome: " + what,
         id});
} catch (...) {
    // Out of memory for the message: the failure goes unreported.
}

namespace {

void waker_wake(void* data) {
    auto* task = static_cast<task_header*>(data);
    wake_task(task);
    task->release();
}
void waker_wake_by_ref(void* data) {
    wake_task(static_cast<task_header*>(data));
}
void* waker_clone(void* data) {
    static_cast<task_header*>(data)->add_ref();
    return data;
}
void waker_drop(void* data) {
    static_cast<task_header*>(data)->release();
}

constexpr waker_vtable task_waker_vtable{&waker_wake, &waker_wake_by_ref, &waker_clone,
                                         &waker_drop};

}  // namespace

waker task_header::make_waker() noexcept {
    // The state word the reference goes into says whether wakers are counted.
    if (state.fetch_add(task_state::one_ref, std::memory_order_relaxed) & task_state::traced)
        [[unlikely]]
        return make_traced_waker(*this);
    return waker(this, &task_waker_vtable);
}

waker task_header::adopt_as_waker() noexcept {
    return waker(this, &task_waker_vtable);
}

void task_header::release() noexcept {
    // A count of 1 is ours alone: nobody can take another reference without
    // one, so the last owner destroys without a locked instruction.
    using task_state::refs_of;
    if (refs_of(state.load(std::memory_order_acquire)) != 1 &&
        refs_of(state.fetch_sub(task_state::one_ref, std::memory_order_acq_rel)) != 1)
        return;
    destroy_frame();
}

void task_header::destroy_frame_with_extras() {
    task_extras* const owned_extras = extras();
    // A joiner left behind by a join that saw the task complete mid-install.
    if (task_header* joiner = owned_extras->joiner.load(std::memory_order_relaxed))
        joiner->release();
    if (owned_extras->unobserved_failure &&
        !(state.load(std::memory_order_relaxed) & task_state::outcome_owned))
        report_unobserved_failure(id(), owned_extras->unobserved_failure);
    // The header lives in the frame; a suspended frame's destructors (a
    // timeout scope) still use the extras, so they go last, unless a stale
    // lane entry of the task still needs them (lane_entries.hpp).
    if (!destroy_frame_leaving_stale_twin(*this, *owned_extras)) delete owned_extras;
}

task_id task_header::id() {
    // Given out from one counter for the process, on first use: a task nobody
    // asks about costs no word for it.
    static std::atomic<std::uint64_t> last_given{0};
    task_extras& owned_extras = get_extras();
    std::uint64_t id = owned_extras.id.load(std::memory_order_acquire);
    if (id == 0) {
        const std::uint64_t fresh = last_given.fetch_add(1, std::memory_order_relaxed) + 1;
        // Two threads may ask at once: the first to store its number wins.
        if (owned_extras.id.compare_exchange_strong(id, fresh, std::memory_order_acq_rel))
            id = fresh;
    }
    return task_id{id};
}

void note_failure(task_header& task) noexcept {
    if (!task.is_spawned()) return;  // awaited inline: the awaiting task gets the exception
    try {
        task.get_extras().unobserved_failure = std::current_exception();
    } catch (...) {
        // Out of memory: this failure goes unreported.
    }
}

void forget_failure(task_header& task) noexcept {
    task.extras()->unobserved_failure = nullptr;
}

task_extras& task_header::get_extras() {
    if (task_extras* current = extras()) return *current;
    auto* fresh = new task_extras(this);
    const auto mine = reinterpret_cast<std::uintptr_t>(static_cast<task_extras_region*>(fresh));
    // The region moves into the extras. Only a region (or nothing) may be
    // replaced: extras another thread installed meanwhile are the task's.
    std::uintptr_t word = region_or_extras_.load(std::memory_order_acquire);
    while (!word || (word & region_tag)) {
        fresh->region = word ? reinterpret_cast<region_node*>(word & ~region_tag) : nullptr;
        if (region_or_extras_.compare_exchange_weak(word, mine, std::memory_order_acq_rel,
                                                    std::memory_order_acquire))
            return *fresh;
    }
    delete fresh;
    return *extras();
}

void set_cancel_reason(task_header& task, cancel_reason reason) {
    task_extras& extras = task.get_extras();
    auto* mine = new cancel_reason(std::move(reason));
    cancel_reason* none = nullptr;
    if (!extras.reason.compare_exchange_strong(none, mine, std::memory_order_acq_rel)) delete mine;
}

}  // namespace rtkit::detail
