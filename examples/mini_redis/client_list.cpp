#include "client_list.hpp"

#include <sys/socket.h>

namespace mini_redis {

bool client_list::admit(int socket) {
    std::lock_guard guard(lock_);
    if (stopping_ || sockets_.size() >= max_clients_) return false;
    sockets_.insert(socket);
    return true;
}

void client_list::leave(int socket) {
    bool empty = false;
    {
        std::lock_guard guard(lock_);
        sockets_.erase(socket);
        empty = sockets_.empty();
    }
    if (empty) emptied_.notify_one();
}

std::size_t client_list::size() {
    std::lock_guard guard(lock_);
    return sockets_.size();
}

bool client_list::stopping() {
    std::lock_guard guard(lock_);
    return stopping_;
}

std::size_t client_list::stop_reading_all() {
    std::lock_guard guard(lock_);
    stopping_ = true;
    for (const int socket : sockets_)
        ::shutdown(socket, SHUT_RD);
    return sockets_.size();
}

rtkit::task<void> client_list::until_empty() {
    while (size() > 0)
        co_await emptied_.notified();
}

}  // namespace mini_redis
