#pragma once
// A waker for tests: counts wakes and live references, and can stamp the
// value of a test clock at its last wake.
#include <atomic>
#include <cstdint>

#include "rtkit/waker.hpp"

namespace rtkit::testing {

/// Counts what happens to the wakers made from it. It must outlive them all:
/// destroy the plugin object holding its wakers first.
struct counting_waker {
    std::atomic<int> wakes{0};  ///< wake() plus wake_by_ref()
    std::atomic<int> live{0};   ///< references not yet dropped (0: nothing leaked)
    /// When set, each wake records *stamp_source in last_stamp (single-threaded use).
    const std::int64_t* stamp_source = nullptr;
    std::int64_t last_stamp = -1;

    rtkit::waker make() {
        live.fetch_add(1, std::memory_order_relaxed);
        return rtkit::waker(this, &vtable);
    }

    static void on_wake_by_ref(void* data) {
        auto* self = static_cast<counting_waker*>(data);
        if (self->stamp_source) self->last_stamp = *self->stamp_source;
        self->wakes.fetch_add(1, std::memory_order_acq_rel);
    }
    static void on_drop(void* data) {
        static_cast<counting_waker*>(data)->live.fetch_sub(1, std::memory_order_acq_rel);
    }
    static void on_wake(void* data) {
        on_wake_by_ref(data);
        on_drop(data);
    }
    static void* on_clone(void* data) {
        static_cast<counting_waker*>(data)->live.fetch_add(1, std::memory_order_relaxed);
        return data;
    }
    static constexpr rtkit::waker_vtable vtable{&on_wake, &on_wake_by_ref, &on_clone, &on_drop};
};

}  // namespace rtkit::testing
