#pragma once
// Wakers for timer cases that need to know which timer woke, in what order
// and in which fire() call: each timer gets a number, and its waker writes it
// into the log.
#include <cstdint>
#include <deque>
#include <vector>

#include "rtkit/waker.hpp"

namespace rtkit::conformance::detail {

/// Must outlive the wakers made from it: destroy the driver first.
class wake_log {
  public:
    /// The timer numbers in the order they woke (wake() and wake_by_ref()).
    std::vector<std::uint32_t> order;
    /// Per timer number: the `call` in progress when it first woke, or -1.
    std::vector<std::int32_t> woken_in;
    /// Set by the case before each fire(): stamped into woken_in.
    std::int32_t call = 0;
    /// Wakes of a timer that had woken before.
    std::uint64_t repeated = 0;
    /// References not yet dropped: 0 once every waker is gone.
    std::int64_t live = 0;

    /// A waker for timer `id` (numbers may be reused only for the same timer).
    waker make(std::uint32_t id) {
        if (id >= woken_in.size()) woken_in.resize(id + 1, -1);
        ++live;
        return waker(&tokens_.emplace_back(token{this, id}), &vtable);
    }

  private:
    struct token {
        wake_log* log;
        std::uint32_t id;
    };

    void record(std::uint32_t id) {
        order.push_back(id);
        if (woken_in[id] >= 0)
            ++repeated;
        else
            woken_in[id] = call;
    }
    static void on_wake_by_ref(void* data) {
        auto* t = static_cast<token*>(data);
        t->log->record(t->id);
    }
    static void on_drop(void* data) { --static_cast<token*>(data)->log->live; }
    static void on_wake(void* data) {
        on_wake_by_ref(data);
        on_drop(data);
    }
    static void* on_clone(void* data) {
        ++static_cast<token*>(data)->log->live;
        return data;
    }
    static constexpr waker_vtable vtable{&on_wake, &on_wake_by_ref, &on_clone, &on_drop};

    std::deque<token> tokens_;  ///< stable addresses: a waker points at its token
};

}  // namespace rtkit::conformance::detail
