// Bad and hostile clients over raw sockets, each beside a well-behaved client
// whose requests must go on being answered: malformed requests, bounds,
// a client that never reads, too many clients, a client that stalls.
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "processes.hpp"
#include "raw_client.hpp"

using namespace mini_redis_test;

namespace {

/// A client that keeps working: SET then GET a key of its own, each time.
class good_client {
  public:
    explicit good_client(std::uint16_t port) : c_(port) {}
    /// True when a SET and a GET got their replies.
    bool works() {
        const std::string value = "v" + std::to_string(++round_);
        c_.send("SET good " + value + "\r\nGET good\r\n");
        const std::string expected =
            "+OK\r\n$" + std::to_string(value.size()) + "\r\n" + value + "\r\n";
        return c_.read(expected.size()) == expected;
    }

  private:
    raw_client c_;
    int round_ = 0;
};

/// Sends `request` on a new connection; true when the server answered `reply`
/// and then closed the connection.
bool answered_then_closed(std::uint16_t port, const std::string& request,
                          const std::string& reply) {
    raw_client bad(port);
    bad.send(request);
    bool closed = false;
    const std::string got = bad.read_until_closed(closed);
    INFO("request " << request << " got " << got);
    CHECK(got == reply);
    return got == reply && closed;
}

}  // namespace

TEST_CASE(
    "hostile: a malformed request gets a protocol error and its connection closes - others go on") {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"*abc\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},
        {"*2\r\n+foo\r\n", "-ERR Protocol error: expected '$', got '+'\r\n"},
        {"*1\r\n$-5\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
        {"*1\r\n$4\r\nPINGxx\r\n",
         "-ERR Protocol error: a bulk string is not followed by CRLF\r\n"},
        {"GET \"a\r\n", "-ERR Protocol error: unbalanced quotes in request\r\n"},
        // The replies of the requests before the malformed one come first.
        {"PING\r\n*1\r\n$4\r\nPING\r\n*x\r\nPING\r\n",
         "+PONG\r\n+PONG\r\n-ERR Protocol error: invalid multibulk length\r\n"},
        // QUIT ends the connection the same way, after its +OK.
        {"PING\r\nQUIT\r\nPING\r\n", "+PONG\r\n+OK\r\n"},
    };
    for (const setup& runtime : setups()) {
        INFO(runtime.name);
        server s(runtime);
        good_client good(s.port());
        REQUIRE(good.works());
        for (const auto& [request, reply] : cases) {
            CHECK(answered_then_closed(s.port(), request, reply));
            CHECK(good.works());
        }
    }
}

TEST_CASE("hostile: bulk strings and requests past the limits are refused from their headers") {
    for (const setup& runtime : setups()) {
        INFO(runtime.name);
        server s(runtime, {"--proto-max-bulk-len", "1kb", "--client-query-buffer-limit", "8kb"});
        good_client good(s.port());
        // The header alone: the server cannot have waited for the 100 MB.
        CHECK(answered_then_closed(s.port(), "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100000000\r\n",
                                   "-ERR Protocol error: invalid bulk length\r\n"));
        CHECK(good.works());
        CHECK(answered_then_closed(
            s.port(),
            "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1024\r\n" + std::string(1024, 'x') + "\r\nQUIT\r\n",
            "+OK\r\n+OK\r\n"));
        std::string mset = "*21\r\n$4\r\nMSET\r\n";
        for (int i = 0; i < 20; ++i)
            mset += "$1000\r\n" + std::string(1000, 'x') + "\r\n";
        CHECK(answered_then_closed(
            s.port(), mset,
            "-ERR Protocol error: request longer than the query buffer limit (8192 bytes)\r\n"));
        CHECK(answered_then_closed(s.port(), std::string(70000, 'x'),
                                   "-ERR Protocol error: too big inline request\r\n"));
        CHECK(good.works());
    }
}

TEST_CASE(
    "hostile: a client that sends but never reads is dropped at the output limit - others go on") {
    for (const setup& runtime : setups()) {
        INFO(runtime.name);
        server s(runtime, {"--output-buffer-limit", "64kb"});
        good_client good(s.port());
        REQUIRE(redis_cli(s.port(), {"SET", "big", std::string(100000, 'b')}).out == "OK\n");
        // 200 replies of 100 kB: far more than the kernel buffers between the
        // server and this client hold, plus the limit.
        raw_client hog(s.port(), 4096);
        std::string gets;
        for (int i = 0; i < 200; ++i)
            gets += "GET big\r\n";
        hog.send(gets);  // may fail part way: the server drops the client
        CHECK(good.works());
        bool closed = false;
        const std::string got = hog.read_until_closed(closed, 30s);
        CHECK(closed);
        CHECK(got.size() < 200 * 100000);
        CHECK(good.works());
    }
}

TEST_CASE("hostile: past maxclients a connection gets an error and is closed - the others go on") {
    for (const setup& runtime : setups()) {
        INFO(runtime.name);
        server s(runtime, {"--maxclients", "2"});
        auto first = std::make_unique<good_client>(s.port());
        good_client second(s.port());
        REQUIRE(first->works());
        REQUIRE(second.works());
        CHECK(answered_then_closed(s.port(), "PING\r\n", "-ERR max number of clients reached\r\n"));
        CHECK(first->works());
        CHECK(second.works());
        // Once one leaves, a new client is let in (as soon as its connection ends).
        first.reset();
        bool admitted = false;
        for (int attempt = 0; attempt < 1000 && !admitted; ++attempt) {
            raw_client next(s.port());
            next.send("PING\r\n");
            admitted = next.read(7) == "+PONG\r\n";
        }
        CHECK(admitted);
    }
}

TEST_CASE("hostile: a client that stops mid-request holds up nobody") {
    for (const setup& runtime : setups()) {
        INFO(runtime.name);
        server s(runtime);
        good_client good(s.port());
        raw_client slow(s.port());
        slow.send("*3\r\n$3\r\nSET\r\n$4\r\nslow\r\n$10\r\n12345");
        CHECK(good.works());
        CHECK(good.works());
        slow.send("67890\r\n");
        CHECK(slow.read(5) == "+OK\r\n");
        CHECK(redis_cli(s.port(), {"GET", "slow"}).out == "\"1234567890\"\n");
    }
}
