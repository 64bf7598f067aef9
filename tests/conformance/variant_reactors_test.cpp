// Reactors that each break one rule of rtkit/reactor.hpp on purpose
// (variant_reactor.cpp): the suite fails the case of that rule, within a
// second, and its message names the rule. The "limited" variant is correct
// and declares limits: the suite runs at that size, and the kernel refuses
// registrations beyond it, up to a task of a runtime.
#include <doctest/doctest.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "rtkit/conformance/conformance.hpp"
#include "rtkit/detail/io_driver.hpp"
#include "rtkit/net.hpp"
#include "rtkit/rtkit.hpp"
#include "variant_support.hpp"

namespace {

using namespace std::chrono_literals;

/// Runs the reactor suite on variant `name` and checks that each of `cases`
/// failed in under a second with a message that names `rule`.
void check_reactor_caught(const std::string& name, const std::vector<std::string>& cases,
                          const std::string& rule) {
    const auto r = rtkit::conformance::run_reactor_conformance(variant_file("reactor", name));
    MESSAGE(rtkit::conformance::format_report(r));
    REQUIRE(r.load_error.empty());
    for (const std::string& expected : cases) {
        INFO("case: " << expected);
        const auto* c = find_case(r, expected);
        REQUIRE(c != nullptr);
        CHECK(c->outcome == rtkit::conformance::verdict::failed);
        CHECK(c->message.find("rule '" + rule) != std::string::npos);
        CHECK(c->elapsed < 1s);
    }
}

template <class F>
std::string error_text(F f, int& error) {
    try {
        f();
    } catch (const std::system_error& e) {
        error = e.code().value();
        return e.what();
    }
    error = 0;
    return {};
}

}  // namespace

TEST_CASE("variants: a wake() that does nothing fails the wake cases - fast - naming the rule") {
    check_reactor_caught("noop_wake", {"reactor.wake_ends_a_blocking_poll"},
                         "wake() from another thread ends a blocking poll()");
    check_reactor_caught("noop_wake", {"reactor.many_wakes_coalesce"},
                         "a wake() before poll() makes that poll() return at once");
}

TEST_CASE("variants: readiness delivered to the wrong registration is caught - fast") {
    check_reactor_caught("wrong_registration", {"reactor.readiness_reaches_only_its_registration"},
                         "readiness goes to the token of its own registration");
}

TEST_CASE(
    "variants: several ready in one poll delivered under each other's tokens is caught - fast") {
    check_reactor_caught("rotates_tokens", {"reactor.several_ready_in_one_poll"},
                         "readiness goes to the token of its own registration");
}

TEST_CASE("variants: watching only the first direction asked for is caught - fast") {
    check_reactor_caught("first_direction_only", {"reactor.watch_adds_a_direction"},
                         "watch() adds the directions it asks for to those still watched");
}

TEST_CASE("variants: events beyond a per-poll cap dropped are caught - fast") {
    check_reactor_caught("drops_beyond_cap", {"reactor.burst_beyond_any_cap"},
                         "readiness beyond what one poll() delivers comes with the next");
}

TEST_CASE("variants: a signal during poll turned into an error is caught - fast") {
    check_reactor_caught("eintr_is_error", {"reactor.signal_does_not_end_poll"},
                         "a signal caught during poll() does not make it fail");
}

TEST_CASE("variants: readiness dropped while nobody waits is caught - fast") {
    check_reactor_caught("drops_unwatched", {"reactor.readiness_before_a_wait_is_not_lost"},
                         "readiness that arrived before the wait is still delivered");
}

TEST_CASE("variants: a level-triggered backend that repeats what it delivered is caught - fast") {
    check_reactor_caught("repeats_delivered", {"reactor.delivered_readiness_is_not_repeated"},
                         "a delivered direction is not delivered again");
}

TEST_CASE("variants: the suite runs at a reactor's declared limits and passes it") {
    const auto r = rtkit::conformance::run_reactor_conformance(
        variant_file("reactor", "limited"), {{"max_registrations", std::int64_t{200}}});
    MESSAGE(rtkit::conformance::format_report(r));
    CHECK(r.passed());
    const auto* big = find_case(r, "reactor.ten_thousand_descriptors");
    REQUIRE(big != nullptr);
    CHECK(big->outcome == rtkit::conformance::verdict::passed);
    CHECK(big->message == "ran at 200 descriptors, within the reactor's declared limits");
}

