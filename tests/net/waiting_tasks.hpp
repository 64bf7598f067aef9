#pragma once
// What the tests of tasks waiting on one socket share: starting tasks that
// are known to wait, joining them without hanging, and running a scenario
// in a task on every setup.
#include <chrono>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../support/deadlock_watchdog.hpp"
#include "net_support.hpp"
#include "rtkit/sync/oneshot.hpp"

namespace net_test {

using namespace std::chrono_literals;

/// How long a join may take before the test calls the task lost.
constexpr auto patience = 5s;

/// Starts `count` local tasks from `start(i, waiting)`: each sends on
/// `waiting` just before it waits on the socket. A local task runs on this
/// thread, so once every one has said so, every one is waiting.
template <class T, class Start>
rtkit::task<std::vector<rtkit::join_handle<T>>> start_waiting(int count, Start start) {
    std::vector<rtkit::join_handle<T>> handles;
    for (int i = 0; i < count; ++i) {
        auto [tx, rx] = rtkit::sync::make_oneshot<bool>();
        handles.push_back(rtkit::cx::current().spawn_local(start(i, std::move(tx))));
        REQUIRE(co_await rx);
    }
    co_return handles;
}

/// Joins `h` and gives its outcome, failing (not hanging) when it does not
/// end within `patience`.
template <class T>
rtkit::task<rtkit::outcome<T>> outcome_patiently(rtkit::join_handle<T> h, const char* what) {
    auto joined = co_await rtkit::timeout(
        patience, [](rtkit::join_handle<T> h) -> rtkit::task<rtkit::outcome<T>> {
            co_return co_await std::move(h);
        }(std::move(h)));
    if (!joined) throw std::runtime_error(std::string(what) + " never ended: its wait was lost");
    co_return std::move(*joined);
}

/// Joins `h` and gives its value, failing (not hanging) as outcome_patiently.
template <class T>
rtkit::task<T> join_patiently(rtkit::join_handle<T> h, const char* what) {
    rtkit::outcome<T> ended = co_await outcome_patiently(std::move(h), what);
    co_return std::move(ended).value();
}

/// Runs `scenario` in a local task on each setup, so that it and the local
/// tasks it starts run on one thread (on the multi-thread runtime, a worker
/// that nobody steals them from).
inline void on_every_setup(const char* what, rtkit::task<void> (*scenario)()) {
    for (const net_test::setup& setup : net_test::setups) {
        rtkit::test::run_or_abort_on_deadlock(what, [&] {
            INFO(setup.name());
            rtkit::runtime rt(net_test::config_for(setup));
            rt.block_on([](rtkit::task<void> (*scenario)()) -> rtkit::task<void> {
                auto outer = rtkit::spawn([](rtkit::task<void> (*scenario)()) -> rtkit::task<void> {
                    (co_await rtkit::cx::current().spawn_local(scenario())).value();
                }(scenario));
                (co_await std::move(outer)).value();
            }(scenario));
        });
    }
}

}  // namespace net_test
