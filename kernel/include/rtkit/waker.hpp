#pragma once
// rtkit::waker: a copyable handle that reschedules one task.
#include <utility>

namespace rtkit {

/// The operations behind a waker. A waker is (data, vtable) so that plugins can
/// hold and fire wakers without knowing how the kernel stores tasks.
/// Every function may be called from any thread.
struct waker_vtable {
    void (*wake)(void* data);         ///< Reschedule, then release this reference.
    void (*wake_by_ref)(void* data);  ///< Reschedule; keep the reference.
    void* (*clone)(void* data);       ///< Take another reference; returns the new data.
    void (*drop)(void* data);         ///< Release this reference.
};

/// A copyable, movable handle that reschedules one task.
///
/// Waking a task that is already scheduled is a no-op, waking a finished task is
/// a no-op, and a wake from any thread is safe. An empty waker (default
/// constructed or moved from) ignores wakes.
class waker {
  public:
    waker() noexcept = default;
    waker(void* data, const waker_vtable* vtable) noexcept : data_(data), vtable_(vtable) {}
    waker(const waker& other) noexcept
        : data_(other.vtable_ ? other.vtable_->clone(other.data_) : nullptr),
          vtable_(other.vtable_) {}
    waker(waker&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)),
          vtable_(std::exchange(other.vtable_, nullptr)) {}
    waker& operator=(waker other) noexcept {
        std::swap(data_, other.data_);
        std::swap(vtable_, other.vtable_);
        return *this;
    }
    ~waker() { reset(); }

    /// Reschedules the task and empties this waker.
    void wake() noexcept {
        if (vtable_) std::exchange(vtable_, nullptr)->wake(std::exchange(data_, nullptr));
    }
    /// Reschedules the task; this waker stays usable.
    void wake_by_ref() const noexcept {
        if (vtable_) vtable_->wake_by_ref(data_);
    }
    /// Drops the reference this waker holds.
    void reset() noexcept {
        if (vtable_) std::exchange(vtable_, nullptr)->drop(std::exchange(data_, nullptr));
    }
    /// True when both wake the same task (same data and vtable).
    bool will_wake(const waker& other) const noexcept {
        return data_ == other.data_ && vtable_ == other.vtable_;
    }
    explicit operator bool() const noexcept { return vtable_ != nullptr; }

    void* data() const noexcept { return data_; }
    const waker_vtable* vtable() const noexcept { return vtable_; }

  private:
    void* data_ = nullptr;
    const waker_vtable* vtable_ = nullptr;
};

}  // namespace rtkit
