// rtctl run --progress: a status line on stderr when it is a terminal (a
// real pseudo-terminal here), nothing when it is not.
#include <doctest/doctest.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <vector>

#include "rtctl_process.hpp"

namespace {

/// rtctl with its standard streams on a new pseudo-terminal.
struct rtctl_on_terminal {
    pid_t pid = -1;
    int terminal = -1;  ///< the pseudo-terminal's master side
    std::string seen;   ///< everything read from it so far

    explicit rtctl_on_terminal(std::vector<std::string> args) {
        args.insert(args.begin(), RTCTL_PATH);
        std::vector<char*> argv;
        for (std::string& a : args)
            argv.push_back(a.data());
        argv.push_back(nullptr);
        winsize size{};
        size.ws_col = 200;
        size.ws_row = 40;
        pid = forkpty(&terminal, nullptr, nullptr, &size);
        REQUIRE(pid >= 0);
        if (pid == 0) {
            if (chdir(RTKIT_SOURCE_DIR) != 0) _exit(126);
            alarm(120);  // a hung rtctl fails the test instead of hanging it
            execv(argv[0], argv.data());
            _exit(127);
        }
    }

    /// Reads until `text` appears after `from` in what was seen; false at the
    /// end of the output (or after a minute: the test fails, never hangs).
    bool read_until(const std::string& text, std::size_t from = 0) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
        while (seen.find(text, from) == std::string::npos) {
            if (std::chrono::steady_clock::now() > deadline) return false;
            pollfd ready{terminal, POLLIN, 0};
            if (::poll(&ready, 1, 1000) < 0 && errno != EINTR) return false;
            if (!(ready.revents & (POLLIN | POLLHUP))) continue;
            char buffer[4096];
            const ssize_t n = ::read(terminal, buffer, sizeof buffer);
            if (n <= 0) return false;  // EIO once the child has gone
            seen.append(buffer, static_cast<std::size_t>(n));
        }
        return true;
    }

    /// Reads to the end of the output and returns the exit status.
    int finish() {
        read_until("\x01never printed\x01");
        int status = 0;
        waitpid(pid, &status, 0);
        close(terminal);
        pid = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }

    ~rtctl_on_terminal() {
        if (pid > 0) {
            kill(pid, SIGKILL);
            waitpid(pid, nullptr, 0);
            close(terminal);
        }
    }
};

}  // namespace

TEST_CASE(
    "--progress on a terminal: a status line redrawn while the script runs - erased at its end") {
    rtctl_on_terminal rtctl(
        {"run", "tests/cli/signal_scripts/waits_for_sigusr1.rts", "--progress"});
    REQUIRE(rtctl.read_until("waiting"));
    // The script's output starts a line of its own: the status line, when it
    // was drawn, was erased first.
    const std::size_t waiting = rtctl.seen.find("waiting");
    CHECK((waiting == 0 || rtctl.seen[waiting - 1] == '\n' ||
           rtctl.seen.compare(waiting - 4, 4, "\r\033[K") == 0));
    // Then the line is drawn again, twice (it is redrawn).
    const std::string line = " alive, 0 done | timers ";
    REQUIRE(rtctl.read_until(line, waiting));
    const std::size_t drawn = rtctl.seen.find(line, waiting);
    REQUIRE(rtctl.read_until(line, drawn + 1));
    CHECK(rtctl.seen.find("\r\033[Krtctl: ", waiting) < drawn);
    kill(rtctl.pid, SIGUSR1);
    CHECK(rtctl.finish() == 0);
    CHECK(rtctl.seen.find("got SIGUSR1") != std::string::npos);
    // Nothing after the last erase: the terminal is left clean.
    const std::size_t last_erase = rtctl.seen.rfind("\r\033[K");
    REQUIRE(last_erase != std::string::npos);
    CHECK(last_erase + 4 == rtctl.seen.size());
}

TEST_CASE("--progress on a terminal: the line is erased before the --stats table") {
    rtctl_on_terminal rtctl(
        {"run", "tests/cli/signal_scripts/waits_for_sigusr1.rts", "--progress", "--stats"});
    REQUIRE(rtctl.read_until("waiting"));
    kill(rtctl.pid, SIGUSR1);
    CHECK(rtctl.finish() == 0);
    const std::size_t table = rtctl.seen.find("rtctl: runtime statistics (");
    REQUIRE(table != std::string::npos);
    CHECK(rtctl.seen.rfind("\r\033[K") + 4 == table);
}

TEST_CASE("--progress when stderr is not a terminal prints nothing of the kind") {
    const rtctl_result r = run_rtctl({"run", "examples/scripts/hello.rts", "--progress"});
    CHECK(r.status == 0);
    CHECK(r.err == "");
    CHECK(r.out.find("both done") != std::string::npos);
}
