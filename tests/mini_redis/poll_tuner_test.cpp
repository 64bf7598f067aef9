// The polling time the server chooses from how many commands its reads bring.
#include <doctest/doctest.h>

#include <chrono>
#include <optional>

#include "poll_tuner.hpp"

using mini_redis::poll_tuner;
using us = std::chrono::microseconds;

namespace {

/// The time chosen last after `reads` reads of `commands` each.
std::optional<us> after(poll_tuner& tuner, int reads, std::size_t commands,
                        std::optional<us> chosen = std::nullopt) {
    for (int i = 0; i < reads; ++i)
        if (const auto t = tuner.note_read(commands)) chosen = t;
    return chosen;
}

}  // namespace

TEST_CASE("poll tuner: one command per read polls briefly - pipelines poll long") {
    poll_tuner tuner(true);
    // It starts at one command per read: the first read chooses the shortest.
    CHECK(tuner.note_read(1) == us{2});
    CHECK(!tuner.note_read(1));  // unchanged: nothing to set
    const auto pipelined = after(tuner, 200, 16);
    CHECK(pipelined == us{10});
    CHECK(tuner.commands_per_read() > 15.0);
    // A few single commands among the pipelines do not change it.
    CHECK(!after(tuner, 3, 1));
    CHECK(after(tuner, 200, 1, pipelined) == us{2});
    CHECK(tuner.commands_per_read() < 1.1);
}

TEST_CASE("poll tuner: between one command and full_at the time grows in a straight line") {
    poll_tuner tuner(true, mini_redis::poll_curve{us{4}, us{32}, 8});
    CHECK(after(tuner, 300, 4) == us{16});  // 4 + 28 * 3 / 7
    CHECK(after(tuner, 300, 8) == us{32});
    CHECK(!after(tuner, 300, 64));         // past full_at: still the longest
    CHECK(after(tuner, 300, 0) == us{4});  // reads that complete nothing: the shortest
}

TEST_CASE("poll tuner: off - it never chooses") {
    poll_tuner tuner(false);
    CHECK(!after(tuner, 100, 16));
    CHECK(!after(tuner, 100, 1));
}
