#include "server.hpp"

#include <chrono>
#include <cstdio>
#include <exception>
#include <system_error>

#include "connection.hpp"
#include "expiry_task.hpp"
#include "rtkit/rtkit.hpp"
#include "server_state.hpp"

namespace mini_redis {
namespace {

rtkit::net::socket_address listen_address(const options& settings) {
    if (settings.bind.find(':') != std::string::npos)
        return rtkit::net::socket_address::ipv6(settings.bind, settings.port);
    return rtkit::net::socket_address::ipv4(settings.bind, settings.port);
}

/// Tells a client past the connection limit why, as redis does, and closes.
rtkit::task<void> refuse(rtkit::net::tcp_stream client) {
    static constexpr std::string_view reason = "-ERR max number of clients reached\r\n";
    try {
        // A new connection's send buffer is empty: this write does not wait.
        co_await client.write(reason.data(), reason.size());
    } catch (const std::system_error&) {
        // It left already.
    }
}

rtkit::task<void> accept_clients(server_state& server, rtkit::net::tcp_listener& listener) {
    while (true) {
        rtkit::net::tcp_stream client;
        try {
            client = co_await listener.accept();
        } catch (const std::system_error& e) {
            // Out of descriptors, say: the pending connection stays queued, so
            // wait a little rather than spin on it.
            std::fprintf(stderr, "rtkit-mini-redis: accepting a client: %s\n", e.what());
        }
        if (!client.is_open()) {
            co_await rtkit::sleep(std::chrono::milliseconds(100));
            continue;
        }
        if (server.clients.admit(client.native_handle()))
            auto detached = rtkit::spawn(serve_connection(server, std::move(client)));
        else
            co_await refuse(std::move(client));
    }
}

rtkit::task<int> run(server_state& server, const std::string& runtime_name) {
    rtkit::net::tcp_listener listener;
    try {
        listener = rtkit::net::tcp_listener::bind(listen_address(server.settings));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "rtkit-mini-redis: cannot listen: %s\n", e.what());
        co_return 1;
    }
    std::printf("rtkit-mini-redis: ready to accept connections on %s (%s)\n",
                listener.local_address().to_string().c_str(), runtime_name.c_str());
    std::fflush(stdout);
    co_await rtkit::cx::current().region([&](rtkit::cx scope) -> rtkit::task<void> {
        rtkit::join_handle<void> expiry = scope.spawn(expire_keys(server.db));
        rtkit::join_handle<void> acceptor = scope.spawn(accept_clients(server, listener));
        co_await std::move(acceptor);
        expiry.cancel();
    });
    co_return 0;
}

}  // namespace

int serve(rtkit::runtime& rt, const options& settings) {
    server_state server(settings);
    const rtkit::runtime_description& d = rt.description();
    // "epoll, current_thread": the plugin's name without its file.
    std::string runtime_name = d.reactor.substr(0, d.reactor.find(' ')) + ", " + d.flavor;
    if (d.workers > 1) runtime_name += " with " + std::to_string(d.workers) + " workers";
    return rt.block_on(run(server, runtime_name));
}

}  // namespace mini_redis
