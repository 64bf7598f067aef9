// reactor_support::registration_table on its own: tokens, generations and the
// descriptor index, which the kernel and the io_uring reactor share.
#include <doctest/doctest.h>

#include <cerrno>
#include <system_error>

#include "rtkit/reactor_support/registration_table.hpp"

using rtkit::interest;
using rtkit::io_token;
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

TEST_CASE("registration_table: erase resets the owner's state - find_slot sees live slots only") {
    struct state {
        int value = 0;
    };
    rtkit::reactor_support::registration_table<state> table;
    const io_token t = table.insert(9, interest::read_write);
    table.find(t)->extra.value = 7;
    table.find(t)->latched = ready::readable;
    const auto slot = table.index_of(t);
    CHECK(table.find_slot(slot) == table.find(t));
    CHECK(table.erase(t));
    CHECK(table.find_slot(slot) == nullptr);
    const io_token again = table.insert(9, interest::read);
    REQUIRE(table.index_of(again) == slot);      // the slot is reused...
    CHECK(table.find(again)->extra.value == 0);  // ...with nothing of its last owner
    CHECK(table.find(again)->latched == 0);
    CHECK(table.slot_count() == 1);
}
