#pragma once
// rtkit::detail::io_waiter: one task waiting on a registration of the I/O driver.
// Not API for applications.
#include <cstdint>

#include "rtkit/completion_reactor.hpp"
#include "rtkit/reactor.hpp"
#include "rtkit/waker.hpp"

namespace rtkit::detail {

class io_driver;

/// One wait on a registration: for readiness in one direction, or for an
/// operation submitted to a completion reactor. It lives in the awaiter (in
/// the waiting task's frame) and is linked into its registration's list of
/// waiters while the task waits, so any number of tasks may wait on one
/// registration, in either direction.
///
/// The registration does not own the task: the waiter keeps the task's waker
/// borrowed (no reference), and it is unlinked before the awaiter goes, by
/// the I/O driver when it wakes it (a delivery, or the registration's
/// removal) or by the awaiter when it gives up. So a delivery inside the
/// reactor's poll can never drop a task's last reference.
class io_waiter {
  public:
    io_waiter() noexcept = default;
    io_waiter(const io_waiter&) = delete;
    io_waiter& operator=(const io_waiter&) = delete;

    /// Whether it is in a registration's list. Where the reactor is shared,
    /// read it only under the reactor lock.
    bool linked() const noexcept { return driver_ != nullptr; }
    /// The driver whose registration holds it, while linked.
    io_driver* driver() const noexcept { return driver_; }

  private:
    friend class io_driver;

    io_driver* driver_ = nullptr;
    io_token token_ = 0;
    io_waiter* prev_ = nullptr;
    io_waiter* next_ = nullptr;
    /// The task's waker, borrowed: woken by reference, never dropped.
    void* wake_data_ = nullptr;
    const waker_vtable* wake_vtable_ = nullptr;
    /// The submitted operation it waits for; null for a readiness wait.
    io_completion* completion_ = nullptr;
    std::uint8_t want_ = 0;  ///< rtkit::interest bits of a readiness wait
};

}  // namespace rtkit::detail
