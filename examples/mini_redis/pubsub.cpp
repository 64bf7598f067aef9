#include "pubsub.hpp"

#include <sys/socket.h>

#include <algorithm>

#include "reply.hpp"

namespace mini_redis {
namespace {

/// [kind, channel, count]: a confirmation of (un)subscribing.
std::string confirmation(std::string_view kind, const std::string* channel, std::size_t count) {
    std::string bytes;
    reply r(bytes);
    r.array(3);
    r.bulk(kind);
    if (channel)
        r.bulk(*channel);
    else
        r.null();
    r.integer(static_cast<std::int64_t>(count));
    return bytes;
}

}  // namespace

bool subscriber::deliver(std::string bytes) {
    if (dropped()) return false;
    if (out_.push(std::move(bytes))) return true;
    // Its connection sees end of stream on its next read and ends; its writer
    // fails. The socket stays open until that connection has left pubsub.
    dropped_.store(true, std::memory_order_relaxed);
    ::shutdown(socket_, SHUT_RDWR);
    return false;
}

void pubsub::subscribe(subscriber& s, std::string_view channel) {
    std::lock_guard guard(lock_);
    auto [at, added] = s.channels_.emplace(channel);
    if (added) {
        auto list = channels_.find(channel);
        if (list == channels_.end()) list = channels_.try_emplace(std::string(channel)).first;
        list->second.push_back(&s);
    }
    s.deliver(confirmation("subscribe", &*at, s.channels_.size()));
}

void pubsub::unsubscribe(subscriber& s, std::string_view channel) {
    std::lock_guard guard(lock_);
    const std::string name(channel);
    if (auto at = s.channels_.find(channel); at != s.channels_.end()) {
        remove_locked(s, channel);
        s.channels_.erase(at);
    }
    s.deliver(confirmation("unsubscribe", &name, s.channels_.size()));
}

void pubsub::unsubscribe_all(subscriber& s) {
    std::lock_guard guard(lock_);
    if (s.channels_.empty()) {
        s.deliver(confirmation("unsubscribe", nullptr, 0));
        return;
    }
    while (!s.channels_.empty()) {
        auto node = s.channels_.extract(s.channels_.begin());
        remove_locked(s, node.value());
        s.deliver(confirmation("unsubscribe", &node.value(), s.channels_.size()));
    }
}

void pubsub::leave(subscriber& s) {
    std::lock_guard guard(lock_);
    for (const std::string& channel : s.channels_)
        remove_locked(s, channel);
    s.channels_.clear();
}

std::size_t pubsub::publish(std::string_view channel, std::string_view message) {
    std::lock_guard guard(lock_);
    auto list = channels_.find(channel);
    if (list == channels_.end()) return 0;
    std::string bytes;
    reply r(bytes);
    r.array(3);
    r.bulk("message");
    r.bulk(channel);
    r.bulk(message);
    std::size_t reached = 0;
    for (subscriber* s : list->second)
        reached += s->deliver(bytes) ? 1 : 0;
    return reached;
}

void pubsub::remove_locked(subscriber& s, std::string_view channel) {
    auto list = channels_.find(channel);
    if (list == channels_.end()) return;
    std::erase(list->second, &s);
    if (list->second.empty()) channels_.erase(list);
}

}  // namespace mini_redis
