#pragma once
// A node of the region tree. Not API; rtkit::cx and the region scope use it.
#include <atomic>
#include <cassert>
#include <cstdint>
#include <exception>
#include <vector>

#include "rtkit/outcome.hpp"
#include "rtkit/sync/spin_lock.hpp"
#include "rtkit/waker.hpp"

namespace rtkit::detail {

class handle;
struct task_header;

/// The next region id (a process-wide counter).
std::uint64_t next_region_id() noexcept;

/// Counts what lives in a region (tasks and child regions) and lets the owner
/// of a region scope wait until it is empty once the scope's body ended.
///
/// The open regions of a runtime form a tree (each node lists its children),
/// so that cancelling a region marks every region below it at once: a region
/// then knows it is cancelled from its own flag, and the cancellations that
/// follow from the first (each region scope below passes its owner's
/// cancellation on) find their regions marked already and cost nothing.
///
/// `word` packs the count (in units of `one`) with three flags, so that the last
/// leaver's final access to the node is one atomic operation: the one that
/// sets `drained`, after which the closer may free the node.
struct region_node {
    static constexpr std::uint64_t closing = 1;     ///< the scope's body ended
    static constexpr std::uint64_t closer_set = 2;  ///< `closer` holds the closer's waker
    static constexpr std::uint64_t drained = 4;     ///< closing and empty: the node may go
    static constexpr std::uint64_t one = 8;

    const std::uint64_t id = next_region_id();
    region_node* parent = nullptr;
    handle* home = nullptr;  ///< how the region's runtime is reached
    /// False for a region that is never closed (a runtime's own): nobody
    /// reads its count, and not keeping it saves two locked instructions per
    /// task.
    const bool counted = true;
    std::atomic<std::uint64_t> word{0};
    std::atomic<bool> cancelled{false};
    std::atomic<cancel_reason*> reason{nullptr};
    waker closer;
    /// The tree: this node's children, and its place among its parent's.
    /// Changed and walked under the parent's children_lock.
    region_node* first_child = nullptr;
    region_node* next_sibling = nullptr;
    region_node* prev_sibling = nullptr;
    sync::detail::spin_lock children_lock;
    /// Tasks of the region that ended by throwing, each kept with a reference
    /// until the region's owner knows whether anybody takes their outcome
    /// (region_failures.cpp). Under failed_lock.
    std::vector<task_header*> failed_tasks;
    sync::detail::spin_lock failed_lock;

    region_node() = default;
    /// A region that is never closed, so it keeps no count.
    struct never_closed_t {};
    static constexpr never_closed_t never_closed{};
    explicit region_node(never_closed_t) noexcept : counted(false) {}
    region_node(const region_node&) = delete;
    region_node& operator=(const region_node&) = delete;
    ~region_node() { delete reason.load(std::memory_order_acquire); }

