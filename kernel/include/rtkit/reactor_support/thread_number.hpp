#pragma once
// rtkit::reactor_support::this_thread_number: a number for the calling thread
// that no other thread of the process ever has.
//
// Public API, header-only. For code that must remember which thread owns
// something (a reactor bound to one thread, see thread_bound_reactor_name in
// rtkit/reactor.hpp): a std::thread::id does not do, since the C library
// gives an ended thread's id to the next thread it starts.
#include <atomic>
#include <cstdint>

namespace rtkit::reactor_support {

/// 1, 2, ... in the order threads first ask; never 0, never reused. Each
/// shared object that inlines this has its own numbering, which is enough
/// to compare numbers that the same code took.
inline std::uint64_t this_thread_number() noexcept {
    static std::atomic<std::uint64_t> threads_seen{0};
    thread_local const std::uint64_t number = threads_seen.fetch_add(1) + 1;
    return number;
}

}  // namespace rtkit::reactor_support
