// reactor_support::registration_table on its own: tokens, generations, the
// descriptor index and the latched-readiness rules the built-in reactors share.
#include <doctest/doctest.h>

#include <cerrno>
#include <system_error>

#include "counting_waker.hpp"
#include "rtkit/reactor_support/registration_table.hpp"

using rtkit::interest;
using rtkit::io_token;
using rtkit::testing::counting_waker;
namespace ready = rtkit::ready;

namespace {

int error_of_insert(auto& table, int fd) {
    try {
        table.insert(fd, interest::read);
    } catch (const std::system_error& e) {
        return e.code().value();
    }
    return 0;
}

}  // namespace

TEST_CASE("registration_table: tokens are never 0 and a removed one stays stale after reuse") {
    rtkit::reactor_support::registration_table<> table;
    const io_token first = table.insert(7, interest::read);
    CHECK(first != 0);
    REQUIRE(table.find(first) != nullptr);
    CHECK(table.find(first)->fd == 7);
    CHECK(table.erase(first));
    CHECK_FALSE(table.erase(first));  // stale: ignored
    CHECK(table.find(first) == nullptr);
    const io_token second = table.insert(7, interest::write);  // same slot, same number
    CHECK(second != first);
    CHECK(table.find(first) == nullptr);
    REQUIRE(table.find(second) != nullptr);
    CHECK(table.size() == 1);
}

TEST_CASE("registration_table: a narrow generation wraps around and skips 0") {
    rtkit::reactor_support::registration_table<rtkit::reactor_support::no_extra, 2> table;
    io_token t = table.insert(3, interest::read);
    const io_token start = t;
    // Generations 1, 2, 3, then 1 again: 0 is skipped.
    for (int round = 0; round < 3; ++round) {
        CHECK(table.erase(t));
        t = table.insert(3, interest::read);
        CHECK(table.generation_of(t) != 0);
    }
    CHECK(t == start);  // three removes later the generation came back around
    CHECK(table.find(t) != nullptr);
}

TEST_CASE(
    "registration_table: a second insert of one descriptor throws EEXIST - a negative one EBADF") {
    rtkit::reactor_support::registration_table<> table;
    const io_token t = table.insert(4, interest::read);
    CHECK(error_of_insert(table, 4) == EEXIST);
    CHECK(error_of_insert(table, -1) == EBADF);
    CHECK(table.token_of_fd(4) == t);
    CHECK(table.token_of_fd(5) == 0);
    CHECK(table.token_of_fd(-1) == 0);
    table.erase(t);
    CHECK(table.token_of_fd(4) == 0);
    CHECK(error_of_insert(table, 4) == 0);
}

TEST_CASE(
    "registration_table: latched bits answer at once - otherwise one waker is armed and fires "
    "once") {
    counting_waker reader, writer;
    {
        rtkit::reactor_support::registration_table<> table;
        const io_token t = table.insert(9, interest::read_write);
        CHECK(table.poll_ready(t, interest::read, reader.make()) == 0);
        CHECK(table.poll_ready(t, interest::read, reader.make()) == 0);  // same task: one copy
        CHECK(table.poll_ready(t, interest::write, writer.make()) == 0);
        CHECK(reader.live == 1);
        CHECK(table.deliver(*table.find(t), ready::readable));
        CHECK(reader.wakes == 1);
        CHECK(writer.wakes == 0);
        CHECK(table.deliver(*table.find(t), ready::readable));  // latched again, nobody armed
        CHECK(reader.wakes == 1);
        CHECK(table.poll_ready(t, interest::read, reader.make()) == ready::readable);
        table.clear_ready(t, ready::readable);
        CHECK(table.poll_ready(t, interest::read, reader.make()) == 0);
        // Hang-up wakes both directions and answers any interest.
        table.deliver(*table.find(t), ready::hangup);
        CHECK(reader.wakes == 2);
        CHECK(writer.wakes == 1);
        CHECK(table.poll_ready(t, interest::write, writer.make()) == ready::hangup);
        // Narrowing the interest drops the other direction's waker; erase drops the rest.
        table.clear_ready(t, ready::hangup);
        CHECK(table.poll_ready(t, interest::write, writer.make()) == 0);
        table.modify(t, interest::read);
        CHECK(writer.live == 0);
        CHECK_FALSE(table.deliver(*table.find(t), ready::writable));  // not of interest now
        CHECK(table.poll_ready(t, interest::read, reader.make()) == 0);
        table.erase(t);
        CHECK(reader.live == 0);
        CHECK(table.poll_ready(t, interest::read, reader.make()) == ready::error);
        CHECK(reader.live == 0);
        bool threw = false;
        try {
            table.modify(t, interest::read);
        } catch (const std::system_error& e) {
            threw = e.code().value() == ENOENT;
        }
        CHECK(threw);
    }
    CHECK(reader.live == 0);
    CHECK(writer.live == 0);
}
