#pragma once
// The programs the mini-redis tests drive: the server itself, redis-cli and
// redis-benchmark, each a real child process.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mini_redis_test {

using namespace std::chrono_literals;

/// A child process whose standard output the test reads through a pipe; its
/// standard input reads `input` (from a file), its standard error goes to a
/// file. The destructor kills it (SIGKILL) if it still runs, and reaps it.
class child {
  public:
    child(const std::vector<std::string>& argv, const std::string& input = "");
    ~child();
    child(const child&) = delete;
    child& operator=(const child&) = delete;

    pid_t pid() const noexcept { return pid_; }
    /// The next line of its output (without the newline), or nullopt when the
    /// output ended or nothing came within `limit`.
    std::optional<std::string> read_line(std::chrono::milliseconds limit = 10s);
    /// Its output until it closes it; throws after `limit`.
    std::string read_all(std::chrono::milliseconds limit = 60s);
    /// Waits for it to exit; its exit status, or 128 + the signal that ended
    /// it. Kills it (and reports 128 + SIGKILL) after `limit`.
    int wait(std::chrono::milliseconds limit = 60s);
    /// What it wrote on standard error so far.
    std::string errors() const;
    /// Waits until what it wrote on standard error contains `text`; false
    /// when it did not within `limit`.
    bool wait_for_errors(const std::string& text, std::chrono::milliseconds limit = 10s) const;

  private:
    /// Reads what the pipe holds into buffered_; false at end of output or
    /// when nothing came before `deadline`.
    bool fill(std::chrono::steady_clock::time_point deadline);

    pid_t pid_ = -1;
    int out_ = -1;
    std::string input_path_, errors_path_;
    std::string buffered_;
    std::optional<int> status_;
};

/// A program's run to its end.
struct run_result {
    int status = -1;
    std::string out, err;
};
run_result run(const std::vector<std::string>& argv, const std::string& input = "");

/// `redis-cli --no-raw -p PORT ARGS...` with `input` on standard input (one
/// command per line when there are no ARGS): replies as redis-cli shows them
/// ("(integer) 1", "(nil)", "(error) ERR ...").
run_result redis_cli(std::uint16_t port, const std::vector<std::string>& args,
                     const std::string& input = "");

/// A runtime the server is tested on, as a TOML file of tests/mini_redis/configs.
struct setup {
    std::string name;         ///< "epoll, current_thread"
    std::string config_file;  ///< absolute path
};
/// epoll and io_uring, each on current_thread and on multi_thread with 2 workers.
const std::vector<setup>& setups();

/// rtkit-mini-redis on a free loopback port, started with `setup`'s
/// configuration and `options`; ready (listening) once constructed. Killed
/// (SIGKILL) by the destructor unless it exited before. Unless the test sent
/// it a signal (then the test checks what it said), the destructor also
/// checks that it wrote nothing on standard error (no diagnostic, no
/// sanitizer report).
class server {
  public:
    explicit server(const setup& runtime, const std::vector<std::string>& options = {});
    ~server();
    server(const server&) = delete;
    server& operator=(const server&) = delete;
    std::uint16_t port() const noexcept { return port_; }
    pid_t pid() const noexcept { return process_.pid(); }
    /// Sends `signal` (the test checks errors() then).
    void signal(int signal);
    /// Waits for it to exit; its exit status (see child::wait).
    int wait(std::chrono::milliseconds limit = 30s) { return process_.wait(limit); }
    /// Sends `signal` and returns the exit status.
    int stop(int signal, std::chrono::milliseconds limit = 30s);
    std::string errors() const { return process_.errors(); }
    bool wait_for_errors(const std::string& text, std::chrono::milliseconds limit = 10s) const {
        return process_.wait_for_errors(text, limit);
    }

  private:
    child process_;
    std::uint16_t port_ = 0;
    bool signalled_ = false;
};

}  // namespace mini_redis_test
