#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <stdexcept>

#include "test_support.hpp"

using namespace rtkit;

// The header does not store its frame: task_header::frame() computes it from
// the header's address. These tasks differ in their promise's size and
// alignment, which is what moves a promise within its frame.

namespace {

struct alignas(16) sixteen_aligned {
    std::uint64_t low = 1, high = 2;
};

template <class T>
task<T> returns(T value) {
    co_return value;
}

template <class T>
void check_header_finds_frame(task<T> t) {
    auto handle = t.release();
    CHECK(handle.promise().frame().address() == handle.address());
    handle.destroy();
}

}  // namespace

TEST_CASE("task frame: the header finds its frame whatever the task returns") {
    check_header_finds_frame(returns(char{1}));
    check_header_finds_frame(returns(std::uint64_t{2}));
    check_header_finds_frame(returns(sixteen_aligned{}));
    check_header_finds_frame(returns(std::array<std::uint64_t, 40>{}));
    check_header_finds_frame(returns(std::array<char, 3>{}));
    check_header_finds_frame([]() -> task<void> { co_return; }());
}

TEST_CASE("task frame: a spawned task of each kind runs and is freed through its header") {
    test::on_both_flavors([&](const runtime_config& config) {
        runtime rt(config);
        const std::uint64_t sum = rt.block_on([]() -> task<std::uint64_t> {
            auto a = spawn(returns(char{1}));
            auto b = spawn(returns(sixteen_aligned{}));
            auto c = spawn(returns(std::array<std::uint64_t, 40>{}));
            const char one = (co_await std::move(a)).value();
            const sixteen_aligned two = (co_await std::move(b)).value();
            const std::array<std::uint64_t, 40> forty = (co_await std::move(c)).value();
            co_return one + two.high + forty.size();
        }());
        CHECK(sum == 43);
    });
}

// A task keeps its outcome in its frame until someone takes it: every value a
// task returns is destroyed exactly once, whether it is taken by a join, by
// an inline await or by block_on, or dropped with the frame untaken. A value
// that fits in a word lives in the header's resume word, a larger one after
// the header: both paths are checked.
namespace {

template <std::size_t PayloadBytes>
struct counted {
    static inline int live = 0;
    int number;
    std::array<char, PayloadBytes> payload{};
    explicit counted(int v) : number(v) { ++live; }
    counted(counted&& other) noexcept : number(other.number) { ++live; }
    counted(const counted&) = delete;
    ~counted() { --live; }
};
using word_sized = counted<1>;
using larger = counted<60>;

template <class Counted>
task<Counted> makes_counted(int v) {
    co_return Counted(v);
}

template <class Counted>
task<Counted> fails_before_returning() {
    throw std::runtime_error("no value");
    co_return Counted(0);
}

template <class Counted>
task<int> takes_outcomes_every_way() {
    // Joined: the value moves out of the frame.
    auto joined = spawn(makes_counted<Counted>(1));
    outcome<Counted> first = co_await std::move(joined);
    const int one = first.value().number;
    // Awaited inline.
    Counted second = co_await makes_counted<Counted>(2);
    const int two = second.number;
    // Never joined: the value goes with the frame.
    (void)spawn(makes_counted<Counted>(3));
    // Cancelled before its first poll: no value, a cancelled outcome.
    auto cancelled = spawn(makes_counted<Counted>(4));
    cancelled.cancel();
    outcome<Counted> never = co_await std::move(cancelled);
    CHECK(never.is_cancelled());
    // Failed: the outcome holds the exception.
    outcome<Counted> failed = co_await spawn(fails_before_returning<Counted>());
    CHECK(failed.is_panicked());
    co_return one + two;
}

}  // namespace

static_assert(detail::promise<word_sized>::outcome_in_header);
static_assert(!detail::promise<larger>::outcome_in_header);

TEST_CASE_TEMPLATE(
    "task frame: a returned value lives until its outcome is taken or its frame goes", Counted,
    word_sized, larger) {
    Counted::live = 0;
    {
        runtime rt;
        const int sum = rt.block_on(takes_outcomes_every_way<Counted>());
        CHECK(sum == 3);
        CHECK(rt.block_on(makes_counted<Counted>(5)).number == 5);
    }
    CHECK(Counted::live == 0);
}
