#include "server.hpp"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <exception>
#include <string>
#include <system_error>
#include <variant>

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

const char* signal_name(int signal) {
    return signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "a signal";
}

std::string clients_text(std::size_t n) {
    return std::to_string(n) + (n == 1 ? " client" : " clients");
}

/// The shutdown timeout as the option gives it, in seconds.
long long timeout_seconds(const options& settings) {
    return std::chrono::duration_cast<std::chrono::seconds>(settings.shutdown_timeout).count();
}

rtkit::task<bool> all_left_within(client_list& clients, rtkit::duration bound) {
    co_return co_await rtkit::timeout(bound, clients.until_empty());
}

/// The stop, once the listener is closed and the clients stop reading: waits
/// for every client to leave, at most the shutdown timeout, or until a
/// second stop signal. Returns the exit status: 1 after a second signal, as
/// redis exits then, 0 otherwise.
rtkit::task<int> let_clients_finish(server_state& server, rtkit::signal_stream& stop_signals) {
    const auto bound = server.settings.shutdown_timeout;
    auto first = co_await rtkit::race(all_left_within(server.clients, bound), stop_signals.next());
    if (first.index() == 1) {
        std::fprintf(stderr, "rtkit-mini-redis: received %s again: exiting now (%s cut off)\n",
                     signal_name(std::get<1>(first).value()),
                     clients_text(server.clients.size()).c_str());
        co_return 1;
    }
    if (!std::get<0>(first).value())
        std::fprintf(stderr,
                     "rtkit-mini-redis: %s still connected after the shutdown timeout (%lld s): "
                     "closing them\n",
                     clients_text(server.clients.size()).c_str(), timeout_seconds(server.settings));
    co_return 0;
}

rtkit::task<int> run(server_state& server, const std::string& runtime_name) {
    // Listening before "ready" is printed: from then on a stop signal is the
    // server's to handle, never the default disposition's.
    rtkit::signal_stream stop_signals({SIGINT, SIGTERM});
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
    co_return co_await rtkit::cx::current().region([&](rtkit::cx scope) -> rtkit::task<int> {
        // The connections are the acceptor's tasks, so of this region too:
        // the stop cancels what is left of them (and the expiry task) at its end.
        scope.spawn(expire_keys(server.db)).detach();
        rtkit::join_handle<void> acceptor = scope.spawn(accept_clients(server, listener));
        const int signal = co_await stop_signals.next();
        acceptor.cancel();
        co_await std::move(acceptor);
        listener.close();  // a new connection is refused from here on
        const std::size_t clients = server.clients.stop_reading_all();
        std::fprintf(stderr,
                     "rtkit-mini-redis: received %s: shutting down (no new connections; %s %s "
                     "up to %lld s to finish)\n",
                     signal_name(signal), clients_text(clients).c_str(),
                     clients == 1 ? "has" : "have", timeout_seconds(server.settings));
        const int status = co_await let_clients_finish(server, stop_signals);
        scope.cancel_region(rtkit::cancel_reason{"the server stops"});
        co_return status;
    });
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
