// The uring reactor with a completion queue far too small for the load: the
// kernel then ends multishot requests (their event finds the queue full) and
// keeps other completions in its overflow list. Connections served and used
// concurrently must still all finish, on both flavors (the multi-thread one
// shares the ring among its workers). The reactor's own rule for this is the
// conformance case reactor.readiness_survives_a_flood.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "net_support.hpp"

using namespace rtkit;
using namespace std::chrono_literals;

namespace {

/// Echoes one connection until the client closes it.
task<void> echo(net::tcp_stream conn) {
    char buffer[4096];
    while (const std::size_t n = co_await conn.read(buffer, sizeof buffer))
        co_await conn.write_all(buffer, n);
}

task<void> serve(net::tcp_listener& listener, std::vector<join_handle<void>>& served) {
    while (true)
        served.push_back(spawn(echo(co_await listener.accept())));
}

/// One client: connects, sends 1000 bytes, reads them back.
task<bool> exchange(std::uint16_t port) {
    net::tcp_stream conn = co_await net::tcp_stream::connect(net::socket_address::loopback(port));
    const std::string request(1000, 'x');
    std::string reply(request.size(), '\0');
    co_await conn.write_all(request);
    co_await conn.read_exact(reply.data(), reply.size());
    co_return reply == request;
}

task<int> rounds_of_exchanges(int rounds, int clients) {
    auto listener = net::tcp_listener::bind(net::socket_address::loopback(0));
    const std::uint16_t port = listener.local_address().port();
    std::vector<join_handle<void>> served;
    auto server = spawn(serve(listener, served));
    int echoed = 0;
    for (int round = 0; round < rounds; ++round) {
        std::vector<join_handle<bool>> exchanges;
        for (int c = 0; c < clients; ++c)
            exchanges.push_back(spawn(exchange(port)));
        for (auto& e : exchanges) {
            outcome<bool> done = co_await std::move(e);
            if (done.is_ok() && done.value()) ++echoed;
        }
    }
    server.cancel();
    co_await std::move(server);
    for (auto& s : served)
        co_await std::move(s);
    co_return echoed;
}

}  // namespace

TEST_CASE("uring: concurrent connections all finish when the completion queue overflows") {
    for (const int workers : {0, 2, 4}) {
        INFO((workers == 0 ? std::string("current_thread")
                           : "multi_thread, " + std::to_string(workers) + " workers"));
        runtime_config config = net_test::config_for("uring");
        if (workers > 0) {
            config.flavor = "multi_thread";
            config.workers = workers;
        }
        // 8 submission entries, so 16 completions fit in the queue.
        config.reactor.options["uring"] = {{"entries", std::int64_t{8}}};
        runtime rt(config);
        constexpr int rounds = 300, clients = 3;
        // A stall fails the case (after the bound) instead of hanging it.
        const std::optional<int> echoed = rt.block_on([]() -> task<std::optional<int>> {
            co_return co_await rtkit::timeout(30s, rounds_of_exchanges(rounds, clients));
        }());
        REQUIRE(echoed.has_value());
        CHECK(*echoed == rounds * clients);
    }
}
