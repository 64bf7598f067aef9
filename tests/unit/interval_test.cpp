// rtkit::interval and sleep_until. The missed-tick rules are checked on
// made-up instants (next_tick_after is pure); on a runtime, an interval that
// started in the past has missed ticks at once, so no test waits for a miss.
#include <doctest/doctest.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "rtkit/interval.hpp"
#include "test_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

constexpr instant at(duration d) {
    return instant{} + d;
}
constexpr instant next(missed_tick_behavior b, duration due, duration now, duration period) {
    return next_tick_after(b, at(due), at(now), period);
}
constexpr missed_tick_behavior burst = missed_tick_behavior::burst;
constexpr missed_tick_behavior delay = missed_tick_behavior::delay;
constexpr missed_tick_behavior skip = missed_tick_behavior::skip;

/// Runs `body` as a spawned task (so on multi_thread it runs on a worker),
/// on a runtime of each flavor.
template <class F>
void on_each_flavor(F body) {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        rt.block_on([](F& body) -> task<void> {
            outcome<void> o = co_await spawn(body());
            CHECK(o.is_ok());
        }(body));
    });
}

}  // namespace

TEST_CASE("interval rules: a tick taken on time keeps the schedule whatever the behavior") {
    for (missed_tick_behavior b : {burst, delay, skip}) {
        CHECK(next(b, 100ms, 100ms, 50ms) == at(150ms));
        CHECK(next(b, 100ms, 103ms, 50ms) == at(150ms));
        // Up to the tolerance, a late tick is still on time.
        CHECK(next(b, 100ms, 100ms + missed_tick_tolerance, 50ms) == at(150ms));
    }
}

TEST_CASE("interval rules: burst keeps the schedule after a miss") {
    // tokio's example: a 50ms interval whose task was busy for 200ms.
    CHECK(next(burst, 0ms, 200ms, 50ms) == at(50ms));
    CHECK(next(burst, 50ms, 200ms, 50ms) == at(100ms));
    CHECK(next(burst, 150ms, 200ms, 50ms) == at(200ms));
}

TEST_CASE("interval rules: delay starts a new schedule one period after the late tick") {
    CHECK(next(delay, 0ms, 60ms, 50ms) == at(110ms));
    CHECK(next(delay, 0ms, 100ms + missed_tick_tolerance + 1ns, 100ms) ==
          at(200ms + missed_tick_tolerance + 1ns));
}

TEST_CASE("interval rules: skip goes on at the next tick of the schedule still ahead") {
    CHECK(next(skip, 0ms, 75ms, 50ms) == at(100ms));
    CHECK(next(skip, 0ms, 260ms, 50ms) == at(300ms));
    // Late by exactly whole periods: the next one is a full period ahead.
    CHECK(next(skip, 0ms, 100ms, 50ms) == at(150ms));
    CHECK(next(skip, 10ms, 16ms, 1ms) == at(17ms));
}

TEST_CASE("interval rules: a schedule near the end of the clock saturates") {
    const instant end = instant::max();
    CHECK(next_tick_after(burst, end - 1ms, end - 1ms, 1h) == end);
    CHECK(next_tick_after(delay, instant{}, end - 1ms, 1h) == end);
}

TEST_CASE("interval: the first tick is at once - the next ones a period apart - never early") {
    on_each_flavor([]() -> task<void> {
        const instant start = now();
        interval iv(start, 1ms);
        for (int k = 0; k < 4; ++k) {
            const instant due = co_await iv.tick();
            CHECK(due == start + k * 1ms);
            CHECK(now() >= due);
            CHECK(iv.deadline() == due + 1ms);
        }
    });
}

TEST_CASE("interval: interval(period) starts now") {
    on_each_flavor([]() -> task<void> {
        const instant before = now();
        interval iv(1h);
        const instant after = now();
        CHECK(iv.period() == 1h);
        CHECK(iv.missed_ticks() == burst);
        auto first = iv.tick();
        CHECK(first.await_ready());
        const instant due = co_await first;
        CHECK(due >= before);
        CHECK(due <= after);
        CHECK(iv.deadline() == due + 1h);
    });
}

