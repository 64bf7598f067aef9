#include "echo_server.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <exception>
#include <system_error>

#include "rtkit/net.hpp"
#include "rtkit/rtkit.hpp"

namespace rtbench {
namespace {

/// The write end of the pipe the signal handler uses to stop the server.
int stop_pipe_writer = -1;

void on_stop_signal(int) {
    const char byte = 's';
    [[maybe_unused]] const ssize_t n = ::write(stop_pipe_writer, &byte, 1);
}

/// One connection: echo until the client closes. The bytes are written back
/// with write() in a loop rather than write_all() to spare a coroutine frame
/// per request on this hot path.
rtkit::task<void> echo_connection(rtkit::net::tcp_stream accepted) {
    rtkit::net::tcp_stream conn = std::move(accepted);
    conn.set_nodelay(true);
    char buffer[4096];
    try {
        while (true) {
            const std::size_t n = co_await conn.read(buffer, sizeof buffer);
            if (n == 0) break;
            std::size_t sent = 0;
            while (sent < n)
                sent += co_await conn.write(buffer + sent, n - sent);
        }
    } catch (const std::system_error&) {
        // The client went away mid-request (reset): this connection is done.
    }
}

rtkit::task<void> accept_loop(rtkit::net::tcp_listener& listener) {
    while (true) {
        rtkit::net::tcp_stream conn = co_await listener.accept();
        auto detached = rtkit::spawn(echo_connection(std::move(conn)));
    }
}

rtkit::task<void> serve(std::uint16_t port, int stop_fd) {
    auto listener = rtkit::net::tcp_listener::bind(rtkit::net::socket_address::loopback(port));
    rtkit::net::pipe_reader stop{rtkit::net::registered_fd(stop_fd, rtkit::net::fd_kind::pipe)};
    std::fprintf(stderr, "rtbench W7: echo on %s\n", listener.local_address().to_string().c_str());
    auto acceptor = rtkit::spawn(accept_loop(listener));
    char byte = 0;
    co_await stop.read(&byte, 1);
    acceptor.cancel();
    co_await std::move(acceptor);
    // Connections still open are cancelled when the runtime shuts down.
}

}  // namespace

int run_echo_server(rtkit::runtime& rt, std::uint16_t port) {
    int fds[2];
    if (::pipe2(fds, O_NONBLOCK | O_CLOEXEC) < 0) {
        std::perror("rtbench W7: pipe2");
        return 1;
    }
    stop_pipe_writer = fds[1];
    struct sigaction action {};
    action.sa_handler = &on_stop_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGTERM, &action, nullptr);
    sigaction(SIGINT, &action, nullptr);
    try {
        rt.block_on(serve(port, fds[0]));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "rtbench W7: %s\n", e.what());
        return 1;
    }
    return 0;
}

}  // namespace rtbench
