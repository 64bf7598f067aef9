// The uring reactor's registered files: operations on a registered socket use
// the ring's registered-file slot of its registration, a closed socket lets
// go of its slot at once (its peer sees the close), and a slot reused by a new
// socket carries the new socket's bytes only. Each case runs with the default
// table, with a one-slot table (the first registration only), with none, and
// with SQPOLL (a kernel thread submits; registered files are off there).
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "net_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

struct files_setup {
    std::string name;
    runtime_config config;
    bool expects_registered_files;
    bool expects_sq_thread = false;
};

std::vector<files_setup> files_setups() {
    runtime_config one = net_test::config_for("uring");
    one.reactor.options["uring"] = {{"fixed_files", std::int64_t{1}}};
    runtime_config none = net_test::config_for("uring");
    none.reactor.options["uring"] = {{"fixed_files", std::int64_t{0}}};
    runtime_config sqpoll = net_test::config_for("uring");
    sqpoll.reactor.options["uring"] = {{"sqpoll", true}};
    return {{"uring", net_test::config_for("uring"), true},
            {"uring with one registered-file slot", one, true},
            {"uring without registered files", none, false},
            {"uring with sqpoll", sqpoll, false, true}};
}

/// What this process's io_uring instances show in their /proc fdinfo.
struct ring_info {
    int registered_sockets = 0;  ///< registered files that are sockets ("N: socket:[inode]")
    bool sq_thread = false;      ///< a ring has an SQPOLL thread ("SqThread: PID")
};

ring_info rings() {
    ring_info info;
    for (const auto& fd : std::filesystem::directory_iterator("/proc/self/fd")) {
        std::error_code ec;
        const auto target = std::filesystem::read_symlink(fd.path(), ec);
        if (ec || target.string().find("io_uring") == std::string::npos) continue;
        std::ifstream fdinfo("/proc/self/fdinfo/" + fd.path().filename().string());
        bool in_files = false;
        for (std::string line; std::getline(fdinfo, line);) {
            if (line.rfind("SqThread:", 0) == 0 && line.find("-1") == std::string::npos) {
                info.sq_thread = true;
            } else if (line.rfind("UserFiles:", 0) == 0) {
                in_files = true;
            } else if (in_files && line.find(": socket:[") != std::string::npos) {
                ++info.registered_sockets;
            } else if (in_files && line.rfind("    ", 0) != 0) {
                in_files = false;
            }
        }
    }
    return info;
}

task<void> exchange(net::unix_stream& a, net::unix_stream& b, const std::string& word) {
    std::vector<char> got(64, '\0');
    co_await a.write_all(word);
    co_await b.read_exact(got.data(), word.size());
    CHECK(net_test::text_of(got, word.size()) == word);
    co_await b.write_all(word + "!");
    co_await a.read_exact(got.data(), word.size() + 1);
    CHECK(net_test::text_of(got, word.size() + 1) == word + "!");
}

}  // namespace

TEST_CASE(
    "uring registered files: sockets use them - let go on close - and a reused slot "
    "carries only its new socket") {
    for (const files_setup& s : files_setups()) {
        INFO("reactor: " << s.name);
        runtime rt(s.config);
        rt.block_on([](const files_setup& expected) -> task<void> {
            auto [a, b] = net::unix_stream::pair();
            co_await exchange(a, b, "first");
            const ring_info while_open = rings();
            CHECK(while_open.sq_thread == expected.expects_sq_thread);
            if (expected.expects_registered_files)
                CHECK(while_open.registered_sockets >= 1);
            else
                CHECK(while_open.registered_sockets == 0);

            // Closing one end ends its slot at once: the peer reads end of stream.
            a.close();
            const std::optional<std::size_t> end =
                co_await timeout(2s, [](net::unix_stream& peer) -> task<std::size_t> {
                    char byte = 0;
                    co_return co_await peer.read(&byte, 1);
                }(b));
            REQUIRE(end.has_value());  // else the registered file kept the socket open
            CHECK(*end == 0);
            b.close();
            CHECK(rings().registered_sockets == 0);

            // New sockets take the freed registrations (and slots): each pair
            // sees its own bytes only, in both directions.
            for (int round = 0; round < 3; ++round) {
                auto [c, d] = net::unix_stream::pair();
                auto [e, f] = net::unix_stream::pair();
                co_await exchange(c, d, "round " + std::to_string(round) + " cd");
                co_await exchange(e, f, "round " + std::to_string(round) + " ef");
                co_await exchange(d, c, "back " + std::to_string(round));
            }
            CHECK(rings().registered_sockets == 0);
        }(s));
    }
}
