#include <signal.h>

#include <coroutine>
#include <system_error>

#include "rtkit/cx.hpp"
#include "rtkit/detail/io.hpp"
#include "rtkit/net/registered_fd.hpp"
#include "rtkit/signal.hpp"
#include "signal_hub.hpp"

namespace rtkit {
namespace detail {

/// A stream's state, behind a pointer so that the hub may hold it while the
/// stream moves: its subscription, and its own descriptor of the hub's pipe,
/// registered with the reactor of the runtime it was made in.
struct signal_listener {
    signal_subscription subscription;
    net::registered_fd pipe;

    /// Takes what arrived. Forgets the pipe's latched readiness first: the
    /// hub empties the pipe next, and a byte written after that is latched
    /// again when the reactor sees it.
    std::optional<int> take() {
        if (pipe.is_open()) pipe.registration().clear_ready(ready::readable);
        return signal_hub::get().take(subscription);
    }

    /// Suspends until the hub hands this stream a signal, or the pipe becomes
    /// readable (a signal arrived that nobody has dispatched yet), or the
    /// task is cancelled. Resumes on any wake: next() looks again.
    class wait_awaiter {
      public:
        explicit wait_awaiter(signal_listener& l) noexcept : l_(l) {}
        wait_awaiter(const wait_awaiter&) = delete;
        wait_awaiter& operator=(const wait_awaiter&) = delete;
        ~wait_awaiter() {
            // A frame destroyed while suspended here: the hub and the reactor
            // let go of it.
            if (armed_) signal_hub::get().disarm(l_.subscription);
            if (l_.pipe.is_open()) l_.pipe.registration().withdraw(pipe_waiter_);
        }

        bool await_ready() const noexcept { return cancel_pending(); }
        bool await_suspend(std::coroutine_handle<>) {
            task_header* self = current_task();
            if (!signal_hub::get().arm(l_.subscription, self->make_waker())) return false;
            armed_ = true;
            unsigned bits = 0;
            try {
                const borrowed_task_waker wake(self);
                bits = l_.pipe.registration().poll_ready(interest::read, pipe_waiter_, wake.get());
            } catch (...) {
                disarm();
                throw;
            }
            if (bits == 0) return true;
            disarm();
            if (bits & ready::error)
                throw std::system_error(EIO, std::generic_category(),
                                        "the signal pipe's registration failed");
            return false;
        }
        void await_resume() {
            if (!armed_) return;
            disarm();
            // Woken by the hub: the reactor keeps no waker of this wait.
            l_.pipe.registration().withdraw(pipe_waiter_);
        }

      private:
        void disarm() noexcept {
            armed_ = false;
            signal_hub::get().disarm(l_.subscription);
        }
        signal_listener& l_;
        io_waiter pipe_waiter_;
        bool armed_ = false;
    };
};

}  // namespace detail

signal_stream::signal_stream(int signal) : signal_stream({signal}) {}

signal_stream::signal_stream(std::initializer_list<int> signals)
    : signal_stream(std::span<const int>(signals.begin(), signals.size())) {}

signal_stream::signal_stream(std::span<const int> signals) {
    const std::uint64_t wanted = detail::signal_hub::mask_of(signals);
    if (!detail::current_task())
        throw no_runtime_error(
            "a signal_stream needs a runtime: make it in a task, or in a block_on root");
    auto listener = std::make_unique<detail::signal_listener>();
    listener->subscription.wanted = wanted;
    detail::signal_hub& hub = detail::signal_hub::get();
    const int fd = hub.subscribe(listener->subscription);
    try {
        listener->pipe = net::registered_fd(fd, net::fd_kind::pipe);
    } catch (...) {
        hub.unsubscribe(listener->subscription);  // registered_fd closed fd
        throw;
    }
    listener_ = std::move(listener);
}

signal_stream::signal_stream(signal_stream&& other) noexcept = default;

signal_stream& signal_stream::operator=(signal_stream&& other) noexcept {
    if (this != &other) {
        signal_stream doomed(std::move(*this));
        listener_ = std::move(other.listener_);
    }
    return *this;
}

signal_stream::~signal_stream() {
    if (!listener_) return;
    detail::signal_hub::get().unsubscribe(listener_->subscription);
    // Then listener_'s pipe is deregistered and closed.
}

task<int> signal_stream::next() {
    if (!listener_) throw std::logic_error("signal_stream::next on a moved-from stream");
    detail::signal_listener& listener = *listener_;
    while (true) {
        detail::check_cancel();
        if (const std::optional<int> signal = listener.take()) co_return *signal;
        co_await detail::signal_listener::wait_awaiter(listener);
    }
}

std::optional<int> signal_stream::try_next() {
    if (!listener_) throw std::logic_error("signal_stream::try_next on a moved-from stream");
    return detail::signal_hub::get().take(listener_->subscription);
}

task<void> ctrl_c() {
    signal_stream interrupts(SIGINT);
    co_await interrupts.next();
}

}  // namespace rtkit
