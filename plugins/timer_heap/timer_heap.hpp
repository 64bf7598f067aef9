#pragma once
// rtkit_heap::timer_heap: a d-ary heap timer driver, in exact deadline order.
#include <cstdint>
#include <optional>

#include "rtkit/clock.hpp"
#include "rtkit/detail/block_array.hpp"
#include "rtkit/plugin.hpp"
#include "rtkit/timer_driver.hpp"

namespace rtkit_heap {

/// Armed timers in a d-ary min-heap ordered by (deadline, insertion number),
/// so timers fire in exact deadline order and equal deadlines in insertion
/// order, at any distance: no ticks, no rounding, no overflow area.
///
/// The heap holds small nodes (deadline, insertion number, slab index); the
/// wakers live in a slab reused through a free list, and each slab entry knows
/// its node's position, so cancel removes the node in place. insert and cancel
/// are O(log n) (log base d), next_deadline O(1). timer_handle = slab index |
/// generation << 32; firing or cancelling moves the generation on, so old
/// handles are recognised as stale.
class timer_heap final : public rtkit::timer_driver, public rtkit::timer_clock_binding {
  public:
    /// From the plugin option `arity`.
    explicit timer_heap(const rtkit::plugin_options& options);
    explicit timer_heap(unsigned arity);

    rtkit::instant now() const noexcept override;
    rtkit::timer_handle insert(rtkit::instant deadline, rtkit::waker w) override;
    bool cancel(rtkit::timer_handle handle) noexcept override;
    std::optional<rtkit::instant> next_deadline() const noexcept override;
    std::size_t fire(rtkit::instant now) override;

    void* query_interface(const char* name) noexcept override;
    void bind_clock(const rtkit::clock_source& clock) noexcept override;

  private:
    static constexpr std::uint32_t nil = UINT32_MAX;

    /// One armed timer in the heap.
    struct node {
        std::int64_t deadline;  ///< ns on the driver's clock
        std::uint64_t order;    ///< insertion number: breaks deadline ties
        std::uint32_t index;    ///< its slab entry
    };
    /// A timer's waker and where its node is.
    struct entry {
        rtkit::waker waker;
        std::uint32_t position = nil;  ///< in heap_, or nil when free
        std::uint32_t generation = 1;
        std::uint32_t next_free = nil;
    };

    static bool before(const node& a, const node& b) noexcept {
        return a.deadline < b.deadline || (a.deadline == b.deadline && a.order < b.order);
    }
    void put(std::size_t position, const node& n) noexcept;
    void sift_up(std::size_t position, node n) noexcept;
    void sift_down(std::size_t position, node n) noexcept;
    void remove_at(std::size_t position) noexcept;
    void release(std::uint32_t index) noexcept;

    const rtkit::clock_source* clock_ = nullptr;  ///< the runtime's, once bound
    std::size_t arity_;
    rtkit::detail::block_array<node> heap_;
    rtkit::detail::block_array<entry> slab_;
    std::uint32_t free_head_ = nil;
    std::uint64_t inserted_ = 0;
};

}  // namespace rtkit_heap
