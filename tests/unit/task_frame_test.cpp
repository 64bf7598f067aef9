#include <doctest/doctest.h>

#include <array>
#include <cstdint>

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
    runtime rt;
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
}
