#pragma once
// What the net tests share: a runtime per built-in reactor, and byte helpers.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "../support/thread_count.hpp"
#include "rtkit/net.hpp"
#include "rtkit/rtkit.hpp"

namespace net_test {

/// Every net test runs once on each of these (strict: no silent fallback).
inline const std::vector<std::string> reactors = {"epoll", "uring"};

inline rtkit::runtime_config config_for(const std::string& reactor) {
    rtkit::runtime_config c;
    c.reactor.preference = {reactor};
    c.reactor.strict = true;
    return c;
}

inline std::string text_of(const std::vector<char>& bytes, std::size_t n) {
    return std::string(bytes.data(), n);
}

}  // namespace net_test
