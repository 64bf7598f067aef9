#pragma once
// What a runtime flavor provides: how block_on runs, how the runtime drains
// and stops. current_thread_driver and multi_thread_driver implement it, so
// that the runtime itself never asks which flavor it is.
#include <cstddef>
#include <exception>

#include "block_on_root.hpp"
#include "rtkit/time.hpp"

namespace rtkit::detail {

class runtime_driver {
  public:
    virtual ~runtime_driver() = default;

    /// Runs a block_on root to completion on the calling thread, then retires
    /// it there (see root_reference::retire); returns what a destructor in
    /// its frame threw. Throws std::logic_error where block_on may not run.
    virtual std::exception_ptr drive(root_reference& root) = 0;

    /// Graceful part of shutdown: lets the tasks run until none is left or
    /// `deadline` passes. Work that cannot finish while the calling thread
    /// waits (roots it polls itself) is not waited for.
    virtual void drain_until(instant deadline) = 0;

    /// Stops the workers and retires every task. Returns whether the stop is
    /// complete: false when another call did it, or when it can only begin
    /// here (called from inside the runtime) and a call from outside must end
    /// it.
    virtual bool shutdown() = 0;

    /// block_on roots running now (a snapshot, any thread).
    virtual std::size_t roots_running() = 0;
    /// Those of them that no worker's store holds.
    virtual std::size_t roots_outside_stores() = 0;
    /// block_on calls that borrowed a worker reserved for their thread.
    virtual std::uint64_t reserved_borrows() const { return 0; }
};

}  // namespace rtkit::detail
