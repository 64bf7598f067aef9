// The suite fails a wrong reactor, case by case, and rtctl says so by its exit status.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <cstdlib>
#include <string>

#include "rtkit/conformance/conformance.hpp"

namespace {

const std::filesystem::path faulty_file = RTKIT_TEST_FAULTY_PLUGIN;

bool failed(const rtkit::conformance::report& r, const std::string& name) {
    for (const auto& c : r.cases)
        if (c.name == name) return c.outcome == rtkit::conformance::verdict::failed;
    return false;
}

int exit_status_of(const std::string& command) {
    const int status = std::system(command.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("a reactor with no readiness - no timeouts - failing I/O fails the suite") {
    const auto r = rtkit::conformance::run_conformance(faulty_file);
    MESSAGE(rtkit::conformance::format_report(r));
    CHECK(r.load_error.empty());
    CHECK_FALSE(r.passed());
    CHECK(failed(r, "reactor.read_readiness"));
    CHECK(failed(r, "reactor.poll_honours_timeout"));
    CHECK(failed(r, "reactor.add_refuses_a_closed_descriptor"));
    CHECK(failed(r, "reactor.wake_ends_a_blocking_poll"));
    CHECK(failed(r, "reactor.completion_recv_and_send"));  // completed at once, with a wake
    CHECK(failed(r, "reactor.completion_cancel_leaves_nothing"));
    CHECK(failed(r, "reactor.completion_accept_and_connect"));
}

TEST_CASE("a plugin whose factory makes another kind than it declares is refused - not run") {
    const auto r = rtkit::conformance::run_conformance(RTKIT_TEST_LYING_PLUGIN);
    CHECK(r.load_error.find("is not what its descriptor says") != std::string::npos);
    CHECK_FALSE(r.passed());
#ifdef RTKIT_TEST_RTCTL
    // It used to be loaded as a timer and abort the process (exit 134).
    CHECK(exit_status_of(std::string(RTKIT_TEST_RTCTL) + " conformance " RTKIT_TEST_LYING_PLUGIN
                                                         " > /dev/null 2>&1") == 2);
#endif
}

#ifdef RTKIT_TEST_RTCTL
TEST_CASE("rtctl conformance exits 0 for a passing plugin - 1 for failures - 2 for no plugin") {
    const std::string rtctl = RTKIT_TEST_RTCTL;
    const std::string quiet = " > /dev/null 2>&1";
    CHECK(exit_status_of(rtctl + " conformance " RTKIT_TEST_PLUGIN_DIR "/rtkit_reactor_epoll.so" +
                         quiet) == 0);
    CHECK(exit_status_of(rtctl + " conformance " + faulty_file.string() + quiet) == 1);
    CHECK(exit_status_of(rtctl + " conformance /nonexistent/plugin.so" + quiet) == 2);
    CHECK(exit_status_of(rtctl +
                         " conformance " RTKIT_TEST_PLUGIN_DIR
                         "/rtkit_reactor_epoll.so --option nope=1" +
                         quiet) == 2);
}
#endif
