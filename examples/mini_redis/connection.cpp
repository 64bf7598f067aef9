#include "connection.hpp"

#include <system_error>

#include "commands.hpp"
#include "outbox.hpp"
#include "read_buffer.hpp"
#include "request_parser.hpp"
#include "rtkit/rtkit.hpp"
#include "runtime_clock.hpp"
#include "session.hpp"

namespace mini_redis {
namespace {

/// Replies past this many bytes go to the outbox before the rest of the read's
/// commands run, so that the outbox limit also bounds one read's replies.
constexpr std::size_t flush_threshold = 64 * 1024;

/// Runs the complete requests at the front of `input`. Stops at an incomplete
/// one, and after QUIT, a malformed request, or a refused flush. Returns how
/// many it ran.
std::size_t run_requests(command_context& c, request_parser& parser, read_buffer& input) {
    session& client = c.client;
    std::size_t ran = 0;
    while (!client.quit && !client.dropped && !input.unread().empty()) {
        switch (parser.parse(input.unread())) {
            case request_parser::result::complete:
                if (!parser.args().empty()) {
                    execute(c, parser.args());
                    ++ran;
                }
                input.consume(parser.consumed());
                if (client.replies.size() >= flush_threshold) client.flush();
                break;
            case request_parser::result::incomplete:
                return ran;
            case request_parser::result::malformed:
                c.out.error("ERR " + parser.error());
                client.quit = true;
                return ran;
        }
    }
    return ran;
}

/// The reading task's loop. Returns true when the connection ends in order
/// (the client closed its side or quit: its replies are still owed), false
/// when the client is to be dropped unanswered.
rtkit::task<bool> read_and_run(server_state& server, rtkit::net::tcp_stream& stream,
                               session& client) {
    request_parser parser(server.settings.limits);
    read_buffer input;
    std::size_t request_size = 0;  // what the request being parsed needs at least
    while (!client.quit) {
        input.make_room(request_size);
        const std::size_t wanted = input.free_size();
        const std::size_t n = co_await stream.read(input.free_space(), wanted);
        if (n == 0) co_return !client.subscriptions.dropped();
        input.commit(n);
        command_context c(server.db, server.channels, server.settings, client, now_millis());
        const std::size_t ran = run_requests(c, parser, input);
        request_size = input.unread().empty() ? 0 : parser.bytes_needed();
        client.flush();
        // What this wake was worth sets how long the runtime polls for the next.
        if (const auto polling = server.poll_time.note_read(ran))
            rtkit::cx::current().set_poll_before_park(*polling);
        if (client.dropped) co_return false;
        // A read that filled the buffer leaves more to read at once: let the
        // other connections run first, so that one busy client cannot starve them.
        if (n == wanted) co_await rtkit::yield_now();
    }
    co_return true;
}

rtkit::task<void> wait_for(rtkit::join_handle<void>& task) {
    co_await std::move(task);
}

}  // namespace

rtkit::task<void> serve_connection(server_state& server, rtkit::net::tcp_stream accepted) {
    rtkit::net::tcp_stream stream = std::move(accepted);
    const int socket = stream.native_handle();
    // Ends before the stream closes: the client list never names a closed socket.
    struct leave_on_exit {
        client_list& clients;
        int socket;
        ~leave_on_exit() { clients.leave(socket); }
    } leave{server.clients, socket};
    try {
        stream.set_nodelay(true);  // replies leave at once, as redis sends them
    } catch (const std::system_error&) {
        co_return;  // the client is gone already
    }
    outbox out(server.settings.output_buffer_limit);
    session client(out, socket);
    // Ends before the outbox goes, also when this task is cancelled: no
    // publisher may reach the outbox after.
    struct unsubscribe_on_exit {
        pubsub& channels;
        subscriber& s;
        ~unsubscribe_on_exit() { channels.leave(s); }
    } unsubscribe{server.channels, client.subscriptions};

    co_await rtkit::cx::current().region([&](rtkit::cx scope) -> rtkit::task<void> {
        rtkit::join_handle<void> writer = scope.spawn(out.write_to(stream));
        bool orderly = false;
        try {
            orderly = co_await read_and_run(server, stream, client);
        } catch (const std::system_error&) {
            // The client reset the connection, or a read failed: drop it.
        }
        server.channels.leave(client.subscriptions);
        out.close();  // the writer ends once it has written what is queued
        if (orderly && server.clients.stopping()) {
            // The server's stop bounds the writer: past its timeout it cancels
            // what is left, and says how many clients that cut off.
            co_await std::move(writer);
            co_return;
        }
        if (orderly && co_await rtkit::timeout(server.settings.shutdown_timeout, wait_for(writer)))
            co_return;
        writer.cancel();
        co_await std::move(writer);
    });
}

}  // namespace mini_redis
