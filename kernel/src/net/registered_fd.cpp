#include "rtkit/net/registered_fd.hpp"

#include <unistd.h>

#include <utility>

namespace rtkit::net {

registered_fd::registered_fd(int fd, fd_kind kind, socket_address peer)
    : fd_(fd), kind_(kind), peer_(peer) {
    try {
        registration_ = rtkit::detail::io_registration(fd, interest::read_write);
    } catch (...) {
        ::close(std::exchange(fd_, -1));
        throw;
    }
    // Whole operations only where one thread uses the reactor: a shared one
    // (multi-thread) would take its lock for every operation.
    if (!registration_.shared())
        completion_ = static_cast<completion_reactor_v1*>(
            registration_.driver()->backend().query_interface(completion_reactor_v1_name));
}

registered_fd::registered_fd(registered_fd&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      kind_(other.kind_),
      peer_(other.peer_),
      registration_(std::move(other.registration_)),
      completion_(std::exchange(other.completion_, nullptr)) {}

registered_fd& registered_fd::operator=(registered_fd&& other) noexcept {
    if (this != &other) {
        close();
        fd_ = std::exchange(other.fd_, -1);
        kind_ = other.kind_;
        peer_ = other.peer_;
        registration_ = std::move(other.registration_);
        completion_ = std::exchange(other.completion_, nullptr);
    }
    return *this;
}

void registered_fd::close() noexcept {
    if (fd_ < 0) return;
    // Deregistered first: nothing of this registration fires after.
    registration_.reset_and_close(std::exchange(fd_, -1));
    completion_ = nullptr;
}

std::string registered_fd::describe() const {
    if (kind_ == fd_kind::pipe) return "pipe (fd " + std::to_string(fd_) + ")";
    if (peer_.family() == 0) return "socket (fd " + std::to_string(fd_) + ")";
    return peer_.to_string();
}

}  // namespace rtkit::net
