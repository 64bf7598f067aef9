#pragma once
// Which workers of a multi-thread runtime are parked or looking for work, so
// that new work wakes a worker only when none is awake to take it.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

namespace rtkit::detail {

/// Counts the workers that are unparked and, among them, those searching for
/// work (stealing, draining the injector), in one atomic word, and keeps the
/// parked ones in a list. The protocol, as in tokio's scheduler:
///
/// - New work calls worker_to_notify(): only if no worker is searching and one
///   is parked does it pick that one (counted as unparked and searching at
///   once, so the next piece of work wakes nobody while it searches).
/// - A worker that runs dry asks to search (refused when half the unparked
///   workers already search, which bounds the stealing herd); when it finds
///   work it stops searching, and the last searcher to stop wakes another
///   parked worker, so work spreads without waking everyone for every task.
/// - A worker parks (counted out, listed), then looks for work once more
///   before it sleeps; new work published before its count changed is seen by
///   that look, work published after finds it listed.
class idle_workers {
  public:
    explicit idle_workers(std::size_t workers = 0) noexcept { reset(workers); }
    void reset(std::size_t workers) noexcept;

    /// New work, published by a plain store: the worker to unpark, if one must be.
    std::optional<std::uint16_t> worker_to_notify() noexcept;
    /// The same for work published by a seq_cst read-modify-write (the
    /// injector's exchange), which orders it already: one locked instruction
    /// fewer.
    std::optional<std::uint16_t> worker_to_notify_after_rmw() noexcept;
    /// A worker that ran dry: may it search? (Then it counts as searching.)
    bool try_start_searching() noexcept;
    /// A searching worker found work. True when it was the last searcher.
    bool stop_searching() noexcept;
    /// Worker `index` parks (it was searching or not).
    void park(std::uint16_t index, bool was_searching) noexcept;
    /// Worker `index` woke up. True when new work woke it (worker_to_notify
    /// picked it): it then counts as searching. Otherwise (its own timer, its
    /// inbox, shutdown) it takes itself off the list and counts as awake.
    bool woke(std::uint16_t index) noexcept;

    /// Whether worker `index` is listed as parked (no notifier took it yet).
    bool is_parked(std::uint16_t index) noexcept;

    std::size_t searching() const noexcept {
        return state_.load(std::memory_order_seq_cst) & searching_mask;
    }

  private:
    /// Decides from `s`, the state read after the work was published.
    std::optional<std::uint16_t> worker_to_notify(std::uint32_t s) noexcept;

    static constexpr std::uint32_t searching_mask = 0xFFFF;
    static constexpr std::uint32_t unparked_one = 1u << 16;

    /// Starts a cache line, apart from what its owner keeps before it (the
    /// injector's consumer lock, taken per batch): every spawn and wake reads
    /// it. What follows is written only when a worker parks or is picked,
    /// as this word is.
    alignas(64) std::atomic<std::uint32_t> state_{0};  ///< unparked << 16 | searching
    std::size_t workers_ = 0;
    std::mutex parked_mutex_;
    std::vector<std::uint16_t> parked_;
    std::vector<bool> is_parked_;
};

}  // namespace rtkit::detail
