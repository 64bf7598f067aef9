#include "connect_socket.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "../worker_group.hpp"
#include "net_error.hpp"
#include "rtkit/cx.hpp"
#include "rtkit/net/io_operation.hpp"

namespace rtkit::net::detail {
namespace {

/// True when the current task's runtime will take whole operations (see
/// registered_fd: a completion reactor used by one thread).
bool completion_reactor_here() {
    rtkit::detail::task_header* task = rtkit::detail::current_task();
    if (!task)
        throw no_runtime_error("connect needs a runtime: run it in a task, or in a block_on root");
    rtkit::detail::worker_group& group = task->home().group();
    return !group.io_shared() &&
           group.io().backend().query_interface(completion_reactor_v1_name) != nullptr;
}

}  // namespace

int open_stream_socket(int family, const socket_address& for_address) {
    const int fd = ::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) throw_errno(errno, "socket() for " + for_address.to_string());
    return fd;
}

task<registered_fd> connect_socket(socket_address peer, std::optional<duration> timeout) {
    rtkit::detail::check_cancel();
    const bool whole_operation = completion_reactor_here();
    std::optional<instant> deadline;
    if (timeout) deadline = saturating_add(rtkit::now(), *timeout);
    const int raw = open_stream_socket(peer.family(), peer);
    if (!whole_operation) {
        // connect() before registering: Linux reports an unconnected socket as
        // hung up, and a readiness reactor would latch that.
        if (::connect(raw, peer.data(), peer.size()) == 0)
            co_return registered_fd(raw, fd_kind::socket, peer);
        if (errno != EINPROGRESS) {
            const int error = errno;
            ::close(raw);
            throw_errno(error, "connect to " + peer.to_string());
        }
    }
    registered_fd fd(raw, fd_kind::socket, peer);
    io_request request;
    request.op = io_opcode::connect;
    request.fd = raw;
    request.address = peer.data();
    request.address_size = peer.size();
    io_operation connecting(fd, request);
    if (deadline) connecting.with_deadline(*deadline);
    co_await connecting;
    co_return fd;
}

}  // namespace rtkit::net::detail