TEST_CASE("interval: burst gives the missed ticks at once - on the original schedule") {
    on_each_flavor([]() -> task<void> {
        const instant start = now() - 20ms;  // 20 ticks behind
        interval iv(start, 1ms);
        for (int k = 0; k < 10; ++k) {
            auto tick = iv.tick();
            CHECK(tick.await_ready());
            CHECK(co_await tick == start + k * 1ms);
        }
        CHECK(iv.deadline() == start + 10ms);
    });
}

TEST_CASE("interval: delay gives the missed tick - then ticks a period after it was taken") {
    on_each_flavor([]() -> task<void> {
        const instant start = now() - 20ms;
        interval iv(start, 1ms);
        iv.set_missed_ticks(delay);
        const instant before = now();
        CHECK(co_await iv.tick() == start);
        const instant after = now();
        CHECK(iv.deadline() >= before + 1ms);
        CHECK(iv.deadline() <= after + 1ms);
        const instant planned = iv.deadline();
        const instant due = co_await iv.tick();
        CHECK(due == planned);
        CHECK(now() >= planned);
    });
}

TEST_CASE("interval: skip gives the missed tick - then the next tick of the schedule ahead") {
    on_each_flavor([]() -> task<void> {
        const instant start = now() - 20ms;
        interval iv(start, 3ms);
        iv.set_missed_ticks(skip);
        const instant before = now();
        CHECK(co_await iv.tick() == start);
        const instant after = now();
        const instant planned = iv.deadline();
        CHECK((planned - start) % 3ms == 0ns);
        CHECK(planned > before);
        CHECK(planned <= after + 3ms);
        CHECK(co_await iv.tick() == planned);
    });
}

TEST_CASE("interval: a tick cancelled while it waits takes no tick") {
    on_each_flavor([]() -> task<void> {
        interval iv(1h);
        (void)co_await iv.tick();
        const instant planned = iv.deadline();
        std::atomic<bool> waiting{false};
        auto ticker = spawn([](interval& iv, std::atomic<bool>& waiting) -> task<instant> {
            waiting = true;
            co_return co_await iv.tick();
        }(iv, waiting));
        while (!waiting.load())
            co_await yield_now();
        ticker.cancel();
        CHECK((co_await std::move(ticker)).is_cancelled());
        CHECK(iv.deadline() == planned);
        // The same tick is still to come: due now, it is given at once.
        iv.reset_at(now());
        const instant due = iv.deadline();
        CHECK(co_await iv.tick() == due);
    });
}

TEST_CASE("interval: reset starts the schedule a period from now") {
    on_each_flavor([]() -> task<void> {
        interval iv(now() - 1h, 2ms);
        const instant before = now();
        iv.reset();
        CHECK(iv.deadline() >= before + 2ms);
        const instant planned = iv.deadline();
        CHECK(co_await iv.tick() == planned);
        CHECK(now() >= planned);
    });
}

TEST_CASE("interval: a period that is not positive is refused") {
    CHECK_THROWS_AS(interval(instant{}, 0ns), std::invalid_argument);
    CHECK_THROWS_AS(interval(instant{}, -1ms), std::invalid_argument);
}

TEST_CASE("interval: outside a task - no clock to start from and nothing to tick") {
    CHECK_THROWS_AS(interval(1ms), no_runtime_error);
    interval iv(instant{}, 1ms);
    CHECK_THROWS_AS((void)iv.tick(), no_runtime_error);
}

TEST_CASE("sleep_until: wakes at its deadline - at once for one that passed") {
    on_each_flavor([]() -> task<void> {
        co_await sleep_until(now() - 1h);
        const instant deadline = now() + 2ms;
        co_await sleep_until(deadline);
        CHECK(now() >= deadline);
    });
    CHECK_THROWS_AS((void)sleep_until(instant{}), no_runtime_error);
}
