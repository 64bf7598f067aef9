#pragma once
// What the test_fifo plugin received from the loader, exposed through
// query_interface so tests can see defaults and configured values arrive.
#include <cstdint>
#include <string>

inline constexpr const char* test_fifo_options_interface = "rtkit.test.fifo_options.v1";

struct test_fifo_options {
    std::string mode;
    bool verbose = true;
    std::int64_t batch = 0;
};
