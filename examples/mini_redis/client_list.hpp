#pragma once
// mini_redis::client_list: the connected clients, for the connection limit
// and for stopping.
#include <cstddef>
#include <mutex>
#include <unordered_set>

#include "rtkit/sync/notify.hpp"
#include "rtkit/task.hpp"

namespace mini_redis {

/// The sockets of the connected clients, at most `max_clients` of them. A
/// connection is admitted before it is served and leaves before its socket
/// closes, so every descriptor listed is open and still that client's.
class client_list {
  public:
    explicit client_list(std::size_t max_clients) noexcept : max_clients_(max_clients) {}

    /// Lists a new client's socket; false when the list is full or stopping
    /// (refuse the client).
    bool admit(int socket);
    /// Takes the socket off the list; call it before closing the socket.
    void leave(int socket);
    std::size_t size();

    /// Stops: admits nobody from now on, and shuts down the reading side of
    /// every client's socket, so that each connection reads end of stream once
    /// it has run the commands it has read, and closes after its replies.
    /// Returns how many clients there were.
    std::size_t stop_reading_all();
    /// True once stop_reading_all() was called.
    bool stopping();
    /// Waits until every client has left.
    rtkit::task<void> until_empty();

  private:
    const std::size_t max_clients_;
    std::mutex lock_;
    std::unordered_set<int> sockets_;
    bool stopping_ = false;
    rtkit::sync::notify emptied_;
};

}  // namespace mini_redis
