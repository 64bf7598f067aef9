// A plugin that throws under the background thread (here a reactor whose
// poll fails off the creating thread) must not end the process: the thread
// reports the error, hands the worker back and stops, and the spawned work
// goes on during the next block_on.
#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>

#include "../support/stderr_capture.hpp"
#include "test_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

using test::stderr_capture;

runtime_config failing_poll_config() {
    runtime_config c;
    c.plugin_search_path = {RTKIT_TEST_UNIT_PLUGIN_DIR};
    c.reactor.preference = {"failing_poll"};
    c.reactor.strict = true;
    return c;
}

}  // namespace

TEST_CASE("background thread: a plugin that throws stops the thread - not the process") {
    const int before = test::baseline_thread_count();
    runtime rt(failing_poll_config());
    stderr_capture captured;
    // Both sleepers outlive the root. The background thread takes the worker
    // when the first one is due, runs it, then waits for the second in the
    // reactor's poll, which throws there.
    auto [first, second] = rt.block_on([]() -> task<std::pair<join_handle<int>, join_handle<int>>> {
        auto after = [](duration d, int value) -> task<int> {
            co_await sleep(d);
            co_return value;
        };
        co_return std::pair{spawn(after(5ms, 1)), spawn(after(200ms, 7))};
    }());
    for (int i = 0; i < 2000 && test::thread_count() != before; ++i)
        std::this_thread::sleep_for(1ms);
    CHECK(test::thread_count() == before);  // it ended, after handing the worker back
    const std::string report = captured.text();
    CHECK(report.find("background thread stopped after an error") != std::string::npos);
    CHECK(report.find("injected failure off the creating thread") != std::string::npos);
    CHECK(first.is_finished());
    CHECK_FALSE(second.is_finished());

    // The next block_on drives the worker on this thread, where poll works.
    outcome<int> result = rt.block_on([](join_handle<int> h) -> task<outcome<int>> {
        co_return co_await std::move(h);
    }(std::move(second)));
    REQUIRE(result.is_ok());
    CHECK(result.value() == 7);
    // The thread is not started again: more outliving work waits for block_on.
    // Starting it is decided as this call hands the worker back, so a started
    // thread would be counted as soon as the call returns.
    rt.block_on([]() -> task<void> {
        (void)spawn([]() -> task<void> { co_await sleep(1ms); }());
        co_return;
    }());
    CHECK(test::thread_count() == before);
    rt.shutdown();
}