TEST_CASE("variants: the kernel refuses a registration beyond the declared limits with EMFILE") {
    const rtkit::plugin_loader loader;
    rtkit::detail::io_driver io(
        loader.create<rtkit::reactor>(variant_file("reactor", "limited"),
                                      {{"max_registrations", std::int64_t{2}}}),
        "limited");
    int fds[2], more[2];
    REQUIRE(::pipe(fds) == 0);
    REQUIRE(::pipe(more) == 0);
    const rtkit::io_token a = io.add(fds[0], rtkit::interest::read);
    const rtkit::io_token b = io.add(fds[1], rtkit::interest::write);
    int error = 0;
    const std::string what = error_text([&] { io.add(more[0], rtkit::interest::read); }, error);
    CHECK(error == EMFILE);
    CHECK(what.find("reactor limited holds at most 2 registrations (its declared limit)") == 0);
    io.remove(a);
    io.remove(io.add(more[0], rtkit::interest::read));  // room again once one is removed
    io.remove(b);

    rtkit::detail::io_driver low(
        loader.create<rtkit::reactor>(variant_file("reactor", "limited"),
                                      {{"descriptor_limit", std::int64_t{3}}}),
        "limited");
    const std::string too_high = error_text([&] { low.add(fds[0], rtkit::interest::read); }, error);
    CHECK(error == EMFILE);
    CHECK(too_high.find("watches descriptor numbers below 3 only (its declared limit), and this "
                        "one is " +
                        std::to_string(fds[0])) != std::string::npos);
    for (const int fd : {fds[0], fds[1], more[0], more[1]})
        ::close(fd);
}

TEST_CASE("variants: a task of a runtime whose reactor is full gets the limit in its error") {
    rtkit::runtime_config config;
    config.plugin_search_path = {RTKIT_TEST_VARIANT_DIR};
    config.reactor.preference = {"limited"};
    config.reactor.strict = true;
    config.reactor.options["limited"] = {{"max_registrations", std::int64_t{3}}};
    rtkit::runtime rt(config);
    const std::string said = rt.block_on([]() -> rtkit::task<std::string> {
        auto first = rtkit::net::open_pipe();  // two registrations of three
        try {
            auto second = rtkit::net::open_pipe();
        } catch (const std::system_error& e) {
            co_return e.what();
        }
        co_return "no error";
    }());
    CHECK(said.find("holds at most 3 registrations (its declared limit)") != std::string::npos);
}

TEST_CASE("variants: a reactor that cannot be shared keeps the runtime on its thread - saying so") {
    rtkit::runtime_config config;
    config.plugin_search_path = {RTKIT_TEST_VARIANT_DIR};
    config.reactor.preference = {"refuses_to_share"};
    config.reactor.strict = true;
    rtkit::runtime rt(config);
    // A pipe outlives the first block_on: the worker would go to the
    // background thread, which the reactor cannot be shared with.
    auto pipe = rt.block_on(
        []() -> rtkit::task<rtkit::net::pipe_ends> { co_return rtkit::net::open_pipe(); }());
    auto round_trip = [](rtkit::net::pipe_ends& p) -> rtkit::task<std::string> {
        co_await p.writer.write_all("ok");
        std::string got(2, '\0');
        co_await p.reader.read_exact(got.data(), got.size());
        co_return got;
    };
    CHECK(rt.block_on(round_trip(pipe)) == "ok");  // the same thread: fine
    std::string refusal;
    std::thread([&] {
        try {
            rt.block_on(round_trip(pipe));
        } catch (const std::runtime_error& e) {
            refusal = e.what();
        }
    }).join();
    CHECK(refusal.find("could not be shared between threads") != std::string::npos);
    CHECK(refusal.find("no ring for others") != std::string::npos);
    CHECK(rt.block_on(round_trip(pipe)) == "ok");  // still fine on its thread
}