    /// Something (a task or a child region) joins the region.
    void enter() noexcept {
        if (counted) word.fetch_add(one, std::memory_order_relaxed);
    }
    /// Enters, unless the region has drained or is about to (closing and
    /// empty: its last leaver is marking it drained): then false. For a
    /// caller that keeps the node alive meanwhile, such as its owner.
    bool try_enter() noexcept {
        if (!counted) return true;
        std::uint64_t s = word.load(std::memory_order_acquire);
        while (!(s & drained) && !((s & closing) && s / one == 0))
            if (word.compare_exchange_weak(s, s + one, std::memory_order_acq_rel,
                                           std::memory_order_acquire))
                return true;
        return false;
    }
    /// Something leaves; the last one out of a closing region wakes its closer.
    void leave() noexcept {
        if (!counted) return;
        std::uint64_t prev = word.fetch_sub(one, std::memory_order_acq_rel);
        if (prev / one == 1 && (prev & closing)) mark_drained();
    }
    /// The body ended: from now on the region drains. True if already empty.
    bool close() noexcept {
        assert(counted);
        std::uint64_t prev = word.fetch_or(closing, std::memory_order_acq_rel);
        if (prev / one != 0) return false;
        word.fetch_or(drained, std::memory_order_acq_rel);
        return true;
    }
    bool is_drained() const noexcept { return word.load(std::memory_order_acquire) & drained; }
    /// Publishes the closer's waker; false when the region drained meanwhile.
    bool set_closer(waker w) noexcept {
        closer = std::move(w);
        return !(word.fetch_or(closer_set, std::memory_order_acq_rel) & drained);
    }
    /// Joins the tree under `parent` (set as `this->parent`), cancelled from
    /// the start if `parent` is.
    void link_under(region_node& up) noexcept {
        parent = &up;
        up.children_lock.lock();
        next_sibling = up.first_child;
        if (next_sibling) next_sibling->prev_sibling = this;
        up.first_child = this;
        // Under the parent's lock: a cancellation of the parent either finds
        // this node in the list, or set the parent's flag before this read.
        if (up.cancelled.load(std::memory_order_acquire))
            cancelled.store(true, std::memory_order_release);
        up.children_lock.unlock();
    }
    /// Leaves the tree (once drained: it has no children left).
    void unlink() noexcept {
        region_node& up = *parent;
        up.children_lock.lock();
        if (prev_sibling)
            prev_sibling->next_sibling = next_sibling;
        else
            up.first_child = next_sibling;
        if (next_sibling) next_sibling->prev_sibling = prev_sibling;
        up.children_lock.unlock();
    }
    /// Marks every region below this one cancelled, in time linear in their
    /// number and without allocating. The regions on the path from here down
    /// stay locked while their children are visited, so none of them can
    /// leave the tree meanwhile; locks are taken top-down only, as
    /// link_under() and unlink() take just the parent's.
    void cancel_below() noexcept {
        region_node* node = this;
        node->children_lock.lock();
        region_node* child = node->first_child;
        for (;;) {
            if (child) {
                child->cancelled.store(true, std::memory_order_release);
                child->children_lock.lock();
                if (child->first_child) {  // down, keeping the path locked
                    node = child;
                    child = node->first_child;
                    continue;
                }
                child->children_lock.unlock();
                child = child->next_sibling;
                continue;
            }
            if (node == this) break;
            // Up: the parent's lock is still held, so the next sibling stays.
            child = node->next_sibling;
            region_node* const up = node->parent;
            node->children_lock.unlock();
            node = up;
        }
        node->children_lock.unlock();
    }
    // A task that throws and whose outcome nobody takes fails its region:
    // the region's owner cancels the others once its body has ended, and
    // throws the failure when the region has drained (region_scope.hpp).

    /// `task` ends by throwing (a worker completing it, before the task
    /// leaves the region): keeps it. False when it could not (out of memory:
    /// the failure then only goes to the diagnostics hook, as outside a region).
    bool keep_failed(task_header& task) noexcept;
    /// After keep_failed, once the worker no longer holds the task and
    /// before the task leaves: an owner that waits for the drain looks again.
    void tell_closer_of_failure() noexcept;
    /// The owner: the first failure of a kept task that nobody else holds
    /// (no join handle, no waker: nobody can take its outcome any more),
    /// taken so that it is not also reported as unobserved; null if none.
    /// Kept tasks whose outcome was taken are let go; the others stay.
    std::exception_ptr take_unhandled_failure() noexcept;
    /// The owner, once the region drained: lets every kept task go.
    void release_failed() noexcept;

    /// True when this region was cancelled, or a region above it (which
    /// marks every region below it, and a new region below it at its start).
    bool is_cancelled() const noexcept { return cancelled.load(std::memory_order_acquire); }
    /// The reason of the nearest cancelled region at or above this one.
    cancel_reason cancel_reason_or_default() const {
        for (const region_node* r = this; r; r = r->parent)
            if (cancel_reason* why = r->reason.load(std::memory_order_acquire)) return *why;
        return cancel_reason{"region cancelled"};
    }

  private:
    /// Marks the region drained. Setting `drained` must be the leaver's last
    /// access to the node: the closer may see it (woken for another reason)
    /// and free the node at once. So a waiting closer's waker is taken first;
    /// the closer cannot go before `drained` is set.
    void mark_drained() noexcept {
        std::uint64_t s = word.load(std::memory_order_acquire);
        while (!(s & closer_set))
            if (word.compare_exchange_weak(s, s | drained, std::memory_order_acq_rel,
                                           std::memory_order_acquire))
                return;  // nobody waits
        waker w = std::move(closer);
        word.fetch_or(drained, std::memory_order_acq_rel);
        w.wake();
    }
};

}  // namespace rtkit::detail
