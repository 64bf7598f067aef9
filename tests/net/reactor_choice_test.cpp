// Choosing the reactor: uring first with fallback to epoll, the reason
// reported once; strict mode fails instead. The probe failure is injected with
// [reactor.uring] test_fail_probe_errno since this machine allows io_uring.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>

#include "../support/stderr_capture.hpp"
#include "net_support.hpp"
#include "rtkit/plugin_loader.hpp"
#ifdef RTKIT_NET_TESTS_HAVE_CONFIG
#include "rtkit/config/load.hpp"
#endif

using namespace rtkit;

namespace {

using test::stderr_capture;

runtime_config uring_then_epoll(std::int64_t injected_errno, bool strict) {
    runtime_config c;
    c.reactor.preference = {"uring", "epoll"};
    c.reactor.strict = strict;
    c.reactor.options["uring"] = {{"test_fail_probe_errno", injected_errno}};
    return c;
}

std::size_t occurrences(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

/// Proves the runtime works on what it chose: a pipe round trip.
void round_trip(runtime& rt) {
    const std::string got = rt.block_on([]() -> task<std::string> {
        net::pipe_ends p = net::open_pipe();
        co_await p.writer.write_all("ok");
        char buf[2];
        co_await p.reader.read_exact(buf, 2);
        co_return std::string(buf, 2);
    }());
    CHECK(got == "ok");
}

}  // namespace

TEST_CASE("choice: with no failure - uring is preferred and starts") {
    runtime rt(uring_then_epoll(0, false));
    CHECK(rt.description().reactor.find("uring") != std::string::npos);
    round_trip(rt);
}

TEST_CASE("choice: a uring probe failing with EPERM or ENOSYS falls back to epoll - said once") {
    for (const int injected : {EPERM, ENOSYS}) {
        INFO("injected errno " << injected);
        stderr_capture err;
        runtime rt(uring_then_epoll(injected, false));
        const std::string said = err.text();
        CHECK(rt.description().reactor.find("epoll") != std::string::npos);
        CHECK(occurrences(said, "reactor plugin 'uring' skipped") == 1);
        CHECK(said.find(injected == EPERM ? "EPERM" : "ENOSYS") != std::string::npos);
        CHECK(said.find("test_fail_probe_errno") != std::string::npos);
        round_trip(rt);
    }
}

TEST_CASE("choice: strict mode fails with the probe's reason instead of falling back") {
    bool threw = false;
    try {
        runtime rt(uring_then_epoll(EPERM, true));
    } catch (const plugin_error& e) {
        threw = true;
        const std::string what = e.what();
        CHECK(what.find("uring") != std::string::npos);
        CHECK(what.find("EPERM") != std::string::npos);
        CHECK(what.find("failed to start") != std::string::npos);
    }
    CHECK(threw);
}

#ifdef RTKIT_NET_TESTS_HAVE_CONFIG
TEST_CASE("choice: the same from TOML - [reactor] plugin = [\"uring\" then \"epoll\"]") {
    const std::string toml =
        "[reactor]\nplugin = [\"uring\", \"epoll\"]\n[reactor.uring]\ntest_fail_probe_errno = 1\n";
    {
        runtime_config c = config::load_string(toml, "fallback.toml");
        stderr_capture err;
        runtime rt(c);
        CHECK(rt.description().reactor.find("epoll") != std::string::npos);
        CHECK(occurrences(err.text(), "reactor plugin 'uring' skipped") == 1);
    }
    {
        const std::string strict_toml =
            "[reactor]\nplugin = [\"uring\", \"epoll\"]\nstrict = true\n"
            "[reactor.uring]\ntest_fail_probe_errno = 38\n";
        runtime_config c = config::load_string(strict_toml, "strict.toml");
        CHECK(c.reactor.strict);
        CHECK_THROWS_WITH_AS(runtime rt(c), doctest::Contains("ENOSYS"), plugin_error);
    }
}
#endif
