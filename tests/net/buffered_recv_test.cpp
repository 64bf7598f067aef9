// The uring reactor's buffered recv (one multishot recv per socket into
// provided buffers): bytes that arrive with no reader wait in order, a
// cancelled read consumes nothing, a closed socket's unread bytes never reach
// the next owner of its number, and a ring that runs out of buffers falls
// back without losing or reordering anything. Each case also runs on epoll
// and on a uring without buffered recv (same promises, no buffering), and on
// a uring with a two-buffer ring.
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "net_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

struct recv_setup {
    std::string name;
    runtime_config config;
};

std::vector<recv_setup> recv_setups() {
    runtime_config tiny = net_test::config_for("uring");
    // Two 64-byte buffers: every case below exhausts them.
    tiny.reactor.options["uring"] = {{"recv_buffers", std::int64_t{2}},
                                     {"recv_buffer_size", std::int64_t{64}}};
    runtime_config plain = net_test::config_for("uring");
    plain.reactor.options["uring"] = {{"recv_buffers", std::int64_t{0}}};  // every recv whole
    return {{"epoll", net_test::config_for("epoll")},
            {"uring", net_test::config_for("uring")},
            {"uring with 2 buffers of 64 bytes", tiny},
            {"uring without buffered recv", plain}};
}

std::vector<char> pattern(std::size_t size, unsigned seed) {
    std::vector<char> bytes(size);
    for (std::size_t i = 0; i < size; ++i)
        bytes[i] = static_cast<char>((i * 131 + seed * 7 + i / 251) & 0xff);
    return bytes;
}

task<void> write_owned(net::unix_stream& s, std::vector<char> bytes) {
    std::vector<char> mine = std::move(bytes);
    co_await s.write_all(mine.data(), mine.size());
}

/// A connected pair whose first end has read once: on uring its multishot recv
/// is live from then on, so bytes that come later queue in the reactor.
task<std::pair<net::unix_stream, net::unix_stream>> pair_receiving() {
    auto ends = net::unix_stream::pair();
    co_await ends.second.write_all("x");
    char first = 0;
    co_await ends.first.read_exact(&first, 1);
    co_return ends;
}

}  // namespace

TEST_CASE(
    "buffered recv: bytes that arrive before any read wait in order - on four sockets at once") {
    for (const recv_setup& s : recv_setups()) {
        INFO("reactor: " << s.name);
        runtime rt(s.config);
        rt.block_on([]() -> task<void> {
            constexpr std::size_t size = 48 * 1024;  // more than 16 chunks, more than the ring
            std::vector<std::pair<net::unix_stream, net::unix_stream>> pairs;
            for (int i = 0; i < 4; ++i)  // receiving before the bytes come: they queue
                pairs.push_back(co_await pair_receiving());
            std::vector<join_handle<void>> writers;
            for (unsigned i = 0; i < pairs.size(); ++i)
                writers.push_back(spawn(write_owned(pairs[i].second, pattern(size, i))));
            co_await sleep(30ms);  // nobody reads meanwhile
            for (unsigned i = 0; i < pairs.size(); ++i) {
                std::vector<char> got(size);
                co_await pairs[i].first.read_exact(got.data(), got.size());
                CHECK(got == pattern(size, i));
            }
            for (auto& w : writers)
                CHECK((co_await std::move(w)).is_ok());
        }());
    }
}

TEST_CASE("buffered recv: a read of bytes already received completes without suspending") {
    for (const recv_setup& s : recv_setups()) {
        if (s.name == "uring without buffered recv") continue;  // every recv waits for the kernel
        INFO("reactor: " << s.name);
        runtime rt(s.config);
        rt.block_on([]() -> task<void> {
            auto [a, b] = co_await pair_receiving();
            co_await b.write_all("queued");
            co_await sleep(10ms);  // received (uring) or seen readable (epoll), with no reader
            bool other_ran = false;
            auto other = spawn([](bool& ran) -> task<void> {
                ran = true;
                co_return;
            }(other_ran));
            char got[16] = {};
            const std::size_t n = co_await a.read(got, sizeof got);
            CHECK(std::string(got, n) == "queued");
            CHECK_FALSE(other_ran);  // the root never suspended, so the worker ran nothing else
            CHECK((co_await std::move(other)).is_ok());
            CHECK(other_ran);
        }());
    }
}

TEST_CASE("buffered recv: a cancelled read leaves what comes later to the next read") {
    for (const recv_setup& s : recv_setups()) {
        INFO("reactor: " << s.name);
        runtime rt(s.config);
        rt.block_on([]() -> task<void> {
            auto [a, b] = net::unix_stream::pair();
            std::vector<char> first(16, '\0'), second(16, '\0');
            for (int round = 0; round < 3; ++round) {  // the multishot recv outlives each cancel
                auto reader = spawn(net_test::read_into(a, first));
                co_await sleep(10ms);
                reader.cancel();
                CHECK((co_await std::move(reader)).is_cancelled());
                co_await b.write_all("later");
                co_await sleep(10ms);  // received, with no reader parked
                const std::size_t n = co_await net_test::read_into(a, second);
                CHECK(net_test::text_of(second, n) == "later");
                CHECK(first[0] == '\0');
            }
        }());
    }
}

TEST_CASE(
    "buffered recv: unread bytes of a closed socket never reach the next owner of its number") {
    for (const recv_setup& s : recv_setups()) {
        INFO("reactor: " << s.name);
        runtime rt(s.config);
        rt.block_on([]() -> task<void> {
            auto [a, b] = net::unix_stream::pair();
            const int number = a.native_handle();
            co_await b.write_all("one");
            std::vector<char> got(16, '\0');
            CHECK(net_test::text_of(got, co_await net_test::read_into(a, got)) == "one");
            co_await b.write_all("stale bytes");
            co_await sleep(10ms);  // queued in the reactor (uring), unread
            a.close();
            auto [c, d] = net::unix_stream::pair();
            REQUIRE(c.native_handle() == number);
            std::vector<char> fresh(16, '\0');
            auto reader = spawn(net_test::read_into(c, fresh));
            co_await sleep(20ms);
            CHECK_FALSE(reader.is_finished());  // nothing of the old socket arrived
            co_await d.write_all("new");
            outcome<std::size_t> n = co_await std::move(reader);
            REQUIRE(n.is_ok());
            CHECK(net_test::text_of(fresh, n.value()) == "new");
            // The old peer sees the close at once (the multishot recv let go of
            // the socket): end of stream, or a reset where bytes were unread.
            char byte = 0;
            bool close_seen = false;
            try {
                close_seen = co_await b.read(&byte, 1) == 0;
            } catch (const std::system_error& e) {
                close_seen = e.code().value() == ECONNRESET;
            }
            CHECK(close_seen);
        }());
    }
}

TEST_CASE("buffered recv: end of stream comes after the queued bytes - and again on every read") {
    for (const recv_setup& s : recv_setups()) {
        INFO("reactor: " << s.name);
        runtime rt(s.config);
        rt.block_on([]() -> task<void> {
            auto [a, b] = co_await pair_receiving();
            co_await b.write_all("bye");
            b.close();
            co_await sleep(10ms);
            std::vector<char> got(16, '\0');
            CHECK(net_test::text_of(got, co_await net_test::read_into(a, got)) == "bye");
            CHECK(co_await net_test::read_into(a, got) == 0);
            CHECK(co_await net_test::read_into(a, got) == 0);
        }());
    }
}
