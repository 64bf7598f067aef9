// Chaos points (rtkit/detail/chaos.hpp): compiled only into chaos builds.
#include "rtkit/detail/chaos.hpp"

#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

namespace rtkit::detail::chaos {

namespace {

std::atomic<bool> active{false};  ///< a seed or a hook is set: points do something
std::atomic<std::uint64_t> current_seed{0};
/// Bumped by every reseed: each thread reseeds its generator when it sees a
/// new one, numbered in the order the threads get there.
std::atomic<std::uint32_t> generation{0};
std::atomic<std::uint32_t> threads_seeded{0};

std::atomic<hook_function> installed_hook{nullptr};
std::atomic<void*> hook_context{nullptr};
std::atomic<int> threads_in_hook{0};

void update_active() noexcept {
    active.store(current_seed.load() != 0 || installed_hook.load() != nullptr);
}

/// splitmix64: small, and good enough to pick stalls.
std::uint64_t next_random(std::uint64_t& state) noexcept {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

struct thread_generator {
    std::uint32_t generation = ~0u;
    std::uint64_t state = 0;
    bool stalled_long = false;  ///< at most one long stall per thread and seed
};
thread_local thread_generator generator;

/// A point where a thread has just handed work to another (a push, a wake
/// flag) and goes on with its own steps.
bool hands_over(site s) noexcept {
    return s == site::injector_pushed || s == site::inbox_pushed || s == site::root_woken;
}

/// One random stall: most points pass straight through; some yield the CPU,
/// a few spin for a while, fewer still sleep. At a hand-over, now and then
/// (once per thread and seed at most), a long sleep lets the other threads
/// run through a whole protocol meanwhile: the work handed over done, a
/// block_on returned, its runtime destroyed.
void stall(site s) noexcept {
    const std::uint32_t now_generation = generation.load(std::memory_order_acquire);
    if (generator.generation != now_generation) {
        generator.generation = now_generation;
        const std::uint64_t ordinal = threads_seeded.fetch_add(1, std::memory_order_relaxed);
        generator.state = current_seed.load(std::memory_order_relaxed) ^ (ordinal << 48);
        generator.stalled_long = false;
    }
    const std::uint64_t r = next_random(generator.state);
    const unsigned pick = r & 1023;
    const unsigned amount = static_cast<unsigned>(r >> 32);
    if (hands_over(s) && !generator.stalled_long && (r >> 10) % 64 == 0) {
        generator.stalled_long = true;
        std::this_thread::sleep_for(std::chrono::microseconds(2'000 + amount % 18'000));
    } else if (pick < 128) {
        sched_yield();
    } else if (pick < 160) {
        for (unsigned i = amount % 4096; i > 0; --i)
            __builtin_ia32_pause();
    } else if (pick < 164) {
        std::this_thread::sleep_for(std::chrono::microseconds(1 + amount % 256));
    }
}

/// RTKIT_CHAOS_SEED=N starts chaos for the whole run.
struct seed_from_environment {
    seed_from_environment() noexcept {
        if (const char* text = std::getenv("RTKIT_CHAOS_SEED"))
            reseed(std::strtoull(text, nullptr, 0));
    }
} const at_start;

}  // namespace

const char* name(site s) noexcept {
    // A switch, so that a site added to the enum without a name here is a
    // compile error (-Wswitch).
    switch (s) {
        case site::injector_pushed:
            return "injector_pushed";
        case site::inbox_pushed:
            return "inbox_pushed";
        case site::queue_popping:
            return "queue_popping";
        case site::inbox_request:
            return "inbox_request";
        case site::lanes_pushing:
            return "lanes_pushing";
        case site::lanes_popping:
            return "lanes_popping";
        case site::stealing:
            return "stealing";
        case site::task_state_changing:
            return "task_state_changing";
        case site::root_woken:
            return "root_woken";
        case site::joiner_installing:
            return "joiner_installing";
        case site::completing_with_joiner:
            return "completing_with_joiner";
        case site::joiner_taken:
            return "joiner_taken";
        case site::joiner_woken:
            return "joiner_woken";
        case site::timeout_firing:
            return "timeout_firing";
        case site::searching_changed:
            return "searching_changed";
        case site::parking:
            return "parking";
        case site::park_announced:
            return "park_announced";
        case site::park_waiting:
            return "park_waiting";
        case site::park_woke:
            return "park_woke";
        case site::unparking:
            return "unparking";
        case site::shutdown_begun:
            return "shutdown_begun";
        case site::shutdown_joining:
            return "shutdown_joining";
        case site::shutdown_waiting:
            return "shutdown_waiting";
        case site::shutdown_retiring:
            return "shutdown_retiring";
        case site::worker_unwinding:
            return "worker_unwinding";
        case site::runtime_destroying:
            return "runtime_destroying";
        case site::readiness_clearing:
            return "readiness_clearing";
        case site::reservation_entering:
            return "reservation_entering";
        case site::reservation_leaving:
            return "reservation_leaving";
        case site::reservation_revoked:
            return "reservation_revoked";
    }
    return "?";
}

void point(site s) noexcept {
    if (!active.load(std::memory_order_relaxed)) return;
    if (installed_hook.load(std::memory_order_acquire)) {
        // Counted in before the second look: set_hook(nullptr) either sees
        // this thread inside, or this thread sees the hook gone.
        threads_in_hook.fetch_add(1);
        if (hook_function f = installed_hook.load()) f(s, hook_context.load());
        threads_in_hook.fetch_sub(1);
    }
    if (current_seed.load(std::memory_order_relaxed) != 0) stall(s);
}

void set_hook(hook_function f, void* context) noexcept {
    if (f) {
        hook_context.store(context);  // before the hook that reads it
        installed_hook.store(f);
        update_active();
        return;
    }
    installed_hook.store(nullptr);
    update_active();
    while (threads_in_hook.load() != 0)
        std::this_thread::yield();
    hook_context.store(nullptr);
}

void reseed(std::uint64_t new_seed) noexcept {
    current_seed.store(new_seed);
    threads_seeded.store(0);
    generation.fetch_add(1, std::memory_order_release);
    update_active();
}

std::uint64_t seed() noexcept {
    return current_seed.load();
}

}  // namespace rtkit::detail::chaos
