// An I/O operation's deadline, written the obvious way, in one expression:
// co_await s.read(b, n).with_deadline(t).
#include <chrono>
#include <system_error>

#include "net_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

TEST_CASE("deadline: co_await read(...).with_deadline(t) times out - or reads what came in time") {
    for (const net_test::setup& setup : net_test::setups) {
        INFO(setup.name());
        runtime rt(net_test::config_for(setup));
        rt.block_on([]() -> task<void> {
            net::pipe_ends p = net::open_pipe();
            char buffer[8];
            const instant start = now();
            int code = 0;
            try {
                co_await p.reader.read(buffer, sizeof buffer).with_deadline(start + 20ms);
            } catch (const std::system_error& e) {
                code = e.code().value();
            }
            CHECK(code == ETIMEDOUT);
            CHECK(now() - start >= 20ms);

            co_await p.writer.write_all("in time");
            const std::size_t n =
                co_await p.reader.read(buffer, sizeof buffer).with_deadline(now() + 10s);
            CHECK(std::string(buffer, n) == "in time");
        }());
    }
}
