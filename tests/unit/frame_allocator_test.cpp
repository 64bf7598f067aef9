#include <doctest/doctest.h>
#include <sys/mman.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "rtkit/sync/channel.hpp"
#include "test_support.hpp"

using namespace rtkit;

namespace {
bool aligned(const void* p, std::uintptr_t to) {
    return reinterpret_cast<std::uintptr_t>(p) % to == 0;
}

task<void> report_done(sync::channel_sender<int> done) {
    co_await yield_now();
    co_await done.send(1);
}

/// Spawns `count` tasks from the root and waits until each has reported. The
/// root's thread (not a worker) creates every frame; the handles are
/// dropped, so each task frees its own frame where it ends: on a worker.
task<void> spawn_detached(int count) {
    auto [done_tx, done_rx] = sync::make_channel<int>(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i)
        (void)spawn(report_done(done_tx));
    for (int i = 0; i < count; ++i)
        co_await done_rx.recv();
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

TEST_CASE("frame allocator: a thread gets back the frame it freed last of that size") {
    // Freed frames wait on their thread's list of their size, the most
    // recent first, and a frame of that size is taken from there (inline,
    // detail/frame_cache.hpp). A new thread, so that nothing else of this
    // size comes and goes in between.
    std::thread([] {
        constexpr std::size_t size = 344;
        void* first = detail::allocate_frame(size);
        void* second = detail::allocate_frame(size);
        if (detail::frame_memory_mapped() == 0) {
            // Sanitizer builds: frames come from the global allocator.
            detail::free_frame(first, size);
            detail::free_frame(second, size);
            return;
        }
        detail::free_frame(first, size);
        detail::free_frame(second, size);
        void* again = detail::allocate_frame(size);
        void* then = detail::allocate_frame(size);
        CHECK(again == second);
        CHECK(then == first);
        detail::free_frame(again, size);
        detail::free_frame(then, size);
    }).join();
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

TEST_CASE(
    "frame allocator: frames freed on other threads are reused by the thread that allocates") {
    // Each round allocates frames on the block_on thread and frees them on
    // the workers. Once warm, a round must reuse the frames of the rounds
    // before instead of mapping more: at most one more 2 MiB chunk over 30
    // rounds of 2,000 frames (about 0.5 MiB a round). An allocator that keeps
    // each freed frame on the thread that freed it maps about 14 MiB more.
    runtime_config config;
    config.flavor = "multi_thread";
    config.workers = 2;
    runtime rt(config);
    auto round = [&] {
        rt.block_on(spawn_detached(2000));
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (!rt.is_quiescent() && std::chrono::steady_clock::now() < deadline)
            std::this_thread::yield();
        REQUIRE(rt.is_quiescent());
    };
    for (int i = 0; i < 3; ++i)
        round();
    const std::size_t warm = detail::frame_memory_mapped();
    for (int i = 0; i < 30; ++i)
        round();
    CHECK(detail::frame_memory_mapped() <= warm + (std::size_t{2} << 20));
}

// runtime_config::huge_pages: the frame chunks a thread maps while it drives
// such a runtime ask the kernel for transparent huge pages (madvise), which
// /proc/self/smaps shows as the mapping's "hg" flag; otherwise they do not.
namespace {

/// Whether the mapping that holds `address` asked for huge pages.
bool on_huge_page_mapping(std::uintptr_t address) {
    std::ifstream smaps("/proc/self/smaps");
    std::string line;
    bool holds = false;
    while (std::getline(smaps, line)) {
        unsigned long low = 0, high = 0;
        if (std::sscanf(line.c_str(), "%lx-%lx ", &low, &high) == 2) {
            holds = low <= address && address < high;
        } else if (holds && line.rfind("VmFlags:", 0) == 0) {
            std::istringstream flags(line.substr(8));
            std::string flag;
            while (flags >> flag)
                if (flag == "hg") return true;
            return false;
        }
    }
    FAIL("no mapping holds the frame");
    return false;
}

/// Where its own frame is. `Pad` gives each case its own frame size, so no
/// frame one case freed is reused by another.
template <std::size_t Pad>
task<std::uintptr_t> frame_address(std::array<char, Pad> pad) {
    co_return reinterpret_cast<std::uintptr_t>(detail::current_task()) + pad[0];
}

constexpr std::size_t chunk_bytes = std::size_t{2} << 20;

/// Spawns from the root until this process has mapped a new frame chunk and
/// more, and returns the last task's frame address: one in a chunk mapped
/// meanwhile (once free frames of its size ran out, new ones come from the
/// newest chunk). 0 when frames come from the global allocator.
template <std::size_t Pad>
task<std::uintptr_t> frame_in_a_new_chunk() {
    const std::size_t mapped_before = detail::frame_memory_mapped();
    std::vector<join_handle<std::uintptr_t>> handles;
    while (detail::frame_memory_mapped() < mapped_before + 2 * chunk_bytes &&
           handles.size() < 200'000)
        handles.push_back(spawn(frame_address<Pad>({})));
    if (detail::frame_memory_mapped() == 0) co_return 0;
    std::uintptr_t last = 0;
    for (auto& h : handles) {
        outcome<std::uintptr_t> where = co_await std::move(h);
        last = where.value();
    }
    co_return last;
}

/// The same from this thread outside any runtime.
bool frames_outside_runtimes_on_huge_pages() {
    constexpr std::size_t size = 520;  // a size class no task here uses
    const std::size_t mapped_before = detail::frame_memory_mapped();
    std::vector<void*> frames;
    while (detail::frame_memory_mapped() < mapped_before + 2 * chunk_bytes)
        frames.push_back(detail::allocate_frame(size));
    const bool huge = on_huge_page_mapping(reinterpret_cast<std::uintptr_t>(frames.back()));
    for (void* f : frames)
        detail::free_frame(f, size);
    return huge;
}

runtime_config with_huge_pages(const char* flavor) {
    runtime_config config;
    config.flavor = flavor;
    config.huge_pages = true;
    return config;
}

}  // namespace

TEST_CASE("frame allocator: huge_pages decides whether new frame chunks ask for huge pages") {
    const std::uintptr_t plain = runtime().block_on(frame_in_a_new_chunk<8>());
    if (plain == 0) {
        MESSAGE("frames come from the global allocator in this build");
        return;
    }
    CHECK_FALSE(on_huge_page_mapping(plain));

    // current_thread: the root's thread drives the worker.
    const std::uintptr_t current =
        runtime(with_huge_pages("current_thread")).block_on(frame_in_a_new_chunk<40>());
    CHECK(on_huge_page_mapping(current));
    // multi_thread: the root runs on this thread, off the workers.
    const std::uintptr_t multi =
        runtime(with_huge_pages("multi_thread")).block_on(frame_in_a_new_chunk<72>());
    CHECK(on_huge_page_mapping(multi));
    // Once block_on returned, this thread maps chunks as the system says.
    CHECK_FALSE(frames_outside_runtimes_on_huge_pages());
}

TEST_CASE("frame allocator: tasks spawned in a row get frames in ascending address order") {
    // A worker runs them in the order they were spawned, so their frames are
    // then read in address order, which the hardware prefetches. The frame
    // size is one no other case uses, so every frame is freshly carved.
    constexpr int count = 300;
    const std::vector<std::uintptr_t> addresses =
        runtime().block_on([]() -> task<std::vector<std::uintptr_t>> {
            std::vector<join_handle<std::uintptr_t>> handles;
            for (int i = 0; i < count; ++i)
                handles.push_back(spawn(frame_address<200>({})));
            std::vector<std::uintptr_t> where;
            for (auto& h : handles) {
                outcome<std::uintptr_t> address = co_await std::move(h);
                where.push_back(address.value());
            }
            co_return where;
        }());
    if (detail::frame_memory_mapped() == 0) {
        MESSAGE("frames come from the global allocator in this build");
        return;
    }
    int ascending = 0;
    for (int i = 1; i < count; ++i)
        if (addresses[i] > addresses[i - 1] && addresses[i] - addresses[i - 1] < 1024) ++ascending;
    // A new chunk may start anywhere: one step per chunk may go elsewhere.
    CHECK(ascending >= count - 3);
}

// A thread's chunk is made writable ahead of its bump pointer, a window at a
// time (the kernel fills the window's pages in one call, not one fault each;
// windows grow from 16 KiB to 256 KiB while the thread keeps carving): the
// start of a new chunk is resident before any frame in it is written, and
// nothing a largest window beyond it is.
namespace {

constexpr std::size_t page_bytes = 4096;
constexpr std::size_t first_window_bytes = std::size_t{16} << 10;
constexpr std::size_t largest_window_bytes = std::size_t{256} << 10;

/// How many of the pages of [from, from + bytes) are resident.
std::size_t resident_pages(std::uintptr_t from, std::size_t bytes) {
    std::vector<unsigned char> in(bytes / page_bytes);
    REQUIRE(::mincore(reinterpret_cast<void*>(from), bytes, in.data()) == 0);
    std::size_t resident = 0;
    for (unsigned char page : in)
        resident += page & 1;
    return resident;
}

/// Whether this kernel fills pages on request (MADV_POPULATE_WRITE, Linux 5.14).
bool kernel_populates() {
    void* probe =
        ::mmap(nullptr, page_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(probe != MAP_FAILED);
    const bool populates = ::madvise(probe, page_bytes, 23 /* MADV_POPULATE_WRITE */) == 0;
    ::munmap(probe, page_bytes);
    return populates;
}

}  // namespace

TEST_CASE("frame allocator: a new chunk is made writable a window ahead - no further") {
    if (!kernel_populates()) {
        MESSAGE("this kernel has no MADV_POPULATE_WRITE: pages fault in one by one");
        return;
    }
    // A thread of its own, allocating a size no other case uses, until a
    // frame starts a new (2 MiB-aligned) chunk.
    bool pooled = true;
    std::uintptr_t chunk = 0;
    std::thread([&] {
        constexpr std::size_t size = 1016;
        std::vector<void*> frames{detail::allocate_frame(size)};
        // Builds under a sanitizer take frames from the global allocator.
        pooled = detail::frame_memory_mapped() > 0;
        while (pooled && chunk == 0 && frames.size() < 2 * chunk_bytes / size) {
            void* frame = detail::allocate_frame(size);
            frames.push_back(frame);
            if (reinterpret_cast<std::uintptr_t>(frame) % chunk_bytes == 0)
                chunk = reinterpret_cast<std::uintptr_t>(frame);
        }
        if (chunk != 0) {
            CHECK(resident_pages(chunk, first_window_bytes) == first_window_bytes / page_bytes);
            CHECK(resident_pages(chunk + largest_window_bytes, first_window_bytes) == 0);
        }
        for (void* frame : frames)
            detail::free_frame(frame, size);
    }).join();
    if (!pooled) {
        MESSAGE("frames come from the global allocator in this build");
        return;
    }
    CHECK(chunk != 0);
}
