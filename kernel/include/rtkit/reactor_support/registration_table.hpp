#pragma once
// rtkit::reactor_support::registration_table: registrations by generation-checked
// token and by descriptor number.
//
// Public API, header-only. The kernel keeps one per runtime (detail::io_driver,
// with each registration's waiting tasks as `Extra`). A reactor plugin may
// keep one of its own for per-descriptor state of its backend (`Extra`), as
// the io_uring reactor does:
//
//     rtkit::reactor_support::registration_table<my_state> table;
//     void add(int fd, io_token token) {                 // the reactor's add()
//         const io_token mine = table.insert(fd, interest::read_write);
//         table.find(mine)->extra.kernel_token = token;  // to deliver readiness with
//     }
//     // later, by descriptor: table.find(table.token_of_fd(fd))
//
// Tokens are `slot | generation << 32`. erase() bumps the slot's generation,
// so a stale token (and a kernel event carrying one) is recognised even after
// the slot and the descriptor number were reused. No token is 0.
// Not thread-safe: the reactor's owner thread uses it, as every reactor method
// but wake().
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <string>
#include <system_error>
#include <vector>

#include "rtkit/reactor.hpp"

namespace rtkit::reactor_support {

/// No per-registration state of the backend's own.
struct no_extra {};

/// One registration. `Extra` is its owner's own state (the kernel: the tasks
/// waiting on it; a backend: for example whether a kernel-side poll is
/// armed); it is value-initialised by insert() and by erase().
template <class Extra>
struct registration {
    int fd = -1;
    std::uint8_t interest = 0;  ///< rtkit::interest bits
    /// rtkit::ready bits kept for later: the kernel's latched readiness (seen
    /// and not yet consumed), or readiness a backend holds back until its
    /// next poll().
    unsigned latched = 0;
    [[no_unique_address]] Extra extra{};
};

/// Registrations in a slab with a free list, looked up by generation-checked
/// token or by descriptor. `GenerationBits` (1..32) narrows the generation for
/// backends that pack it with other bits into their kernel's user data.
template <class Extra = no_extra, unsigned GenerationBits = 32>
class registration_table {
    static_assert(GenerationBits >= 1 && GenerationBits <= 32);

  public:
    using entry = registration<Extra>;
    static constexpr std::uint32_t generation_mask =
        GenerationBits == 32 ? UINT32_MAX : (std::uint32_t{1} << GenerationBits) - 1;

    static constexpr std::uint32_t index_of(io_token t) noexcept {
        return static_cast<std::uint32_t>(t);
    }
    static constexpr std::uint32_t generation_of(io_token t) noexcept {
        return static_cast<std::uint32_t>(t >> 32);
    }
    static constexpr io_token make_token(std::uint32_t index, std::uint32_t generation) noexcept {
        return index | (std::uint64_t{generation} << 32);
    }

    /// A live registration for `fd` with interest `what`, nothing latched.
    /// Throws std::system_error: EBADF for a negative descriptor, EEXIST when
    /// `fd` already has a live registration (every reactor refuses a second
    /// add of one descriptor, as epoll does). Pointers from find() are
    /// invalidated.
    io_token insert(int fd, interest what) {
        if (fd < 0) fail(EBADF, "add(fd " + std::to_string(fd) + ")");
        const auto at = static_cast<std::size_t>(fd);
        if (at >= slot_of_fd_.size()) slot_of_fd_.resize(at + 1, no_slot);
        if (slot_of_fd_[at] != no_slot)
            fail(EEXIST,
                 "add(fd " + std::to_string(fd) + "): the descriptor is registered already");
        std::uint32_t index = free_head_;
        if (index == no_slot) {
            slots_.emplace_back();
            index = static_cast<std::uint32_t>(slots_.size() - 1);
        } else {
            free_head_ = slots_[index].next_free;
        }
        slot& s = slots_[index];
        s.in_use = true;
        s.value = entry{};
        s.value.fd = fd;
        s.value.interest = static_cast<std::uint8_t>(what);
        slot_of_fd_[at] = index;
        ++live_;
        return make_token(index, s.generation);
    }

    /// The live registration `t` names, or nullptr when it is stale or unknown.
    entry* find(io_token t) noexcept {
        const std::uint32_t index = index_of(t);
        if (index >= slots_.size()) return nullptr;
        slot& s = slots_[index];
        return s.in_use && s.generation == generation_of(t) ? &s.value : nullptr;
    }

    /// The live registration in slot `index` whatever its generation, or
    /// nullptr: for a backend that remembered only the slot (and checks that
    /// what it finds is still what it left there).
    entry* find_slot(std::uint32_t index) noexcept {
        return index < slots_.size() && slots_[index].in_use ? &slots_[index].value : nullptr;
    }

    /// The token of `fd`'s live registration, or 0 when it has none.
    io_token token_of_fd(int fd) const noexcept {
        if (fd < 0 || static_cast<std::size_t>(fd) >= slot_of_fd_.size()) return 0;
        const std::uint32_t index = slot_of_fd_[static_cast<std::size_t>(fd)];
        return index == no_slot ? 0 : make_token(index, slots_[index].generation);
    }

    /// Ends registration `t`: its state is reset, its slot gets a new
    /// generation and goes back to the free list. Returns false
    /// (and does nothing) for a stale token.
    bool erase(io_token t) noexcept {
        entry* r = find(t);
        if (!r) return false;
        const std::uint32_t index = index_of(t);
        slot& s = slots_[index];
        slot_of_fd_[static_cast<std::size_t>(r->fd)] = no_slot;
        s.value = entry{};
        s.in_use = false;
        s.generation = (s.generation + 1) & generation_mask;
        if (s.generation == 0) s.generation = 1;
        s.next_free = free_head_;
        free_head_ = index;
        --live_;
        return true;
    }

    /// How many registrations are live.
    std::size_t size() const noexcept { return live_; }
    /// How many slots exist, live or free: find_slot() takes 0 .. slot_count() - 1,
    /// for a backend that passes every registration to its kernel each time.
    std::uint32_t slot_count() const noexcept { return static_cast<std::uint32_t>(slots_.size()); }

  private:
    static constexpr std::uint32_t no_slot = UINT32_MAX;

    struct slot {
        std::uint32_t generation = 1;  ///< never 0, so no token is 0
        std::uint32_t next_free = no_slot;
        bool in_use = false;
        entry value;
    };

    [[noreturn]] static void fail(int error, const std::string& what) {
        throw std::system_error(error, std::generic_category(), "reactor " + what);
    }

    std::vector<slot> slots_;
    std::vector<std::uint32_t> slot_of_fd_;  ///< descriptor -> slot, no_slot when free
    std::uint32_t free_head_ = no_slot;
    std::size_t live_ = 0;
};

}  // namespace rtkit::reactor_support
