#include "keyspace.hpp"

#include <utility>

namespace mini_redis {

keyspace::key_map::iterator keyspace::live(std::string_view key, millis now) {
    auto at = keys_.find(key);
    if (at == keys_.end()) return at;
    const entry& e = at->second;
    if (e.deadline != deadlines_.end() && now > e.deadline->first) {
        deadlines_.erase(e.deadline);
        keys_.erase(at);
        return keys_.end();
    }
    return at;
}

std::string* keyspace::find(std::string_view key, millis now) {
    auto at = live(key, now);
    return at == keys_.end() ? nullptr : &at->second.value;
}

void keyspace::set(std::string_view key, std::string_view value, std::optional<millis> deadline) {
    auto at = keys_.find(key);
    if (at == keys_.end()) {
        at = keys_.emplace(std::string(key), entry{std::string(value), deadlines_.end()}).first;
    } else {
        at->second.value.assign(value);
        clear_deadline(at->second);
    }
    if (deadline) set_deadline(at, *deadline);
}

std::string& keyspace::set_keeping_deadline(std::string_view key, std::string value, millis now) {
    auto at = live(key, now);
    if (at == keys_.end())
        at = keys_.emplace(std::string(key), entry{std::move(value), deadlines_.end()}).first;
    else
        at->second.value = std::move(value);
    return at->second.value;
}

bool keyspace::erase(std::string_view key, millis now) {
    auto at = live(key, now);
    if (at == keys_.end()) return false;
    clear_deadline(at->second);
    keys_.erase(at);
    return true;
}

bool keyspace::expire_at(std::string_view key, millis deadline, millis now) {
    auto at = live(key, now);
    if (at == keys_.end()) return false;
    clear_deadline(at->second);
    set_deadline(at, deadline);
    return true;
}

std::optional<millis> keyspace::deadline_of(std::string_view key, millis now) {
    auto at = live(key, now);
    if (at == keys_.end()) return std::nullopt;
    const entry& e = at->second;
    return e.deadline == deadlines_.end() ? no_deadline : e.deadline->first;
}

std::optional<millis> keyspace::next_deadline() const {
    if (deadlines_.empty()) return std::nullopt;
    return deadlines_.begin()->first;
}

std::size_t keyspace::remove_expired(millis now, std::size_t limit) {
    std::size_t removed = 0;
    while (removed < limit && !deadlines_.empty() && now > deadlines_.begin()->first) {
        // Find the entry before erasing: the key lives in the entry's node.
        const auto at = keys_.find(*deadlines_.begin()->second);
        deadlines_.erase(deadlines_.begin());
        keys_.erase(at);
        ++removed;
    }
    return removed;
}

void keyspace::set_deadline(key_map::iterator at, millis deadline) {
    if (deadlines_.empty() || deadline < deadlines_.begin()->first) earlier_deadline_ = true;
    at->second.deadline = deadlines_.emplace(deadline, &at->first);
}

void keyspace::clear_deadline(entry& e) {
    if (e.deadline == deadlines_.end()) return;
    deadlines_.erase(e.deadline);
    e.deadline = deadlines_.end();
}

}  // namespace mini_redis
