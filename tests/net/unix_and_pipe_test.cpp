// Unix-domain streams and pipes: round trips, read_exact over partial writes,
// end of stream, broken pipes.
#include <unistd.h>

#include <chrono>
#include <string>
#include <system_error>

#include "net_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

/// Writes `parts` one at a time, pausing between them, so the reader sees
/// each arrive separately.
task<void> trickle(net::byte_stream& out, std::vector<std::string> parts) {
    for (const std::string& part : parts) {
        co_await out.write_all(part);
        co_await sleep(20ms);
    }
}

task<void> trickle_pipe(net::pipe_writer& out, std::vector<std::string> parts) {
    for (const std::string& part : parts) {
        co_await out.write_all(part);
        co_await sleep(20ms);
    }
}

}  // namespace

TEST_CASE("unix: read_exact collects a message written in three parts") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        runtime rt(net_test::config_for(setup));
        rt.block_on([]() -> task<void> {
            auto [a, b] = net::unix_stream::pair();
            auto writer = spawn(trickle(b, {"abc", "defg", "hi"}));
            std::vector<char> got(9);
            co_await a.read_exact(got.data(), got.size());
            CHECK(net_test::text_of(got, 9) == "abcdefghi");
            const outcome<void> wrote = co_await std::move(writer);
            CHECK(wrote.is_ok());
            // The peer ends early: read_exact says how much came.
            co_await b.write_all("xy");
            b.close();
            std::string message;
            int code = 0;
            try {
                co_await a.read_exact(got.data(), 5);
            } catch (const std::system_error& e) {
                message = e.what();
                code = e.code().value();
            }
            CHECK(code == ENODATA);
            CHECK(message.find("after 2 of 5 bytes") != std::string::npos);
        }());
    }
}

TEST_CASE("unix: a listener on a path accepts a connection and echoes") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        const std::string path = "/tmp/rtkit-net-test-" + std::to_string(::getpid()) + "-" +
                                 setup.reactor + (setup.multi_thread ? "-mt" : "") + ".sock";
        ::unlink(path.c_str());
        runtime rt(net_test::config_for(setup));
        rt.block_on([&path]() -> task<void> {
            auto listener = net::unix_listener::bind(path);
            auto served = spawn([](net::unix_listener& l) -> task<void> {
                net::unix_stream s = co_await l.accept();
                char buf[16];
                const std::size_t n = co_await s.read(buf, sizeof buf);
                co_await s.write_all(buf, n);
            }(listener));
            net::unix_stream client = co_await net::unix_stream::connect(path);
            co_await client.write_all("ping");
            std::vector<char> back(4);
            co_await client.read_exact(back.data(), 4);
            CHECK(net_test::text_of(back, 4) == "ping");
            const outcome<void> o = co_await std::move(served);
            CHECK(o.is_ok());
            std::string message;
            try {
                co_await net::unix_stream::connect(path + ".missing");
            } catch (const std::system_error& e) {
                message = e.what();
            }
            CHECK(message.find(path + ".missing") != std::string::npos);
        }());
        ::unlink(path.c_str());
    }
}

TEST_CASE("pipe: bytes written in parts arrive in order - closing the writer ends the stream") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        runtime rt(net_test::config_for(setup));
        rt.block_on([]() -> task<void> {
            net::pipe_ends p = net::open_pipe();
            auto writer = spawn(trickle_pipe(p.writer, {"one ", "two ", "three"}));
            std::vector<char> got(13);
            co_await p.reader.read_exact(got.data(), got.size());
            CHECK(net_test::text_of(got, 13) == "one two three");
            const outcome<void> wrote = co_await std::move(writer);
            CHECK(wrote.is_ok());
            p.writer.close();
            char byte = 0;
            const std::size_t at_end = co_await p.reader.read(&byte, 1);
            CHECK(at_end == 0);
        }());
    }
}

TEST_CASE("pipe: a full pipe makes write_all wait for the reader - no reader is EPIPE") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        runtime rt(net_test::config_for(setup));
        rt.block_on([]() -> task<void> {
            net::pipe_ends p = net::open_pipe();
            std::vector<char> big(1 << 20, 'z'), got(1 << 20);  // 16x the pipe buffer
            auto writer = spawn([](net::pipe_writer& w, std::vector<char>& data) -> task<void> {
                co_await w.write_all(data.data(), data.size());
            }(p.writer, big));
            co_await p.reader.read_exact(got.data(), got.size());
            CHECK(got == big);
            const outcome<void> wrote = co_await std::move(writer);
            CHECK(wrote.is_ok());
            p.reader.close();
            // On a multi-thread io_uring runtime the kernel lets go of the
            // read end a moment after close(), when the thread that armed its
            // poll handles the cancellation: until then writes fill the pipe,
            // then wait, and the release ends that wait with EPIPE.
            int code = 0;
            for (int attempt = 0; code == 0 && attempt < 100'000; ++attempt) {
                try {
                    co_await p.writer.write_all("nobody reads this");
                } catch (const std::system_error& e) {
                    code = e.code().value();
                }
            }
            CHECK(code == EPIPE);
        }());
    }
}
