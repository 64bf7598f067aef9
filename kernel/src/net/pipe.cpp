#include "rtkit/net/pipe.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>

#include "net_error.hpp"

namespace rtkit::net {
namespace {

/// A write to a pipe without a reader raises SIGPIPE, whose default action
/// ends the process; there is no MSG_NOSIGNAL for write(). Ignore it once,
/// unless the program chose its own disposition.
void ignore_sigpipe_once() {
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction current {};
        if (sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL)
            signal(SIGPIPE, SIG_IGN);
    });
}

}  // namespace

pipe_ends open_pipe() {
    ignore_sigpipe_once();
    int fds[2];
    if (::pipe2(fds, O_NONBLOCK | O_CLOEXEC) < 0) detail::throw_errno(errno, "pipe2");
    registered_fd reader;
    try {
        reader = registered_fd(fds[0], fd_kind::pipe);
    } catch (...) {
        ::close(fds[1]);
        throw;
    }
    return pipe_ends{pipe_reader(std::move(reader)),
                     pipe_writer(registered_fd(fds[1], fd_kind::pipe))};
}

}  // namespace rtkit::net
