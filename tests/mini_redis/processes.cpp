#include "processes.hpp"

#include <doctest/doctest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <utility>

namespace mini_redis_test {
namespace {

std::string temp_file(const std::string& content) {
    char path[] = "/tmp/mini-redis-test-XXXXXX";
    const int fd = ::mkstemp(path);
    if (fd < 0) throw std::system_error(errno, std::generic_category(), "mkstemp");
    std::size_t written = 0;
    while (written < content.size()) {
        const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
        if (n < 0) throw std::system_error(errno, std::generic_category(), "write");
        written += static_cast<std::size_t>(n);
    }
    ::close(fd);
    return path;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

int exit_status(int wait_status) {
    return WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
}

}  // namespace

child::child(const std::vector<std::string>& argv, const std::string& input)
    : input_path_(temp_file(input)), errors_path_(temp_file("")) {
    int pipe_ends[2];
    if (::pipe2(pipe_ends, O_CLOEXEC) < 0)
        throw std::system_error(errno, std::generic_category(), "pipe2");
    std::vector<char*> args;
    std::vector<std::string> copies(argv);
    for (std::string& a : copies)
        args.push_back(a.data());
    args.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ < 0) throw std::system_error(errno, std::generic_category(), "fork");
    if (pid_ == 0) {
        const int in = ::open(input_path_.c_str(), O_RDONLY);
        const int err = ::open(errors_path_.c_str(), O_WRONLY | O_APPEND);
        if (in < 0 || err < 0) ::_exit(125);
        ::dup2(in, 0);
        ::dup2(pipe_ends[1], 1);
        ::dup2(err, 2);
        ::execv(args[0], args.data());
        ::_exit(127);
    }
    ::close(pipe_ends[1]);
    out_ = pipe_ends[0];
}

child::~child() {
    if (!status_) {
        ::kill(pid_, SIGKILL);
        int ignored = 0;
        ::waitpid(pid_, &ignored, 0);
    }
    ::close(out_);
    ::unlink(input_path_.c_str());
    ::unlink(errors_path_.c_str());
}

bool child::fill(std::chrono::steady_clock::time_point deadline) {
    while (true) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return false;
        pollfd p{out_, POLLIN, 0};
        const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) return false;
        char chunk[4096];
        const ssize_t n = ::read(out_, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        buffered_.append(chunk, static_cast<std::size_t>(n));
        return true;
    }
}

std::optional<std::string> child::read_line(std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    std::size_t newline = 0;
    while ((newline = buffered_.find('\n')) == std::string::npos)
        if (!fill(deadline)) return std::nullopt;
    std::string line = buffered_.substr(0, newline);
    buffered_.erase(0, newline + 1);
    return line;
}

std::string child::read_all(std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (fill(deadline)) {
    }
    if (std::chrono::steady_clock::now() >= deadline)
        throw std::runtime_error("a child process did not end its output in time: " + buffered_);
    return std::exchange(buffered_, {});
}

int child::wait(std::chrono::milliseconds limit) {
    if (status_) return *status_;
    // A pidfd becomes readable when the process exits.
    const int exited = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
    if (exited < 0) throw std::system_error(errno, std::generic_category(), "pidfd_open");
    pollfd p{exited, POLLIN, 0};
    int ready = 0;
    do {
        ready = ::poll(&p, 1, static_cast<int>(limit.count()));
    } while (ready < 0 && errno == EINTR);
    ::close(exited);
    if (ready <= 0) ::kill(pid_, SIGKILL);
    int wait_status = 0;
    ::waitpid(pid_, &wait_status, 0);
    status_ = exit_status(wait_status);
    return *status_;
}

std::string child::errors() const {
    return slurp(errors_path_);
}

bool child::wait_for_errors(const std::string& text, std::chrono::milliseconds limit) const {
    // Watch the file before the first look, so that no write falls between.
    const int watch = ::inotify_init1(IN_CLOEXEC);
    if (watch < 0) throw std::system_error(errno, std::generic_category(), "inotify_init1");
    if (::inotify_add_watch(watch, errors_path_.c_str(), IN_MODIFY) < 0) {
        const int error = errno;
        ::close(watch);
        throw std::system_error(error, std::generic_category(), "inotify_add_watch");
    }
    const auto deadline = std::chrono::steady_clock::now() + limit;
    bool found = errors().find(text) != std::string::npos;
    while (!found) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) break;
        pollfd p{watch, POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(left.count())) > 0) {
            alignas(inotify_event) char events[4096];  // taken, so that poll waits again
            [[maybe_unused]] const ssize_t n = ::read(watch, events, sizeof events);
        }
        found = errors().find(text) != std::string::npos;
    }
    ::close(watch);
    return found;
}

run_result run(const std::vector<std::string>& argv, const std::string& input) {
    child c(argv, input);
    run_result result;
    result.out = c.read_all();
    result.status = c.wait();
    result.err = c.errors();
    return result;
}

run_result redis_cli(std::uint16_t port, const std::vector<std::string>& args,
                     const std::string& input) {
    std::vector<std::string> argv = {REDIS_CLI, "--no-raw", "-p", std::to_string(port)};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv, input);
}

const std::vector<setup>& setups() {
    static const std::vector<setup> all = {
        {"epoll, current_thread", MINI_REDIS_TEST_CONFIGS "/epoll.toml"},
        {"io_uring, current_thread", MINI_REDIS_TEST_CONFIGS "/uring.toml"},
        {"epoll, multi_thread with 2 workers", MINI_REDIS_TEST_CONFIGS "/epoll_mt2.toml"},
        {"io_uring, multi_thread with 2 workers", MINI_REDIS_TEST_CONFIGS "/uring_mt2.toml"},
    };
    return all;
}

namespace {
std::vector<std::string> server_argv(const setup& runtime,
                                     const std::vector<std::string>& options) {
    std::vector<std::string> argv = {MINI_REDIS_PATH, "--port", "0", "--config",
                                     runtime.config_file};
    argv.insert(argv.end(), options.begin(), options.end());
    return argv;
}
}  // namespace

server::server(const setup& runtime, const std::vector<std::string>& options)
    : process_(server_argv(runtime, options)) {
    const std::optional<std::string> ready = process_.read_line(30s);
    const std::string marker = "ready to accept connections on 127.0.0.1:";
    const std::size_t at = ready ? ready->find(marker) : std::string::npos;
    if (at == std::string::npos)
        throw std::runtime_error("rtkit-mini-redis did not start (" + runtime.name +
                                 "): " + ready.value_or("no output") + "\n" + process_.errors());
    port_ = static_cast<std::uint16_t>(std::stoi(ready->substr(at + marker.size())));
}

server::~server() {
    if (signalled_) return;
    const std::string written = process_.errors();
    CHECK_MESSAGE(written.empty(), "rtkit-mini-redis wrote on stderr:\n" << written);
}

void server::signal(int signal) {
    signalled_ = true;
    ::kill(process_.pid(), signal);
}

int server::stop(int signal, std::chrono::milliseconds limit) {
    this->signal(signal);
    return process_.wait(limit);
}

}  // namespace mini_redis_test
