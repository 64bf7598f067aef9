#pragma once
// What the net tests share: a runtime per built-in reactor, and byte helpers.
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "../support/thread_count.hpp"
#include "rtkit/net.hpp"
#include "rtkit/rtkit.hpp"
#include "rtkit/sync/oneshot.hpp"

namespace net_test {

/// Every net test runs once on each of these (strict: no silent fallback).
/// On Linux, "kqueue" is reactor_kqueue built on the test-only kqueue
/// emulation over epoll (tests/kqueue_emulation), loaded from its directory.
inline const std::vector<std::string> reactors = {"epoll", "uring"
#ifdef RTKIT_TEST_KQUEUE_EMULATION_DIR
                                                  ,
                                                  "kqueue"
#endif
};

inline rtkit::runtime_config config_for(const std::string& reactor) {
    rtkit::runtime_config c;
#ifdef RTKIT_TEST_KQUEUE_EMULATION_DIR
    if (reactor == "kqueue") c.plugin_search_path = {RTKIT_TEST_KQUEUE_EMULATION_DIR};
#endif
    c.reactor.preference = {reactor};
    c.reactor.strict = true;
    return c;
}

/// A runtime to run a net test on: a reactor, on one flavor.
struct setup {
    std::string reactor;
    bool multi_thread = false;
    /// uring only: the ring belongs to the thread that first drives it.
    bool single_issuer = false;
    std::string name() const {
        return reactor + (single_issuer ? " with single_issuer" : "") +
               (multi_thread ? " (multi_thread, 2 workers)" : " (current_thread)");
    }
};

/// Every net test that is not about one flavor runs on each of these: every
/// reactor, on the current-thread runtime and on a multi-thread one, and
/// uring bound to one thread (current-thread only).
inline const std::vector<setup> setups = [] {
    std::vector<setup> all;
    for (const std::string& r : reactors) {
        all.push_back({r, false});
        all.push_back({r, true});
    }
    all.push_back({"uring", false, true});
    return all;
}();

inline rtkit::runtime_config config_for(const setup& s) {
    rtkit::runtime_config c = config_for(s.reactor);
    if (s.multi_thread) {
        c.flavor = "multi_thread";
        c.workers = 2;
    }
    if (s.single_issuer) c.reactor.options["uring"] = {{"single_issuer", true}};
    return c;
}

/// This process's io_uring descriptors.
inline std::vector<int> io_uring_descriptors() {
    std::vector<int> fds;
    for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
        std::error_code ec;
        const auto target = std::filesystem::read_symlink(entry.path(), ec);
        if (!ec && target.string().find("io_uring") != std::string::npos)
            fds.push_back(std::stoi(entry.path().filename().string()));
    }
    return fds;
}

/// Reads once into the whole of `buffer`.
inline rtkit::task<std::size_t> read_into(rtkit::net::byte_stream& s, std::vector<char>& buffer) {
    co_return co_await s.read(buffer.data(), buffer.size());
}

inline std::string text_of(const std::vector<char>& bytes, std::size_t n) {
    return std::string(bytes.data(), n);
}

/// A plain blocking client socket connected to 127.0.0.1:`port`, or -1.
inline int connect_loopback(std::uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(port);
    if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) return fd;
    if (fd >= 0) ::close(fd);
    return -1;
}

/// The scheduler state of thread `tid` of this process ('R', 'S', ...).
inline char thread_state(pid_t tid) {
    std::ifstream stat("/proc/self/task/" + std::to_string(tid) + "/stat");
    std::string all((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto close = all.rfind(')');  // the name may hold spaces and parentheses
    return close != std::string::npos && close + 2 < all.size() ? all[close + 2] : '?';
}

/// Waits until a thread has published its id in `tid` and then sleeps (for
/// a runtime's thread: in the reactor, once it has nothing else to do), so
/// that the caller acts while it sleeps. Gives up on the sleep after 5 s.
inline void wait_until_asleep(const std::atomic<pid_t>& tid) {
    pid_t id = 0;
    while ((id = tid.load()) == 0)
        std::this_thread::yield();
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (thread_state(id) != 'S' && std::chrono::steady_clock::now() < give_up)
        std::this_thread::yield();
}

/// Another thread that holds a current-thread runtime's worker, in a
/// block_on of its own, from construction until release(): a block_on on
/// this thread meanwhile polls its root without the worker.
class worker_holder {
  public:
    explicit worker_holder(rtkit::runtime& rt) {
        thread_ = std::thread([&rt, this, released = std::move(ends_.rx)]() mutable {
            rt.block_on([](std::atomic<bool>& holding,
                           rtkit::sync::oneshot_receiver<bool> released) -> rtkit::task<void> {
                holding.store(true);
                co_await released;
            }(holding_, std::move(released)));
        });
        while (!holding_.load())
            std::this_thread::yield();
    }
    worker_holder(const worker_holder&) = delete;
    worker_holder& operator=(const worker_holder&) = delete;
    ~worker_holder() { release(); }
    /// Lets the other thread's block_on return, and joins it.
    void release() {
        if (!thread_.joinable()) return;
        ends_.tx.send(true);
        thread_.join();
    }

  private:
    std::atomic<bool> holding_{false};
    rtkit::sync::oneshot<bool> ends_ = rtkit::sync::make_oneshot<bool>();
    std::thread thread_;
};

}  // namespace net_test
