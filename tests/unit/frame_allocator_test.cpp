#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "test_support.hpp"

using namespace rtkit;

namespace {
bool aligned(const void* p, std::uintptr_t to) {
    return reinterpret_cast<std::uintptr_t>(p) % to == 0;
}
}  // namespace

TEST_CASE("frame allocator: sizes that are multiples of 16 get 16-byte alignment") {
    // Interleave sizes so that 8-aligned blocks push the bump pointer off 16.
    std::vector<std::pair<void*, std::size_t>> blocks;
    for (int i = 0; i < 1000; ++i) {
        for (std::size_t size :
             {std::size_t{152}, std::size_t{160}, std::size_t{24}, std::size_t{48}}) {
            void* p = detail::allocate_frame(size);
            CHECK(aligned(p, size % 16 == 0 ? 16 : 8));
            blocks.emplace_back(p, size);
        }
    }
    for (auto [p, size] : blocks)
        detail::free_frame(p, size);
    // Reused blocks keep the alignment of their size class.
    for (std::size_t size : {std::size_t{160}, std::size_t{48}})
        for (int i = 0; i < 100; ++i) {
            void* p = detail::allocate_frame(size);
            CHECK(aligned(p, 16));
            blocks.emplace_back(p, size);
        }
    for (std::size_t i = 4000; i < blocks.size(); ++i)
        detail::free_frame(blocks[i].first, blocks[i].second);
}

TEST_CASE("frame allocator: a task with a 16-byte aligned local gets it aligned") {
    runtime rt;
    int misaligned = rt.block_on([]() -> task<int> {
        int bad = 0;
        for (int i = 0; i < 100; ++i) {
            auto h = spawn([]() -> task<bool> {
                alignas(16) long double local = 1.0L;
                co_await yield_now();
                co_return aligned(&local, 16);
            }());
            bad += (co_await std::move(h)).value() ? 0 : 1;
        }
        co_return bad;
    }());
    CHECK(misaligned == 0);
}
