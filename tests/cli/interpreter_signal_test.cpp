// Signals in the interpreter: `signal(NAME, ...)` and `recv`, with real
// signals sent to this process, on the epoll and the io_uring reactor.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include <doctest/doctest.h>

#include "script_runner.hpp"

namespace {

bool has_default_disposition(int signal) {
    struct sigaction now {};
    ::sigaction(signal, nullptr, &now);
    return now.sa_handler == SIG_DFL;
}

/// Sends `signal` to the process. Under ThreadSanitizer it is aimed at this
/// thread, which runs the handler when it next enters a function TSan
/// intercepts (joining the script's thread): a reactor thread blocked in
/// epoll_pwait2 or io_uring_enter would never run it there.
void send_signal(int signal) {
#if defined(__SANITIZE_THREAD__)
    REQUIRE(::pthread_kill(::pthread_self(), signal) == 0);
#else
    REQUIRE(::kill(::getpid(), signal) == 0);
#endif
}

}  // namespace

TEST_CASE(
    "signal: recv gives the name of a signal sent to the process - on epoll and on io_uring") {
    for (const std::string reactor : {"epoll", "uring"}) {
        CAPTURE(reactor);
        REQUIRE(has_default_disposition(SIGUSR2));
        script_result r;
        std::atomic<bool> ended{false};
        std::thread script([&] {
            r = run_script(R"(let stop = signal("SIGUSR1", "SIGUSR2")
print stop
print "got" recv stop
)",
                           {}, with_reactor(reactor));
            ended = true;
        });
        // The script listens once the handler is in place; only then is the
        // signal sent (it would end the process before).
        while (has_default_disposition(SIGUSR2) && !ended)
            std::this_thread::yield();
        if (!ended) send_signal(SIGUSR2);
        script.join();
        CHECK(r.err == "");
        CHECK(r.out == "signal(SIGUSR1, SIGUSR2)\ngot SIGUSR2\n");
        // The last listener gone, the default disposition is back.
        CHECK(has_default_disposition(SIGUSR2));
    }
}

TEST_CASE("signal: a recv cancelled by a timeout takes nothing - bad names are errors") {
    const auto r = run_script(R"(let hup = signal("SIGHUP")
timeout 20ms {
    recv hup
} else {
    print "no signal yet"
}
)");
    CHECK(r.err == "");
    CHECK(r.out == "no signal yet\n");
    CHECK(
        first_error(run_script("let s = signal(\"SIGKILL\")\n"))
            .rfind("1:9: error: signal: 'SIGKILL' is not a signal a script can wait for (SIGHUP, ",
                   0) == 0);
    CHECK(first_error(run_script("let s = signal(\"SIGINT\", 2)\n")) ==
          "1:26: error: signal needs a string, not an integer");
    CHECK(first_error(run_script("let s = recv 5\n")) ==
          "1:14: error: recv needs a channel, a subscription or a signal stream, not an integer");
}
